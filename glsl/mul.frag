// o = A .* B (element-wise)
uniform sampler2D u_src0;
uniform sampler2D u_src1;
vec4 texla_op(ivec2 t) {
    return texelFetch(u_src0, t, 0) * texelFetch(u_src1, t, 0);
}
