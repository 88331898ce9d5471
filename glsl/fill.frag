// o = u_f0 (times the GPU scalar, u_coef) in every live lane, 0 in padding lanes (u_shape).
vec4 texla_op(ivec2 t) {
    return texla_mask(texla_coefs(), t);
}
