// o = A
uniform sampler2D u_src0;
vec4 texla_op(ivec2 t) {
    return texelFetch(u_src0, t, 0);
}
