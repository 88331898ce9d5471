// Dense matrix-vector product by gather (one workgroup gathers whole rows, nothing is
// scattered): y = A x (+ s b), optionally with the dot product p'y (p = x) folded into a GPU
// scalar in the same pass, or (LCP) one projected Jacobi step. A is n x m in 4x1 packing, so
// texel row I of A is matrix rows 4I..4I+3 and one vec4 accumulator serves four rows. A
// workgroup takes ROWS texel rows with Z invocations each; the invocations of a row walk its
// texels j = z, z + Z, ... against x, which is staged XCHUNK elements at a time in shared
// memory (for all ROWS rows at once), and their Z partial sums meet in a tree in shared memory.
// y is written as a dense n x 1 texture (image unit 0), one texel (four rows) per texel row.
// Fixed summation order everywhere: the same result run to run.
// Variant defines: ROWS, Z (a power of two), XCHUNK (a multiple of 4), WG; LCP 0 or 1.
// u_i0 = (n, m, x's grid width nx (0: x is a dense m x 1 texture), flags): flags bit 0 add
// s b (s = u_f0.x), bit 1 the dot product p'y into the 1x1 image at unit 1 (needs n == m).
// u_i1.x = b's grid width (0: dense). u_src0 = A, u_src1 = x, u_src2 = b.
// LCP: y = project(x + (A x + b) .* e) with x, b, e dense n x 1 (u_src1, 2, 3) and, when
// u_i1.y is 1, the bounded projection with index and mu (u_src4, 5): the unprojected values go
// to the scratch buffer, and the last workgroup to finish projects them all (a friction row
// needs its normal row's value, which another workgroup computes).
// WG = ROWS * Z, given by the host as a literal (GLSL 4.30 wants one in a layout qualifier)
layout(local_size_x = WG) in;
layout(rgba32f, binding = 0) uniform image2D u_dst;
layout(rgba32f, binding = 1) uniform image2D u_img1;
layout(std430, binding = 0) coherent buffer Scratch {
    uint count;
    uint pad0, pad1, pad2;
    float part[];
};
uniform sampler2D u_src0; // A
uniform sampler2D u_src1; // x
uniform sampler2D u_src2; // b
uniform sampler2D u_src3; // e (LCP)
uniform sampler2D u_src4; // index (LCP)
uniform sampler2D u_src5; // mu (LCP)

shared vec4 xs[XCHUNK / 4];
shared vec4 red[WG];
shared float dsh[ROWS];
shared bool last_group;

// elements 4I .. 4I+3 of a vector (dense n x 1 when nx == 0, else a 2D vector rows nx wide),
// zero past n
vec4 rows_of(sampler2D s, int I, int nx, int n) {
    if (nx == 0) return texelFetch(s, ivec2(0, I), 0);
    vec4 v = vec4(0.0);
    for (int c = 0; c < 4; ++c)
        if (4 * I + c < n) v[c] = texla_vec_fetch(s, 4 * I + c, nx);
    return v;
}

// true in the last workgroup to get here (the counter is reset by it); call with every
// invocation of the workgroup after its writes to `part`
bool arrive_last() {
    memoryBarrierBuffer();
    barrier();
    if (gl_LocalInvocationIndex == 0u)
        last_group = atomicAdd(count, 1u) == gl_NumWorkGroups.x - 1u;
    barrier();
    if (last_group) memoryBarrierBuffer();
    return last_group;
}

// the sum of every invocation's v in a fixed order, valid in invocation 0
float group_sum(float v, uint lid) {
    red[lid] = vec4(v);
    barrier();
    for (uint s = uint(WG) / 2u; s > 0u; s >>= 1u) {
        if (lid < s) red[lid].x += red[lid + s].x;
        barrier();
    }
    return red[0].x;
}

void main() {
    int n = u_i0.x, m = u_i0.y, xnx = u_i0.z, flags = u_i0.w;
    uint lid = gl_LocalInvocationIndex;
    int r = int(lid) / Z, z = int(lid) % Z;
    int I = int(gl_WorkGroupID.x) * ROWS + r;
    int rows_t = (n + 3) / 4;
    bool live = I < rows_t;

    vec4 acc0 = vec4(0.0), acc1 = vec4(0.0);
    for (int c0 = 0; c0 < m; c0 += XCHUNK) {
        int cn = min(XCHUNK, m - c0);
        if (xnx == 0) {
            for (int q = int(lid); q < XCHUNK / 4; q += WG)
                xs[q] = 4 * q < cn ? texelFetch(u_src1, ivec2(0, c0 / 4 + q), 0) : vec4(0.0);
        } else {
            for (int q = int(lid); q < XCHUNK / 4; q += WG) {
                vec4 v = vec4(0.0);
                for (int c = 0; c < 4; ++c)
                    if (4 * q + c < cn) v[c] = texla_vec_fetch(u_src1, c0 + 4 * q + c, xnx);
                xs[q] = v;
            }
        }
        barrier();
        if (live) {
            int j = z;
            // two accumulators: independent fetches in flight
            for (; j + Z < cn; j += 2 * Z) {
                vec4 a0 = texelFetch(u_src0, ivec2(c0 + j, I), 0);
                vec4 a1 = texelFetch(u_src0, ivec2(c0 + j + Z, I), 0);
                acc0 += a0 * xs[j >> 2][j & 3];
                acc1 += a1 * xs[(j + Z) >> 2][(j + Z) & 3];
            }
            if (j < cn) acc0 += texelFetch(u_src0, ivec2(c0 + j, I), 0) * xs[j >> 2][j & 3];
        }
        barrier();
    }
    red[lid] = acc0 + acc1;
    barrier();
    for (int s = Z / 2; s > 0; s >>= 1) {
        if (z < s) red[lid] += red[lid + uint(s)];
        barrier();
    }
    vec4 y = red[r * Z];
    bvec4 in_n = lessThan(4 * I + ivec4(0, 1, 2, 3), ivec4(n));
#if LCP
    bool bounded = u_i1.y != 0;
    if (z == 0 && live) {
        vec4 x = texelFetch(u_src1, ivec2(0, I), 0);
        vec4 b = texelFetch(u_src2, ivec2(0, I), 0);
        vec4 e = texelFetch(u_src3, ivec2(0, I), 0);
        vec4 v = mix(vec4(0.0), x + (y + b) * e, in_n);
        if (bounded) {
            for (int c = 0; c < 4; ++c) part[4 * I + c] = v[c];
        } else {
            imageStore(u_dst, ivec2(0, I), max(v, vec4(0.0)));
        }
    }
    if (!bounded) return;
    if (!arrive_last()) return;
    for (int t = int(lid); t < rows_t; t += WG) {
        vec4 idx = texelFetch(u_src4, ivec2(0, t), 0), mu = texelFetch(u_src5, ivec2(0, t), 0);
        vec4 o = vec4(0.0);
        for (int c = 0; c < 4; ++c) {
            int i = 4 * t + c;
            if (i >= n) break;
            float v = part[i];
            int j = int(idx[c]);
            if (j < 0 || j >= n) {
                o[c] = max(v, 0.0);
            } else {
                float nj = max(part[j], 0.0);
                o[c] = clamp(v, -mu[c] * nj, mu[c] * nj);
            }
        }
        imageStore(u_dst, ivec2(0, t), o);
    }
    if (lid == 0u) count = 0u;
#else
    float d = 0.0;
    if (z == 0 && live) {
        y = mix(vec4(0.0), y, in_n);
        if ((flags & 1) != 0) y += u_f0.x * rows_of(u_src2, I, u_i1.x, n);
        imageStore(u_dst, ivec2(0, I), y);
        if ((flags & 2) != 0) d = dot(y, rows_of(u_src1, I, xnx, n));
    }
    if ((flags & 2) == 0) return;
    if (z == 0) dsh[r] = d;
    barrier();
    if (lid == 0u) {
        float w = 0.0;
        for (int q = 0; q < ROWS; ++q) w += dsh[q];
        part[gl_WorkGroupID.x] = w;
    }
    if (!arrive_last()) return;
    float a = 0.0;
    for (uint q = lid; q < gl_NumWorkGroups.x; q += uint(WG)) a += part[q];
    a = group_sum(a, lid);
    if (lid == 0u) {
        imageStore(u_img1, ivec2(0, 0), vec4(a, 0.0, 0.0, 0.0));
        count = 0u;
    }
#endif
}
