// o = c * A, c = u_f0.x (times the GPU scalar when u_coef bit 0 is set)
uniform sampler2D u_src0;
vec4 texla_op(ivec2 t) {
    return texla_coefs().x * texelFetch(u_src0, t, 0);
}
