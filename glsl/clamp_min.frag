// o = max(A, u_f0.x) in live lanes; padding lanes stay 0 even when u_f0.x > 0 (u_shape).
uniform sampler2D u_src0;
vec4 texla_op(ivec2 t) {
    return texla_mask(max(texelFetch(u_src0, t, 0), vec4(u_f0.x)), t);
}
