// o = A .* B (element-wise)
uniform sampler2D u_src0;
uniform sampler2D u_src1;
out vec4 o;
void main() {
    ivec2 t = ivec2(gl_FragCoord.xy);
    o = texelFetch(u_src0, t, 0) * texelFetch(u_src1, t, 0);
}
