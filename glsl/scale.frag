// o = c * A, c = u_f0.x (times the GPU scalar when u_coef bit 0 is set). A GPU scalar may be
// Inf or NaN (a host coefficient cannot: refused), and Inf times a padding lane's 0 is NaN: the
// padding is masked then.
uniform sampler2D u_src0;
vec4 texla_op(ivec2 t) {
    vec4 o = texla_coefs().x * texelFetch(u_src0, t, 0);
    return u_coef == 0 ? o : texla_mask(o, t);
}
