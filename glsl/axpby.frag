// o = u_f0.x * A + u_f0.y * B   (add: 1, 1; sub: 1, -1; A + s*B: 1, s)
uniform sampler2D u_src0;
uniform sampler2D u_src1;
out vec4 o;
void main() {
    ivec2 t = ivec2(gl_FragCoord.xy);
    o = u_f0.x * texelFetch(u_src0, t, 0) + u_f0.y * texelFetch(u_src1, t, 0);
}
