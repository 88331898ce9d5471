// The update of a conjugate-gradient step, fused: alpha = rr / pq (0 when pq is 0), then per
// texel x += alpha p and r -= alpha q (x and r read and written in place: each invocation only
// its own texel), and the new r'r summed on the way: each workgroup folds its texels in a fixed
// tree, the last workgroup to finish folds the partial sums in index order and writes
// rr_new = r'r and beta = rr_new / rr (0 when rr is 0). Deterministic. Padding lanes of x
// and r are written zero (masked by u_shape: an alpha of Inf times a padding lane's 0 is NaN),
// so they add nothing.
// image 0 = x, image 1 = r, image 2 = rr_new (1x1), image 3 = beta (1x1);
// u_src0 = p, u_src1 = q, u_src2 = rr (1x1), u_src3 = pq (1x1); u_i0.xy x's texture size (a
// uniform: imageSize in every invocation costs the texture unit).
layout(local_size_x = 16, local_size_y = 16) in;
layout(rgba32f, binding = 0) uniform image2D u_dst;
layout(rgba32f, binding = 1) uniform image2D u_r;
layout(rgba32f, binding = 2) uniform writeonly image2D u_rr_new;
layout(rgba32f, binding = 3) uniform writeonly image2D u_beta;
layout(std430, binding = 0) coherent buffer Scratch {
    uint count;
    uint pad0, pad1, pad2;
    float part[];
};
uniform sampler2D u_src0; // p
uniform sampler2D u_src1; // q
uniform sampler2D u_src2; // rr
uniform sampler2D u_src3; // pq

shared float red[256];
shared bool last_group;

float group_sum(float v, uint lid) {
    barrier();
    red[lid] = v;
    barrier();
    for (uint s = 128u; s > 0u; s >>= 1u) {
        if (lid < s) red[lid] += red[lid + s];
        barrier();
    }
    return red[0];
}

void main() {
    ivec2 t = ivec2(gl_GlobalInvocationID.xy);
    uint lid = gl_LocalInvocationIndex;
    float rr = texelFetch(u_src2, ivec2(0, 0), 0).x, pq = texelFetch(u_src3, ivec2(0, 0), 0).x;
    float alpha = pq == 0.0 ? 0.0 : rr / pq;
    float d = 0.0;
    if (all(lessThan(t, u_i0.xy))) {
        vec4 r = texla_mask(imageLoad(u_r, t) - alpha * texelFetch(u_src1, t, 0), t);
        imageStore(u_dst, t, texla_mask(imageLoad(u_dst, t) + alpha * texelFetch(u_src0, t, 0), t));
        imageStore(u_r, t, r);
        d = dot(r, r);
    }
    float w = group_sum(d, lid);
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    if (lid == 0u) {
        part[gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x] = w;
        memoryBarrierBuffer();
        last_group = atomicAdd(count, 1u) == groups - 1u;
    }
    barrier();
    if (!last_group) return;
    memoryBarrierBuffer();
    float a = 0.0;
    for (uint q = lid; q < groups; q += 256u) a += part[q];
    a = group_sum(a, lid);
    if (lid == 0u) {
        imageStore(u_rr_new, ivec2(0, 0), vec4(a, 0.0, 0.0, 0.0));
        imageStore(u_beta, ivec2(0, 0), vec4(rr == 0.0 ? 0.0 : a / rr, 0.0, 0.0, 0.0));
        count = 0u;
    }
}
