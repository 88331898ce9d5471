// One-pass reduction of a texture into a GPU scalar (the 1x1 image at unit 0). Invocation i of
// N folds texels t = i, i + N, i + 2N, ... of u_src0 (times u_src1 for the dot product), four
// at a time with independent loads in flight; the texel's (x, y) advances by the stride's
// (dx, dy) with one carry, no division. The workgroup folds its invocations (subgroup
// operations where the GL has them, else a tree in shared memory); a single workgroup writes
// the result directly, else each writes part[group] and the last workgroup to finish folds the
// parts in index order. Fixed order everywhere: the same result run to run. The counter is
// left at zero for the next pass.
// Defines: FOLD 0 sum, 1 max, 2 min (a NaN element makes max and min NaN; see NaN below);
// MAP 0 none, 1 A .* B, 2 A .* A, 3 |A|, 4 NaN and +-Inf become the fold's identity; TILE 0:
// the row-major grid stride above, 1: whole tiles of TW x (256 / TW) texels per workgroup,
// UNROLL in flight (the "reduce" family's variants, src/core/variants.c).
// u_i1 = (w, h, dx, dy): the source's size in texels, and the grid stride N as (N mod w,
// N div w). u_shape: the source's padding mask (padding lanes become the fold's identity).
layout(local_size_x = 256) in;
layout(rgba32f, binding = 0) uniform writeonly image2D u_dst;
layout(std430, binding = 0) coherent buffer Scratch {
    uint count;
    uint pad0, pad1, pad2;
    float part[];
};
#if FOLD == 1 && MAP == 3
// maxabs: the parts as bits (the same words)
layout(std430, binding = 0) coherent buffer ScratchBits {
    uint count_;
    uint pad0_, pad1_, pad2_;
    uint partb[];
};
#endif
uniform sampler2D u_src0;
uniform sampler2D u_src1;

#define WG 256
shared bool last_group;

// NaN (max and min): F, the fold across invocations, returns a NaN operand (texla_max_nan). The
// per-invocation loops, where the time goes, fold with the plain FP (GLSL's max/min: a NaN may
// be dropped) and keep beside it nanbits, the largest |bits| of any element (an integer max):
// a NaN's exceed +Inf's 0x7f800000, so after the loops the invocation's value becomes that
// NaN when there was one, which F then carries to the result. maxabs (FOLD 1, MAP 3) folds
// |bits| alone, as unsigned integers, everywhere (the loops, the workgroup, the parts): they
// order as the non-negative floats do (+0 < the denormals < the normals < +Inf < every NaN),
// so their max is the largest magnitude, or the largest NaN's bits when any element is one,
// with no float compare that could flush a denormal to 0 (a float fold across invocations
// did on the H100).
#if FOLD == 1
#define ID (-uintBitsToFloat(0x7f800000u))
#define F(a, b) texla_max_nan(a, b)
#define FP(a, b) max(a, b)
#elif FOLD == 2
#define ID uintBitsToFloat(0x7f800000u)
#define F(a, b) texla_min_nan(a, b)
#define FP(a, b) min(a, b)
#else
#define ID 0.0
#define F(a, b) ((a) + (b))
#define FP(a, b) ((a) + (b))
#endif
#if FOLD == 1 && MAP == 3
#define BITS 1 // maxabs: the accumulators are |bits| (uint), their identity +0.0's
#define ACC uint
#define AID 0u
#else
#define ACC float
#define AID ID
#if (FOLD == 1 || FOLD == 2) && MAP != 4
#define NANBITS 1 // max and min (MAP 4 leaves no NaN)
uint nanbits = 0u;
#endif
#endif
// across invocations and workgroups: RT values folded by RF (maxabs: bits, an integer max;
// else floats by F), the parts in PART, the result OUT(a) as a float
#ifdef BITS
#define RT uint
#define RID 0u
#define RF(a, b) max(a, b)
#define PART partb
#define OUT(a) uintBitsToFloat(a)
#else
#define RT float
#define RID ID
#define RF(a, b) F(a, b)
#define PART part
#define OUT(a) (a)
#endif
#if defined(TEXLA_SUBGROUP)
shared RT sh[WG / TEXLA_SUBGROUP_SIZE];
#else
shared RT sh[WG];
#endif

ACC element(ivec2 s) {
    vec4 v = texelFetch(u_src0, s, 0);
#ifdef BITS
    uvec4 u = floatBitsToUint(v) & uvec4(0x7fffffffu); // |v|
    if (u_shape.x >= 0) u *= uvec4(texla_live(s));     // padding lanes: +0.0, the identity
    return max(max(u.x, u.y), max(u.z, u.w));
#else
#if MAP == 1
    v *= texelFetch(u_src1, s, 0);
#elif MAP == 2
    v *= v;
#elif MAP == 3
    v = abs(v);
#elif MAP == 4
    v = mix(v, vec4(ID), texla_nonfinite(v));
#endif
    if (u_shape.x >= 0) v = mix(vec4(ID), v, texla_live(s));
#ifdef NANBITS
    uvec4 u = floatBitsToUint(v) & uvec4(0x7fffffffu);
    nanbits = max(nanbits, max(max(u.x, u.y), max(u.z, u.w)));
#endif
    return FP(FP(v.x, v.y), FP(v.z, v.w));
#endif
}

#if defined(TEXLA_SUBGROUP) && !defined(BITS)
float subgroup_fold(float v) {
#if FOLD == 1 || FOLD == 2
    // subgroupMax/Min of a NaN are undefined: a NaN lane's bits win (the largest, so the same
    // NaN every run), else the plain fold
    uint nb = subgroupMax(texla_isnan(v) ? floatBitsToUint(v) : 0u);
#if FOLD == 1
    float r = subgroupMax(v);
#else
    float r = subgroupMin(v);
#endif
    return nb != 0u ? uintBitsToFloat(nb) : r;
#else
    return subgroupAdd(v);
#endif
}
#endif

// the fold of every invocation's v, valid in invocation 0
RT group_fold(RT v, uint lid) {
#if defined(TEXLA_SUBGROUP)
#ifdef BITS
    v = subgroupMax(v);
#else
    v = subgroup_fold(v);
#endif
    if (subgroupElect()) sh[gl_SubgroupID] = v;
    barrier();
    if (lid == 0u) {
        for (uint i = 1u; i < gl_NumSubgroups; ++i) v = RF(v, sh[i]);
    }
    barrier();
    return v;
#else
    sh[lid] = v;
    barrier();
    for (uint s = WG / 2u; s > 0u; s >>= 1u) {
        if (lid < s) sh[lid] = RF(sh[lid], sh[lid + s]);
        barrier();
    }
    RT r = sh[0];
    barrier();
    return r;
#endif
}

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint groups = gl_NumWorkGroups.x;
#if TILE
    // Tiles of TW x (256 / TW) texels (32 x 8 by default), as a GPU lays a 2D texture out in
    // memory: workgroup k folds tiles k, k + G, k + 2G, ... (u_i1 = (w, h, tiles across,
    // tiles)), UNROLL of them in flight, the last round's loads as independent as the others;
    // invocation (lid % TW, lid / TW) reads its texel of each.
#ifndef TW
#define TW 32
#endif
#ifndef UNROLL
#define UNROLL 4
#endif
    int w = u_i1.x, h = u_i1.y, tw = u_i1.z, tiles = u_i1.w;
    ivec2 me = ivec2(int(lid) % TW, int(lid) / TW);
    int G = int(groups), t = int(gl_WorkGroupID.x);
    ACC acc_[UNROLL];
    for (int i = 0; i < UNROLL; ++i) acc_[i] = AID;
    for (; t < tiles; t += UNROLL * G) {
        for (int i = 0; i < UNROLL; ++i) {
            int ti = t + i * G;
            ivec2 s = ivec2((ti % tw) * TW, (ti / tw) * (256 / TW)) + me;
            if (ti < tiles && s.x < w && s.y < h) acc_[i] = FP(acc_[i], element(s));
        }
    }
    for (int i = UNROLL / 2; i > 0; i >>= 1)
        for (int j = 0; j < i; ++j) acc_[j] = FP(acc_[j], acc_[j + i]);
    ACC a0 = acc_[0], a1 = AID, a2 = AID, a3 = AID;
#else
    int w = u_i1.x, h = u_i1.y, dx = u_i1.z, dy = u_i1.w;
    int g = int(gl_GlobalInvocationID.x);
    ivec2 p = ivec2(g % w, g / w);
    ACC a0 = AID, a1 = AID, a2 = AID, a3 = AID;
    // four texels t, t + N, t + 2N, t + 3N per round
    for (;;) {
        ivec2 p1 = p + ivec2(dx, dy), p2, p3;
        if (p1.x >= w) p1 += ivec2(-w, 1);
        p2 = p1 + ivec2(dx, dy);
        if (p2.x >= w) p2 += ivec2(-w, 1);
        p3 = p2 + ivec2(dx, dy);
        if (p3.x >= w) p3 += ivec2(-w, 1);
        if (p3.y >= h) break;
        a0 = FP(a0, element(p));
        a1 = FP(a1, element(p1));
        a2 = FP(a2, element(p2));
        a3 = FP(a3, element(p3));
        p = p3 + ivec2(dx, dy);
        if (p.x >= w) p += ivec2(-w, 1);
    }
    for (; p.y < h;) {
        a0 = FP(a0, element(p));
        p += ivec2(dx, dy);
        if (p.x >= w) p += ivec2(-w, 1);
    }
#endif
    RT acc = FP(FP(a0, a1), FP(a2, a3));
#ifdef NANBITS
    if (nanbits > 0x7f800000u) acc = uintBitsToFloat(nanbits); // the largest NaN seen
#endif
    acc = group_fold(acc, lid);
    if (groups == 1u) {
        if (lid == 0u) imageStore(u_dst, ivec2(0, 0), vec4(OUT(acc), 0.0, 0.0, 0.0));
        return;
    }
    if (lid == 0u) {
        PART[gl_WorkGroupID.x] = acc;
        memoryBarrierBuffer();
        last_group = atomicAdd(count, 1u) == groups - 1u;
    }
    barrier();
    if (!last_group) return;
    memoryBarrierBuffer();
    RT a = RID;
    for (uint i = lid; i < groups; i += uint(WG)) a = RF(a, PART[i]);
    a = group_fold(a, lid);
    if (lid == 0u) {
        imageStore(u_dst, ivec2(0, 0), vec4(OUT(a), 0.0, 0.0, 0.0));
        count = 0u;
    }
}
