// o = u_f0.x ./ A in live lanes; padding lanes (where A is 0) stay 0 (u_shape).
uniform sampler2D u_src0;
vec4 texla_op(ivec2 t) {
    return texla_mask(vec4(u_f0.x) / texelFetch(u_src0, t, 0), t);
}
