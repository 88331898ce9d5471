// o = u_f0 (times the GPU scalar, u_coef) in every live lane, 0 in padding lanes (u_shape).
out vec4 o;
void main() {
    o = texla_mask(texla_coefs(), ivec2(gl_FragCoord.xy));
}
