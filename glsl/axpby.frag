// o = a * A + b * B with (a, b) = u_f0.xy (each times the GPU scalar where u_coef says)
// add: 1, 1; sub: 1, -1; A + s*B: 1, s. A GPU scalar may be Inf or NaN (a host coefficient
// cannot: refused), and Inf times a padding lane's 0 is NaN: the padding is masked then.
uniform sampler2D u_src0;
uniform sampler2D u_src1;
vec4 texla_op(ivec2 t) {
    vec4 c = texla_coefs();
    vec4 o = c.x * texelFetch(u_src0, t, 0) + c.y * texelFetch(u_src1, t, 0);
    return u_coef == 0 ? o : texla_mask(o, t);
}
