// o = A + (B + D) .* E   (the seed paper's "madad")
uniform sampler2D u_src0; // A
uniform sampler2D u_src1; // B
uniform sampler2D u_src2; // D
uniform sampler2D u_src3; // E
vec4 texla_op(ivec2 t) {
    return texelFetch(u_src0, t, 0) +
        (texelFetch(u_src1, t, 0) + texelFetch(u_src2, t, 0)) * texelFetch(u_src3, t, 0);
}
