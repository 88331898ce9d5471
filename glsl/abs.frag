// o = |A| element-wise (|0| = 0: padding stays zero)
uniform sampler2D u_src0;
vec4 texla_op(ivec2 t) {
    return abs(texelFetch(u_src0, t, 0));
}
