// One pass of a log-pass reduction: each output texel folds the 2x2 source texels
// (2x..2x+1, 2y..2y+1) of u_src0 (u_i1.xy = the source's size; texels past it are skipped).
// u_i0.x: 0 sum, 1 max, 2 min (a NaN element makes max and min NaN: texla_max_nan).
// u_i0.y: the first pass's map of each element: 0 none, 1 A .* B (u_src1), 2 A .* A, 3 |A|,
//         4 none but NaN and +-Inf become the fold's identity;
//         on the first pass padding lanes (u_shape of the source) become the fold's identity.
// u_i0.z: 1 on the last pass: fold the four channels too; the result is (r, 0, 0, 0).
uniform sampler2D u_src0;
uniform sampler2D u_src1;

vec4 fold(vec4 a, vec4 b) {
    if (u_i0.x == 1) return texla_max_nan(a, b);
    if (u_i0.x == 2) return texla_min_nan(a, b);
    return a + b;
}

vec4 element(ivec2 s) {
    vec4 v = texelFetch(u_src0, s, 0);
    if (u_i0.y == 1) v *= texelFetch(u_src1, s, 0);
    else if (u_i0.y == 2) v *= v;
    else if (u_i0.y == 3) v = abs(v);
    float inf = uintBitsToFloat(0x7f800000u);
    vec4 id = vec4(u_i0.x == 1 ? -inf : u_i0.x == 2 ? inf : 0.0);
    if (u_i0.y == 4) v = mix(v, id, texla_nonfinite(v));
    if (u_shape.x >= 0) v = mix(id, v, texla_live(s));
    return v;
}

vec4 texla_op(ivec2 t) {
    ivec2 s0 = 2 * t;
    vec4 acc = element(s0);
    if (s0.x + 1 < u_i1.x) acc = fold(acc, element(s0 + ivec2(1, 0)));
    if (s0.y + 1 < u_i1.y) {
        acc = fold(acc, element(s0 + ivec2(0, 1)));
        if (s0.x + 1 < u_i1.x) acc = fold(acc, element(s0 + ivec2(1, 1)));
    }
    if (u_i0.z != 0) {
        vec4 r = fold(fold(acc.xxxx, acc.yyyy), fold(acc.zzzz, acc.wwww));
        acc = vec4(r.x, 0.0, 0.0, 0.0);
    }
    return acc;
}
