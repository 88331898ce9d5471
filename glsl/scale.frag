// o = c * A, c = u_f0.x (times the GPU scalar when u_coef bit 0 is set)
uniform sampler2D u_src0;
out vec4 o;
void main() {
    o = texla_coefs().x * texelFetch(u_src0, ivec2(gl_FragCoord.xy), 0);
}
