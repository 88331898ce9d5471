// Projected Jacobi steps of a matrix-free LCP with the product inside (texla_op_lcp_step): for
// a sparse A, or A = L R with L and R sparse, real entries, each matrix as CSR in natural row
// order (storage/splcp.c). Two modes (compiled each):
//
// MODE 0: mid = R x, the first half of a product: L lanes per row of R, x read from u_src0
//   (texla's RGBA32F vector texture) at each column's precomputed texel and channel, the row's
//   sum stored in mid[row] (a storage buffer: the intermediate vector never becomes a texture).
//   u_i0.x = R's rows.
// MODE 1: dst = project(x + (A x + b) .* e) over the texels of dst, its 4 elements each; the
//   rows of A (or of L) summed by L lanes each, their input x at packed columns (MID 0) or the
//   element of mid a packed column names (MID 1: A = L R, mid from MODE 0). A friction row i (0 <= index[i] = j < n)
//   also sums its normal row j, so it can clamp to [-mu_i n_j, mu_i n_j] with
//   n_j = max(0, x_j + (w_j + b_j) e_j) as texla_vec_lcp_step does, without reading what this
//   pass writes; other rows max(0, v_i). Padding lanes are written 0.
//   u_src0..4 = x, b, e, index, mu (BOUNDED); u_i0 = (n, nx (the vectors' logical row width),
//   dst's texels per row, dst's texels), u_i1.x = L's column layout's row width (MID), dst at
//   image unit 0.
// Each element's sum is its lanes' terms in a fixed order: the same result run to run.
layout(local_size_x = WG) in;
layout(rgba32f, binding = 0) uniform writeonly image2D u_dst;
uniform sampler2D u_src0;
uniform sampler2D u_src1;
uniform sampler2D u_src2;
uniform sampler2D u_src3;
uniform sampler2D u_src4;

layout(std430, binding = 0) readonly buffer Ptr { uint ptr[]; };
layout(std430, binding = 1) readonly buffer Col { uint col[]; };
layout(std430, binding = 2) readonly buffer Val { float val[]; };
#if MODE == 0
layout(std430, binding = 3) writeonly buffer Mid { float mid[]; };
#elif MID
layout(std430, binding = 3) readonly buffer Mid { float mid[]; };
#endif

#if !(defined(TEXLA_SUBGROUP) && L <= TEXLA_SUBGROUP_SIZE) && L > 1
shared float sh_red[WG];
#endif
#if MODE == 1
shared float sh_out[WG / L];
#endif

// the input at a stored column (its packed texel and channel): x's, or the element of mid
// that sits there in L's column layout (u_i1.x its row width)
float xin(uint c) {
#if MODE == 1 && MID
    uint cx = 2u * (c & 0x7FFFu) + ((c >> 30) & 1u), cy = 2u * ((c >> 15) & 0x7FFFu) + (c >> 31);
    return mid[cy * uint(u_i1.x) + cx];
#else
    ivec2 t = ivec2(int(c & 0x7FFFu), int((c >> 15) & 0x7FFFu));
    return texelFetch(u_src0, t, 0)[c >> 30];
#endif
}

// the L lanes' terms of a row; r >= rows (or an invalid row) sums nothing
float row_terms(uint r, uint lane, bool ok) {
    float acc = 0.0;
    if (ok) {
        uint e1 = ptr[r + 1u];
        for (uint e = ptr[r] + lane; e < e1; e += uint(L)) acc += val[e] * xin(col[e]);
    }
    return acc;
}

// the sum over the L lanes of a row, valid in lane 0 (every invocation calls it: barriers)
float lanes_sum(float v, uint lid, uint lane) {
#if L == 1
    return v;
#elif defined(TEXLA_SUBGROUP) && L <= TEXLA_SUBGROUP_SIZE
    for (uint o = uint(L) / 2u; o > 0u; o >>= 1u) v += subgroupShuffleXor(v, o);
    return v;
#else
    sh_red[lid] = v;
    barrier();
    for (uint s = uint(L) / 2u; s > 0u; s >>= 1u) {
        if (lane < s) sh_red[lid] += sh_red[lid + s];
        barrier();
    }
    float r = sh_red[lid];
    barrier();
    return r;
#endif
}

#if MODE == 1
float at(sampler2D s, int k, int nx) {
    ivec3 l = texla_vec_locate(k, nx);
    return texelFetch(s, l.xy, 0)[l.z];
}
#endif

void main() {
    uint lid = gl_LocalInvocationID.x, lane = lid % uint(L);
    uint wgid = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
#if MODE == 0
    uint r = wgid * uint(WG / L) + lid / uint(L);
    bool ok = r < uint(u_i0.x);
    float s = lanes_sum(row_terms(r, lane, ok), lid, lane);
    if (ok && lane == 0u) mid[r] = s;
#else
    int n = u_i0.x, nx = u_i0.y, tw = u_i0.z;
    uint slot = lid / uint(L);           // an element of a texel: 4 slots a texel
    uint t = wgid * uint(WG / L / 4) + slot / 4u, c = slot % 4u;
    ivec2 tp = ivec2(int(t % uint(tw)), int(t / uint(tw)));
    int cx = 2 * tp.x + int(c & 1u), cy = 2 * tp.y + int(c >> 1);
    int k = cy * nx + cx;
    bool live = t < uint(u_i0.w) && cx < nx && k < n;
    int j = -1;
#if BOUNDED
    if (live) {
        int q = int(texelFetch(u_src3, tp, 0)[c]);
        if (q >= 0 && q < n) j = q;
    }
#endif
    float w = lanes_sum(row_terms(uint(k), lane, live), lid, lane);
#if BOUNDED
    float wj = lanes_sum(row_terms(uint(j), lane, j >= 0), lid, lane);
#endif
    if (lane == 0u) {
        float o = 0.0;
        if (live) {
            float v = texelFetch(u_src0, tp, 0)[c] +
                      (w + texelFetch(u_src1, tp, 0)[c]) * texelFetch(u_src2, tp, 0)[c];
            o = max(v, 0.0);
#if BOUNDED
            if (j >= 0) {
                float nj = max(at(u_src0, j, nx) + (wj + at(u_src1, j, nx)) * at(u_src2, j, nx),
                               0.0);
                float m = texelFetch(u_src4, tp, 0)[c];
                o = clamp(v, -m * nj, m * nj);
            }
#endif
        }
        sh_out[slot] = o;
    }
    barrier();
    if (lid % uint(4 * L) == 0u && t < uint(u_i0.w)) {
        uint b = slot;
        imageStore(u_dst, tp, vec4(sh_out[b], sh_out[b + 1u], sh_out[b + 2u], sh_out[b + 3u]));
    }
#endif
}
