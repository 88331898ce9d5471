// Tiled dense products C = op(A) op(B), or C += op(A) op(B), on 4x1-packed textures (texel
// (j, I) of an n x m matrix holds rows 4I..4I+3 of column j). One workgroup computes a BM x BN
// block of C; each invocation a TM x TN register tile of it, as TM/4 x TN texels (vec4 = 4 rows
// of one column). The inner dimension is walked in slices of BK: the slices of op(A) and op(B)
// are staged in shared memory k-major (As[k][rows/4], Bs[k][cols/4], vec4 each), double
// buffered: while the invocations multiply out of one buffer, the next slice's texels wait in
// registers and go to the other buffer afterwards, so one barrier per slice suffices.
// Staging: A' and B arrive as texels of 4 consecutive k (one row or column), scattered into
// the k-major tiles one float at a time; A and B' arrive as texels of 4 rows or columns at one
// k, stored whole.
// Accumulation: with CHUNK > 0 the register tile sums CHUNK values of k, then is added into a
// second tile (two-level summation: error ~ (CHUNK + K/CHUNK) u instead of K u).
// Variant defines: BM, BN, BK (multiples of 4), TM, TN (multiples of 4, dividing BM, BN),
// CHUNK (a multiple of BK, or 0), TRANS_A, TRANS_B (0 or 1), WG = (BM/TM) (BN/TN).
// Uniforms: u_i0 = (n, m, K, accumulate): C is n x m, the inner dimension K; accumulate 1: C +=.
// u_src0 = A (n x K, or K x n with TRANS_A), u_src1 = B (K x m, or m x K with TRANS_B);
// image unit 0 = C. Reads past the edges of A and B are guarded (zero); padding lanes of C are
// written as zero.
#pragma optionNV(unroll all)
#define TX (BN / TN)
#define TY (BM / TM)
// WG = TX * TY, given by the host as a literal: GLSL 4.30 wants one in a layout qualifier
#define GM (TM / 4)
#define GN (TN / 4)
layout(local_size_x = WG) in;
layout(rgba32f, binding = 0) uniform image2D u_dst;
uniform sampler2D u_src0; // A
uniform sampler2D u_src1; // B

shared vec4 As[2][BK][BM / 4];
shared vec4 Bs[2][BK][BN / 4];

// texels of a slice per operand and how many each invocation stages
#define NA (BK * BM / 4)
#define NB (BK * BN / 4)
#define LA ((NA + WG - 1) / WG)
#define LB ((NB + WG - 1) / WG)

int n_, m_, K_, i0_, j0_, tid_;

// Texel l (0 .. NA-1) of A's slice at k0: where it comes from, guarded.
vec4 load_a(int l, int k0) {
#if TRANS_A
    // A is K x n: texels (i, T) hold A(4T..4T+3, i); the slice is BK/4 texel rows x BM columns
    int i = l % BM, t = l / BM;
    int T = k0 / 4 + t, gi = i0_ + i;
    if (gi >= n_ || T >= (K_ + 3) / 4) return vec4(0.0);
    return texelFetch(u_src0, ivec2(gi, T), 0);
#else
    // A is n x K: texels (k, I) hold A(4I..4I+3, k); the slice is BK columns x BM/4 texel rows
    int r = l % (BM / 4), kk = l / (BM / 4);
    int k = k0 + kk, I = i0_ / 4 + r;
    if (k >= K_ || I >= (n_ + 3) / 4) return vec4(0.0);
    return texelFetch(u_src0, ivec2(k, I), 0);
#endif
}

void store_a(int l, int b, vec4 v) {
#if TRANS_A
    int i = l % BM, t = l / BM;
    As[b][4 * t + 0][i >> 2][i & 3] = v.x;
    As[b][4 * t + 1][i >> 2][i & 3] = v.y;
    As[b][4 * t + 2][i >> 2][i & 3] = v.z;
    As[b][4 * t + 3][i >> 2][i & 3] = v.w;
#else
    As[b][l / (BM / 4)][l % (BM / 4)] = v;
#endif
}

vec4 load_b(int l, int k0) {
#if TRANS_B
    // B is m x K: texels (k, J) hold B(4J..4J+3, k) = B'(k, 4J..4J+3)
    int q = l % (BN / 4), kk = l / (BN / 4);
    int k = k0 + kk, J = j0_ / 4 + q;
    if (k >= K_ || J >= (m_ + 3) / 4) return vec4(0.0);
    return texelFetch(u_src1, ivec2(k, J), 0);
#else
    // B is K x m: texels (j, T) hold B(4T..4T+3, j)
    int j = l % BN, t = l / BN;
    int T = k0 / 4 + t, gj = j0_ + j;
    if (gj >= m_ || T >= (K_ + 3) / 4) return vec4(0.0);
    return texelFetch(u_src1, ivec2(gj, T), 0);
#endif
}

void store_b(int l, int b, vec4 v) {
#if TRANS_B
    Bs[b][l / (BN / 4)][l % (BN / 4)] = v;
#else
    int j = l % BN, t = l / BN;
    Bs[b][4 * t + 0][j >> 2][j & 3] = v.x;
    Bs[b][4 * t + 1][j >> 2][j & 3] = v.y;
    Bs[b][4 * t + 2][j >> 2][j & 3] = v.z;
    Bs[b][4 * t + 3][j >> 2][j & 3] = v.w;
#endif
}

void main() {
    n_ = u_i0.x, m_ = u_i0.y, K_ = u_i0.z;
    tid_ = int(gl_LocalInvocationIndex);
    i0_ = int(gl_WorkGroupID.y) * BM;
    j0_ = int(gl_WorkGroupID.x) * BN;
    int tx = tid_ % TX, ty = tid_ / TX;

    vec4 acc[GM][TN];
#if CHUNK > 0
    vec4 tot[GM][TN];
#endif
    for (int g = 0; g < GM; ++g)
        for (int c = 0; c < TN; ++c) {
            acc[g][c] = vec4(0.0);
#if CHUNK > 0
            tot[g][c] = vec4(0.0);
#endif
        }

    vec4 ra[LA], rb[LB];
    int slices = (K_ + BK - 1) / BK;
    // slice 0 into buffer 0
    for (int q = 0; q < LA; ++q) {
        int l = tid_ + q * WG;
        if (l < NA) store_a(l, 0, load_a(l, 0));
    }
    for (int q = 0; q < LB; ++q) {
        int l = tid_ + q * WG;
        if (l < NB) store_b(l, 0, load_b(l, 0));
    }
    barrier();

    for (int s = 0; s < slices; ++s) {
        int cur = s & 1;
        bool more = s + 1 < slices;
        if (more) { // the next slice's texels, in flight during the arithmetic below
            for (int q = 0; q < LA; ++q) {
                int l = tid_ + q * WG;
                ra[q] = l < NA ? load_a(l, (s + 1) * BK) : vec4(0.0);
            }
            for (int q = 0; q < LB; ++q) {
                int l = tid_ + q * WG;
                rb[q] = l < NB ? load_b(l, (s + 1) * BK) : vec4(0.0);
            }
        }
        for (int kk = 0; kk < BK; ++kk) {
            vec4 a[GM], b[GN];
            for (int g = 0; g < GM; ++g) a[g] = As[cur][kk][ty + g * TY];
            for (int h = 0; h < GN; ++h) b[h] = Bs[cur][kk][tx + h * TX];
            for (int g = 0; g < GM; ++g)
                for (int h = 0; h < GN; ++h) {
                    acc[g][4 * h + 0] += a[g] * b[h].x;
                    acc[g][4 * h + 1] += a[g] * b[h].y;
                    acc[g][4 * h + 2] += a[g] * b[h].z;
                    acc[g][4 * h + 3] += a[g] * b[h].w;
                }
        }
#if CHUNK > 0
        if ((s + 1) % (CHUNK / BK) == 0)
            for (int g = 0; g < GM; ++g)
                for (int c = 0; c < TN; ++c) {
                    tot[g][c] += acc[g][c];
                    acc[g][c] = vec4(0.0);
                }
#endif
        if (more) {
            for (int q = 0; q < LA; ++q) {
                int l = tid_ + q * WG;
                if (l < NA) store_a(l, cur ^ 1, ra[q]);
            }
            for (int q = 0; q < LB; ++q) {
                int l = tid_ + q * WG;
                if (l < NB) store_b(l, cur ^ 1, rb[q]);
            }
        }
        barrier();
    }

    int rows_t = (n_ + 3) / 4;
    for (int g = 0; g < GM; ++g) {
        int I = i0_ / 4 + ty + g * TY;
        if (I >= rows_t) continue;
        bvec4 live = lessThan(4 * I + ivec4(0, 1, 2, 3), ivec4(n_));
        for (int h = 0; h < GN; ++h)
            for (int c = 0; c < 4; ++c) {
                int j = j0_ + 4 * (tx + h * TX) + c;
                if (j >= m_) continue;
#if CHUNK > 0
                vec4 v = tot[g][4 * h + c] + acc[g][4 * h + c];
#else
                vec4 v = acc[g][4 * h + c];
#endif
                if (u_i0.w != 0) v += imageLoad(u_dst, ivec2(j, I));
                imageStore(u_dst, ivec2(j, I), mix(vec4(0.0), v, live));
            }
    }
}
