// o = u_f0.x * A
uniform sampler2D u_src0;
out vec4 o;
void main() {
    o = u_f0.x * texelFetch(u_src0, ivec2(gl_FragCoord.xy), 0);
}
