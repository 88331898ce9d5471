// Complex vectors (texla_vec of (re, im) pairs; a texel holds two complex numbers, .xy and .zw).
// u_i0.x: 0 dst = a + s b (s = u_f0.x + i u_f0.y, times the complex scalar in u_src2 when
// u_i0.y != 0), 1 dst = a .* b, 2 dst = conj(a) .* b, 3 dst = (b.y, -b.x) per pair (for the
// imaginary part of conj(a) . b). u_src0 = a, u_src1 = b. Padding lanes stay 0.
uniform sampler2D u_src0;
uniform sampler2D u_src1;
uniform sampler2D u_src2;
vec4 texla_op(ivec2 t) {
    vec4 b = texelFetch(u_src1, t, 0), r;
    if (u_i0.x == 3) {
        r = vec4(b.y, -b.x, b.w, -b.z);
    } else {
        vec4 a = texelFetch(u_src0, t, 0);
        if (u_i0.x == 0) {
            vec2 s = u_f0.xy;
            if (u_i0.y != 0) s = texla_cmul(s, texelFetch(u_src2, ivec2(0, 0), 0).xy);
            r = a + vec4(texla_cmul(s, b.xy), texla_cmul(s, b.zw));
        } else {
            if (u_i0.x == 2) a = vec4(a.x, -a.y, a.z, -a.w);
            r = vec4(texla_cmul(a.xy, b.xy), texla_cmul(a.zw, b.zw));
        }
    }
    return texla_mask(r, t);
}
