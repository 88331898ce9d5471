// One-pass reduction of a texture into a GPU scalar (the 1x1 image at unit 0). Each invocation
// folds texels t = id, id + N, id + 2N, ... (N invocations in all) of u_src0 (times u_src1 for
// the dot product), the workgroup folds its invocations (subgroup operations where the GL has
// them, else a tree in shared memory) into part[group]; the last workgroup to finish folds the
// parts in index order and writes the result. Fixed order everywhere: the result is the same
// run to run. The counter is left at zero for the next pass.
// u_i0: x = fold (0 sum, 1 max, 2 min); y = map (0 none, 1 A .* B, 2 A .* A, 3 |A|, 4 NaN and
//       +-Inf become the fold's identity). u_i1.xy = the source's size in texels.
// u_shape: the source's padding mask (padding lanes become the fold's identity).
layout(local_size_x = 256) in;
layout(rgba32f, binding = 0) uniform writeonly image2D u_dst;
layout(std430, binding = 0) coherent buffer Scratch {
    uint count;
    uint pad0, pad1, pad2;
    float part[];
};
uniform sampler2D u_src0;
uniform sampler2D u_src1;

#define WG 256
#if defined(TEXLA_SUBGROUP)
shared float sh[WG / TEXLA_SUBGROUP_SIZE];
#else
shared float sh[WG];
#endif
shared bool last_group;

float identity() {
    float inf = uintBitsToFloat(0x7f800000u);
    return u_i0.x == 1 ? -inf : u_i0.x == 2 ? inf : 0.0;
}

float fold(float a, float b) {
    if (u_i0.x == 1) return max(a, b);
    if (u_i0.x == 2) return min(a, b);
    return a + b;
}

vec4 element(ivec2 s, float id) {
    vec4 v = texelFetch(u_src0, s, 0);
    if (u_i0.y == 1) v *= texelFetch(u_src1, s, 0);
    else if (u_i0.y == 2) v *= v;
    else if (u_i0.y == 3) v = abs(v);
    if (u_i0.y == 4) v = mix(v, vec4(id), bvec4(ivec4(isnan(v)) + ivec4(isinf(v))));
    if (u_shape.x >= 0) v = mix(vec4(id), v, texla_live(s));
    return v;
}

#if defined(TEXLA_SUBGROUP)
float subgroup_fold(float v) {
    if (u_i0.x == 1) return subgroupMax(v);
    if (u_i0.x == 2) return subgroupMin(v);
    return subgroupAdd(v);
}
#endif

// the fold of every invocation's v, valid in invocation 0
float group_fold(float v, uint lid) {
#if defined(TEXLA_SUBGROUP)
    v = subgroup_fold(v);
    if (subgroupElect()) sh[gl_SubgroupID] = v;
    barrier();
    if (lid == 0u) {
        for (uint i = 1u; i < gl_NumSubgroups; ++i) v = fold(v, sh[i]);
    }
    barrier();
    return v;
#else
    sh[lid] = v;
    barrier();
    for (uint s = WG / 2u; s > 0u; s >>= 1u) {
        if (lid < s) sh[lid] = fold(sh[lid], sh[lid + s]);
        barrier();
    }
    float r = sh[0];
    barrier();
    return r;
#endif
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint groups = gl_NumWorkGroups.x;
    int w = u_i1.x, total = u_i1.x * u_i1.y;
    int stride = int(groups) * WG;
    float id = identity();
    float acc = id;
    for (int t = int(gl_GlobalInvocationID.x); t < total; t += stride) {
        vec4 v = element(ivec2(t % w, t / w), id);
        acc = fold(acc, fold(fold(v.x, v.y), fold(v.z, v.w)));
    }
    acc = group_fold(acc, lid);
    if (lid == 0u) {
        part[gl_WorkGroupID.x] = acc;
        memoryBarrierBuffer();
        last_group = atomicAdd(count, 1u) == groups - 1u;
    }
    barrier();
    if (!last_group) return;
    memoryBarrierBuffer();
    float a = id;
    for (uint i = lid; i < groups; i += uint(WG)) a = fold(a, part[i]);
    a = group_fold(a, lid);
    if (lid == 0u) {
        imageStore(u_dst, ivec2(0, 0), vec4(a, 0.0, 0.0, 0.0));
        count = 0u;
    }
}
