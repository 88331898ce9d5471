// o = A
uniform sampler2D u_src0;
out vec4 o;
void main() {
    o = texelFetch(u_src0, ivec2(gl_FragCoord.xy), 0);
}
