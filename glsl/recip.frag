// o = u_f0.x ./ A in live lanes; padding lanes (where A is 0) stay 0 (u_shape).
uniform sampler2D u_src0;
out vec4 o;
void main() {
    ivec2 t = ivec2(gl_FragCoord.xy);
    o = texla_mask(vec4(u_f0.x) / texelFetch(u_src0, t, 0), t);
}
