// o = clamp(A, u_f0.x, u_f0.y) in live lanes; padding lanes stay 0 (u_shape).
uniform sampler2D u_src0;
out vec4 o;
void main() {
    ivec2 t = ivec2(gl_FragCoord.xy);
    o = texla_mask(clamp(texelFetch(u_src0, t, 0), vec4(u_f0.x), vec4(u_f0.y)), t);
}
