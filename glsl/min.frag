// o = min(A, B) element-wise (padding lanes are zero in both, so they stay zero)
uniform sampler2D u_src0;
uniform sampler2D u_src1;
vec4 texla_op(ivec2 t) {
    return min(texelFetch(u_src0, t, 0), texelFetch(u_src1, t, 0));
}
