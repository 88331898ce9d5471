// o = A + (B + D) .* E   (the seed paper's "madad")
uniform sampler2D u_src0; // A
uniform sampler2D u_src1; // B
uniform sampler2D u_src2; // D
uniform sampler2D u_src3; // E
out vec4 o;
void main() {
    ivec2 t = ivec2(gl_FragCoord.xy);
    o = texelFetch(u_src0, t, 0) +
        (texelFetch(u_src1, t, 0) + texelFetch(u_src2, t, 0)) * texelFetch(u_src3, t, 0);
}
