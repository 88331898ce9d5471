// o = u_f0 in every live lane, 0 in padding lanes (u_shape).
out vec4 o;
void main() {
    o = texla_mask(u_f0, ivec2(gl_FragCoord.xy));
}
