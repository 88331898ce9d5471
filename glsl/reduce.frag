// One pass of a log-pass reduction: each output texel folds the 2x2 source texels
// (2x..2x+1, 2y..2y+1) of u_src0 (u_i1.xy = the source's size; texels past it are skipped).
// FOLD (a define, one program each: the sum's carries none of the NaN code): 0 sum, 1 max,
// 2 min (a NaN element makes max and min NaN; see NaN below).
// u_i0.y: the first pass's map of each element: 0 none, 1 A .* B (u_src1), 2 A .* A, 3 |A|,
//         4 none but NaN and +-Inf become the fold's identity; 3 with max (maxabs) comes on
//         every pass (|x| of a partial, never negative, is the partial);
//         on the first pass padding lanes (u_shape of the source) become the fold's identity.
// u_i0.z: 1 on the last pass: fold the four channels too; the result is (r, 0, 0, 0).
// NaN: max and min fold with GLSL's max/min (a NaN may be dropped) and keep beside them, per
// channel, nanbits: the largest |bits| of the elements folded (an integer max). A NaN's exceed
// +Inf's 0x7f800000, so a channel that saw a NaN is written as that NaN, which the next pass
// sees in turn. maxabs folds |bits| alone, as unsigned integers: they order as the non-negative
// floats do (+0 < the denormals < the normals < +Inf < every NaN), so their max is the largest
// magnitude, or a NaN when any element is one, without a float compare (no denormal flushed).
#ifndef FOLD
#define FOLD 0
#endif
uniform sampler2D u_src0;
uniform sampler2D u_src1;

#if FOLD != 0
uvec4 nanbits = uvec4(0u);
#endif

vec4 fold(vec4 a, vec4 b) {
#if FOLD == 1
    return max(a, b);
#elif FOLD == 2
    return min(a, b);
#else
    return a + b;
#endif
}

vec4 element(ivec2 s) {
    vec4 v = texelFetch(u_src0, s, 0);
    if (u_i0.y == 1) v *= texelFetch(u_src1, s, 0);
    else if (u_i0.y == 2) v *= v;
    else if (u_i0.y == 3) v = abs(v);
    float inf = uintBitsToFloat(0x7f800000u);
    vec4 id = vec4(FOLD == 1 ? -inf : FOLD == 2 ? inf : 0.0);
    if (u_i0.y == 4) v = mix(v, id, texla_nonfinite(v));
    if (u_shape.x >= 0) v = mix(id, v, texla_live(s));
#if FOLD != 0
    nanbits = max(nanbits, floatBitsToUint(v) & uvec4(0x7fffffffu));
#endif
    return v;
}

#if FOLD == 1
// maxabs: the texel's |bits|, padding lanes +0.0's (the identity)
uvec4 element_bits(ivec2 s) {
    uvec4 u = floatBitsToUint(texelFetch(u_src0, s, 0)) & uvec4(0x7fffffffu);
    if (u_shape.x >= 0) u *= uvec4(texla_live(s));
    return u;
}
#endif

vec4 texla_op(ivec2 t) {
    ivec2 s0 = 2 * t;
    bool x1 = s0.x + 1 < u_i1.x, y1 = s0.y + 1 < u_i1.y;
#if FOLD == 1
    if (u_i0.y == 3) {
        uvec4 m = element_bits(s0);
        if (x1) m = max(m, element_bits(s0 + ivec2(1, 0)));
        if (y1) {
            m = max(m, element_bits(s0 + ivec2(0, 1)));
            if (x1) m = max(m, element_bits(s0 + ivec2(1, 1)));
        }
        if (u_i0.z != 0) m = uvec4(max(max(m.x, m.y), max(m.z, m.w)), 0u, 0u, 0u);
        return uintBitsToFloat(m);
    }
#endif
    vec4 acc = element(s0);
    if (x1) acc = fold(acc, element(s0 + ivec2(1, 0)));
    if (y1) {
        acc = fold(acc, element(s0 + ivec2(0, 1)));
        if (x1) acc = fold(acc, element(s0 + ivec2(1, 1)));
    }
#if FOLD != 0
    acc = mix(acc, uintBitsToFloat(nanbits), greaterThan(nanbits, uvec4(0x7f800000u)));
#endif
    if (u_i0.z != 0) {
        vec4 r = fold(fold(acc.xxxx, acc.yyyy), fold(acc.zzzz, acc.wwww));
#if FOLD != 0
        uint m = max(max(nanbits.x, nanbits.y), max(nanbits.z, nanbits.w));
        if (m > 0x7f800000u) r.x = uintBitsToFloat(m); // the largest NaN of the four
#endif
        acc = vec4(r.x, 0.0, 0.0, 0.0);
    }
    return acc;
}
