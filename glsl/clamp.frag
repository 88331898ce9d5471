// o = clamp(A, u_f0.x, u_f0.y) in live lanes; padding lanes stay 0 (u_shape).
uniform sampler2D u_src0;
vec4 texla_op(ivec2 t) {
    return texla_mask(clamp(texelFetch(u_src0, t, 0), vec4(u_f0.x), vec4(u_f0.y)), t);
}
