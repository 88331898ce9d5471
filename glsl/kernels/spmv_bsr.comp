// y = A x (+ beta y) for a matrix stored as B x B dense blocks (BSR; B = 2, 3, 4; the 3x3
// blocks of FEM matrices) of real (K = 1) or complex (K = 2) entries. Block rows are in natural
// order; blocks past the matrix's edge are padded with zeros. One invocation per row (the
// seed's BSR design): it reads its row of each block and the B entries of x the block column
// covers. A workgroup covers a segment of WG K / 4 texels of one texel row of y: its
// invocations compute the rows of those texels (K = 1: 4 cells each; K = 2: two complex rows,
// .xy and .zw), meet in shared memory, and the segment's texels are written whole, so y is
// written without blending or atomics whatever B is.
//
// L lanes per row (L > 1, the LANES schedule): lane l takes blocks l, l + L, .. of the row, and
// the lanes are summed with subgroup shuffles (in shared memory where subgroups are missing or
// narrower than L); a workgroup then covers WG / L rows. More invocations, each with a shorter
// chain of loads: FEM rows of ~27 blocks gave the H100 fewer rows than it has invocations.
//
// Variant: K; B; L; FMT 0 block CSR (bptr[block row] .. bptr[block row + 1]), 1 block ELL
// (column-major over block rows, stride NBR, bptr[block row] = its block count), 2 sliced block
// ELL (slices of 32 block rows, column-major within a slice, each slice as wide as its longest
// block row: bptr[block row] its count, bptr[NBR + 1 + slice] the slice's first block); SOA 1: float
// (r, c, part) of a block in plane (r B + c) K + part of NB blocks; WG. The grid: u_i3.x as in
// spmv_row.comp. Uniforms: u_i0 = (texels per row of y, segments per texel row, units, x's nx),
// u_i1 = (y's nx, y's n, NB, NBR), u_i2 = (x's n, 0, beta on), u_f0.x = beta (y = A x + beta y);
// n and nx count floats. Columns: the packed texel and channel of the first float of entry B J
// of x (J the block column); the next entries follow it along x's grid rows, K cells apart.
// FMT 3 (symmetric block ELL, AoS): the blocks on and above the block diagonal as
// FMT 1 (bptr[I] of them), and block row I's blocks below it as the stored blocks they mirror:
// bptr[NBR + 1 + I] places e in ref[] (column-major like the blocks; e's block row is e % NBR,
// its block column I), each read transposed with x of block column e % NBR, and conjugated
// where HERM is 1 (a complex Hermitian matrix; HERM 0: A = A', real or complex).
// XBUF: x by block column (spmv_pack.comp UNPACK 2): the B K floats of block column J in
// vec4s NV J .. NV J + NV - 1 (NV = ceil(B K / 4)), zero past x's end, so a block's x is one or
// two aligned 16-byte loads.
layout(local_size_x = WG) in;
layout(rgba32f, binding = 0) uniform image2D u_dst;
uniform sampler2D u_src0;

#if K == 1
#define VT float
#define VZERO 0.0
#else
#define VT vec2
#define VZERO vec2(0.0)
#endif

layout(std430, binding = 0) readonly buffer Ptr { uint bptr[]; };
layout(std430, binding = 1) readonly buffer Col { uint bcol[]; };
layout(std430, binding = 2) readonly buffer Val { float val[]; };
#if K == 2 && !SOA
// complex entries as whole 8-byte loads
layout(std430, binding = 2) readonly buffer Val2 { vec2 val2[]; };
#endif
#if FMT == 3
layout(std430, binding = 3) readonly buffer Ref { uint ref[]; };
#endif
layout(std430, binding = 5) coherent buffer State {
    uint next;
    uint done;
};
#if XBUF
#define NV ((B * K + 3) / 4)
layout(std430, binding = 7) readonly buffer Xlin { vec4 xlin[]; };
#endif
uniform ivec4 u_i3;

shared VT sh[WG / L];
#if L > 1 && !(defined(TEXLA_SUBGROUP) && L <= TEXLA_SUBGROUP_SIZE)
#define RED_SHARED 1
shared VT sh_red[WG];
#endif
shared uint sh_next;
shared bool sh_last;

VT bval(uint e, uint r, uint c) {
    uint q = r * uint(B) + c;
#if SOA
    uint nb = uint(u_i1.z);
#if K == 1
    return val[q * nb + e];
#else
    return vec2(val[2u * q * nb + e], val[(2u * q + 1u) * nb + e]);
#endif
#else
#if K == 1
    return val[e * uint(B * B) + q];
#else
    return val2[e * uint(B * B) + q];
#endif
#endif
}

#if XBUF
// entry q of a block column's x, from its NV vec4s (xb: the second; zero where NV is 1)
VT x_of(uint q, vec4 xa, vec4 xb) {
#if K == 1
    return xa[q];
#else
    return q < 2u ? (q == 0u ? xa.xy : xa.zw) : (q == 2u ? xb.xy : xb.zw);
#endif
}
#endif

// a x (complex: the complex product)
VT mul(VT a, VT x) {
#if K == 1
    return a * x;
#else
    return texla_cmul(a, x);
#endif
}

// entry (r, q) of block e, or (TR) of its transpose: the stored entry (q, r), conjugated
// where the matrix is Hermitian (FMT 3's mirrored blocks; AoS)
VT entry(uint e, uint r, uint q, bool tr) {
    VT a = tr ? bval(e, q, r) : bval(e, r, q);
#if HERM && K == 2
    if (tr) a.y = -a.y;
#endif
    return a;
}

// row r of block e (or of its transpose) times the B entries of x of block column J, which
// start at float x0 of x's grid row y0
VT block_times(uint e, uint r, bool tr, uint J, uint x0, uint y0, uint nxx, uint nx_n) {
    VT acc = VZERO;
#if XBUF
    uint x4 = J * uint(NV);
    vec4 xa = xlin[x4], xb = NV > 1 ? xlin[x4 + 1u] : vec4(0.0);
    for (uint q = 0u; q < uint(B); ++q) acc += mul(entry(e, r, q, tr), x_of(q, xa, xb));
#else
    for (uint q = 0u; q < uint(B); ++q) {
        bool ok = y0 * nxx + x0 < nx_n;
        VT a = entry(e, r, q, tr);
        ivec2 t = ok ? ivec2(int(x0 >> 1), int(y0 >> 1)) : ivec2(0);
        vec4 tx = texelFetch(u_src0, t, 0);
#if K == 1
        float xv = tx[(x0 & 1u) + 2u * (y0 & 1u)];
#else
        vec2 xv = (y0 & 1u) == 0u ? tx.xy : tx.zw;
#endif
        VT p = mul(a, xv);
        acc += ok ? p : VZERO;
        x0 += uint(K);
        if (x0 >= nxx) {
            x0 -= nxx;
            ++y0;
        }
    }
#endif
    return acc;
}

// row r of block e times the B entries of x its column covers (bcol[e]: their packed texel and
// channel)
VT block_row(uint e, uint r, uint nxx, uint nx_n) {
    uint c = bcol[e];
    uint x0 = 2u * (c & 0x7FFFu) + ((c >> 30) & 1u);
    uint y0 = 2u * ((c >> 15) & 0x7FFFu) + (c >> 31);
    uint J = XBUF != 0 ? (y0 * nxx + x0) / uint(B * K) : 0u;
    return block_times(e, r, false, J, x0, y0, nxx, nx_n);
}

#if FMT == 3
// row r of the transpose of stored block e (block row J = e % NBR) times x of block column J
VT block_col(uint e, uint r, uint nxx, uint nx_n) {
    uint J = e % uint(u_i1.w), f = XBUF != 0 ? 0u : J * uint(B * K), y0 = f / nxx;
    return block_times(e, r, true, J, f - y0 * nxx, y0, nxx, nx_n);
}
#endif

// the sum over the L lanes of a row, valid in its lane 0
VT lanes_sum(VT v, uint lid, uint lane) {
#if L == 1
    return v;
#elif !defined(RED_SHARED)
    for (uint o = uint(L) / 2u; o > 0u; o >>= 1u) v += subgroupShuffleXor(v, o);
    return v;
#else
    sh_red[lid] = v;
    barrier();
    for (uint s = uint(L) / 2u; s > 0u; s >>= 1u) {
        if (lane < s) sh_red[lid] += sh_red[lid + s];
        barrier();
    }
    return sh_red[lid];
#endif
}

void unit(uint u, uint lid) {
    uint R = uint(WG / L); /* rows of the workgroup */
    uint S = R * uint(K) / 4u, spr = uint(u_i0.y);
    uint ty = u / spr, a0 = (u - ty * spr) * S;
    uint per = R / 2u; /* rows of one grid row in the segment */
    uint rs = lid / uint(L), lane = lid % uint(L);
    uint m = rs % per, h = rs / per;
#if SOA && L == 1
    // blocks in planes: the invocations of a run take its rows by their row within the block
    // (all rows m = o, o + B, .. of the run, o = 0 .. B - 1, then the next o), so in block ELL
    // and sliced block ELL neighbouring invocations read neighbouring blocks of one plane,
    // whole lines, instead of B planes at a time (m + 1 is the next row of the same block:
    // another plane; block CSR's block rows start apart anyway)
    for (uint o = 0u, j = m;; ++o) {
        uint n_o = (per - o + uint(B) - 1u) / uint(B);
        if (j < n_o || o + 1u == uint(B)) {
            m = o + uint(B) * j;
            break;
        }
        j -= n_o;
    }
    rs = h * per + m;
#endif
    uint cx = 2u * a0 + m * uint(K), cy = 2u * ty + h;
    uint nxy = uint(u_i1.x), nxx = uint(u_i0.w), nx_n = uint(u_i2.x);
    VT acc = VZERO;
    if (cx < nxy) {
        uint k = (cy * nxy + cx) / uint(K);
        if (k * uint(K) < uint(u_i1.y)) {
            uint I = k / uint(B), r = k - I * uint(B);
#if FMT == 0
            uint e0 = bptr[I], n = bptr[I + 1u] - e0, st = 1u;
#elif FMT == 1 || FMT == 3
            uint e0 = I, n = bptr[I], st = uint(u_i1.w);
#else // sliced: slice I / 32 starts at bptr[NBR + 1 + I / 32]
            uint e0 = bptr[uint(u_i1.w) + 1u + (I >> 5)] + (I & 31u), n = bptr[I], st = 32u;
#endif
            // four blocks an iteration: straight-line code whose loads the compiler issues
            // together (one block an iteration waits for the memory each time)
            uint j = lane, d = uint(L) * st;
            VT acc2 = VZERO;
            for (; j + 3u * uint(L) < n; j += 4u * uint(L)) {
                uint e = e0 + j * st;
                acc += block_row(e, r, nxx, nx_n) + block_row(e + 2u * d, r, nxx, nx_n);
                acc2 += block_row(e + d, r, nxx, nx_n) + block_row(e + 3u * d, r, nxx, nx_n);
            }
            for (; j < n; j += uint(L)) acc += block_row(e0 + j * st, r, nxx, nx_n);
#if FMT == 3
            // the blocks below the diagonal, two an iteration
            uint nl = bptr[st + 1u + I];
            for (j = lane; j + uint(L) < nl; j += 2u * uint(L))
                acc2 += block_col(ref[j * st + I], r, nxx, nx_n) +
                        block_col(ref[(j + uint(L)) * st + I], r, nxx, nx_n);
            if (j < nl) acc2 += block_col(ref[j * st + I], r, nxx, nx_n);
#endif
            acc += acc2;
        }
    }
    acc = lanes_sum(acc, lid, lane);
    if (lane == 0u) sh[rs] = acc;
    barrier();
    if (lid < S && a0 + lid < uint(u_i0.x)) {
#if K == 1
        uint b = 2u * lid;
        vec4 t = vec4(sh[b], sh[b + 1u], sh[2u * S + b], sh[2u * S + b + 1u]);
#else
        vec4 t = vec4(sh[lid], sh[per + lid]);
#endif
        ivec2 pos = ivec2(int(a0 + lid), int(ty));
        if (u_i2.z != 0) t += u_f0.x * imageLoad(u_dst, pos);
        imageStore(u_dst, pos, t);
    }
    barrier();
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint nwg = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    uint wgid = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    uint total = uint(u_i0.z);
    // one call site for every grid (a smaller program: llvmpipe compiles barriers slowly); the
    // barriers inline (llvmpipe mis-ran them inside a function called from a ?: here)
    int dist = u_i3.x;
    for (uint u = wgid;; u += nwg) {
        if (dist == 2) { // the next unit from the atomic counter, the same for the workgroup
            if (lid == 0u) sh_next = atomicAdd(next, 1u);
            barrier();
            u = sh_next;
            barrier();
        }
        if (u >= total) break;
        unit(u, lid);
        if (dist == 0) break;
    }
    if (dist == 2) { // the last workgroup to finish leaves the counters at zero
        memoryBarrier();
        barrier();
        if (lid == 0u) sh_last = atomicAdd(done, 1u) == nwg - 1u;
        barrier();
        if (sh_last && lid == 0u) {
            next = 0u;
            done = 0u;
        }
    }
}
