// y = A x (+ beta y) for the row formats of the sparse engine: CSR, ELLPACK-R and SELL-C-sigma,
// with real, complex or quaternion entries, and long rows split into chunks (the hybrid form).
//
// Rows are stored in texel order: storage row p belongs to output group p / G, and the G rows
// of a group fill whole texels of y (K = 1: the 4 rows of one texel; K = 2: two complex rows,
// .xy and .zw of one texel; K = 4: two quaternion rows, the .xy / .zw halves of a texel pair),
// so y is written whole texels at a time with imageStore: no blending, no atomics, the same
// result run to run. SELL sorts groups within windows; perm[sorted group] is the group's place.
//
// Variant (defines, compiled each): K entry floats (1, 2, 4); G rows per group (4 / K, 2 for
// K = 4); FMT 0 CSR, 1 ELL (column-major, stride RS), 2 SELL (slices of 2^u_i2.w rows); MODE 0
// L lanes per row (L = 1: one invocation per row; reduced with subgroup shuffles or in shared
// memory), MODE 1 one invocation per group (ELL/SELL: 16-byte loads of a group's entries), MODE 2
// CSR streamed in row blocks (below); WG invocations per workgroup; SOA 1: entry components in
// planes of NE floats.
// MODE 2 (CSR-stream): the host cut the groups into blocks of at most TB entries and RB rows
// (lens[2b], lens[2b + 1] = the block's first group and first entry; a group of more than TB
// entries is a block of its own).
// The workgroup loads the block's entries with consecutive invocations on consecutive entries,
// four loads in flight each, and keeps the products a x in shared memory; then each row is
// summed from there by Ld invocations (the largest power of two, at most 32, that gives every
// row of the block its lanes), and the groups' texels are written whole. A group too long for a
// block has each of its rows summed by the whole workgroup, straight from the buffers.
// Switches (uniform branches, outside the inner loops, so one program serves them all):
// u_i3.x the grid: 0 one workgroup per unit, 1 a fixed grid striding over the units, 2 a fixed
// grid taking units from an atomic counter; u_i3.z: 1 groups are written at perm[g] (SELL
// sorting), 2 (MODE 0, SELL rowsort) storage row p is row perm[p] of the same unit (rows sorted
// within each workgroup's WG), put back in place through shared memory; u_i3.w: ELL rows stop
// at their own length; u_i2.z: y = A x + u_f0.x y.
// LONG 1 (a define: its workgroup reductions are costly to compile where they are not used):
// the first u_i0.w units are chunks of long rows, each summed by one workgroup into part[];
// with LONGPASS 2 the last of an affected group's parties adds its long rows into its texels
// (below), with LONGPASS 1 a pass of its own does (MODE 3, after the main pass: a subgroup adds
// one group's chunks where subgroups are, else one invocation).
// Padding entries (ELL, SELL) have column PAD and contribute exactly 0 (NaN in x stays out).
// CPW 2 (cols16; ELL, SELL, K = 1, MODE 0 or 1): col[] holds 16-bit column offsets from the
// entry's row, steps 2j and 2j + 1 of a row in the low and high halves of one word (ELL: word
// j * RS + p; SELL: slice s's words from ptr[slices + 1 + s], C a step pair); 0x8000 is padding.
// CPW 4 (cols8): 8-bit offsets, steps 4j .. 4j + 3 in a word's bytes, low first; 0x80 padding.
// CSR (FMT 0, MODE 0) with CPW: entry e's offset in part e % CPW of word e / CPW (no padding),
// so a row's lanes read neighbouring parts of the same words. BASED 1 (CSR): the offsets are
// from a column of the row's own, ptr[RS + 1 + p] for storage row p, not from the row (rows
// far from the diagonal whose columns lie close together).
// VEC 1 (CSR, K = 1, MODE 0): a row's lanes take aligned chunks of four entries, each one
// 16-byte load of values (and 16, 8 or 4 bytes of columns for CPW 0, 2, 4); the chunk's entries
// outside the row are dropped (the buffers are whole chunks long). On NVIDIA's GL 4-byte loads
// stream far slower than 16-byte ones (H200: a row's 128 entries by 8 lanes 100 -> 89 us).
// x is in element order in xlin, and a row's own index comes from its group's texel (u_i2.x =
// y's rows' width nx: the 4 rows of a texel are i, i + 1, i + nx, i + nx + 1). CPW 0: columns
// are packed texels (xat).
//
// Uniforms: u_i0 = (groups, units, texels (K = 4: texel pairs) per row of y, chunks),
// u_i1 = (RS storage rows, ELL width, NE, affected groups), u_i2 = (long-row table offset,
// affected-group table offset, beta on, log2 of the SELL slice), u_i3 as above, u_f0.x = beta. x is u_src0 (texla's RGBA32F vector texture, read with
// texelFetch at each column's precomputed texel and channel), y the image at unit 0.
layout(local_size_x = WG) in;
layout(rgba32f, binding = 0) uniform coherent image2D u_dst;
#ifndef BASED
#define BASED 0
#endif
uniform sampler2D u_src0;

#if K == 1
#define VT float
#define VZERO 0.0
#elif K == 2
#define VT vec2
#define VZERO vec2(0.0)
#else
#define VT vec4
#define VZERO vec4(0.0)
#endif
#define PAD 0xFFFFFFFFu

layout(std430, binding = 0) readonly buffer Ptr { uint ptr[]; };
layout(std430, binding = 1) readonly buffer Col { uint col[]; };
#ifndef VEC
#define VEC 0
#endif
#if (MODE == 1 && K == 1) || (VEC && CPW == 0)
layout(std430, binding = 1) readonly buffer Col4 { uvec4 col4[]; };
#elif MODE == 1 || (VEC && CPW == 2)
layout(std430, binding = 1) readonly buffer Col2 { uvec2 col2[]; };
#endif
#if SOA
layout(std430, binding = 2) readonly buffer Val { float valf[]; };
#else
layout(std430, binding = 2) readonly buffer Val { VT val[]; };
#if (MODE == 1 && K < 4) || VEC
layout(std430, binding = 2) readonly buffer Val4 { vec4 val4[]; };
#endif
#endif
layout(std430, binding = 3) readonly buffer Lens { uint lens[]; }; // MODE 2: the blocks
layout(std430, binding = 4) readonly buffer Perm { uint perm[]; };
layout(std430, binding = 5) coherent buffer State {
    uint next;
    uint done;
    uint pad0, pad1;
    float part[];
};
layout(std430, binding = 6) readonly buffer Long { uint lt[]; };
#if LONG && LONGPASS == 2
// the same buffer as State, as words: SU(i) is part[i] (the counters live past the sums)
layout(std430, binding = 5) coherent buffer StateU { uint su[]; };
#define SU(i) su[4u + (i)]
#endif
#if XBUF
// XBUF: x's texels copied into a buffer (u_i3.y texels per row of x's texture)
layout(std430, binding = 7) readonly buffer Xlin { float xlin[]; };
#endif
uniform ivec4 u_i3;

shared VT sh_red[WG];
#if MODE == 0
shared VT sh_row[WG / L];
#elif MODE == 2
shared VT sh_prod[TB]; // the block's products
shared VT sh_rv[RB];   // its rows' sums
#endif
shared uint sh_next;
shared bool sh_last;

VT entry(uint e) {
#if SOA
    uint ne = uint(u_i1.z);
#if K == 1
    return valf[e];
#elif K == 2
    return vec2(valf[e], valf[ne + e]);
#else
    return vec4(valf[e], valf[ne + e], valf[2u * ne + e], valf[3u * ne + e]);
#endif
#else
    return val[e];
#endif
}

// a x, the entry on the left (complex product; Hamilton product of quaternions (w, x, y, z))
VT emul(VT a, VT x) {
#if K == 1
    return a * x;
#elif K == 2
    return texla_cmul(a, x);
#else
    return texla_qmul(a, x);
#endif
}

// x at a packed column: texel (c & 0x7fff, (c >> 15) & 0x7fff), channel c >> 30
VT xat(uint c) {
    uint ch = c >> 30;
#if XBUF
    uint i = (((c >> 15) & 0x7FFFu) * uint(u_i3.y) + (c & 0x7FFFu)) * 4u;
#if K == 1
    return xlin[i + ch];
#elif K == 2 // channel 0 or 2
    return vec2(xlin[i + ch], xlin[i + ch + 1u]);
#else // the .xy or .zw halves of a texel pair
    i += ch == 0u ? 0u : 2u;
    return vec4(xlin[i], xlin[i + 1u], xlin[i + 4u], xlin[i + 5u]);
#endif
#endif
    ivec2 t = ivec2(int(c & 0x7FFFu), int((c >> 15) & 0x7FFFu));
#if K == 1
    return texelFetch(u_src0, t, 0)[ch];
#elif K == 2
    vec4 v = texelFetch(u_src0, t, 0);
    return ch == 0u ? v.xy : v.zw;
#else
    vec4 a = texelFetch(u_src0, t, 0), b = texelFetch(u_src0, t + ivec2(1, 0), 0);
    return ch == 0u ? vec4(a.xy, b.xy) : vec4(a.zw, b.zw);
#endif
}

// entry value a times x at column c; exactly 0 for a padding entry
VT term(uint c, VT a) {
    bool ok = c != PAD;
    VT p = emul(a, xat(ok ? c : 0u));
    return ok ? p : VZERO;
}

// where storage row p's entries are: e0 + j * stride for j < n
void row_span(uint p, out uint e0, out uint n, out uint stride) {
#if FMT == 0
    e0 = ptr[p];
    n = ptr[p + 1u] - e0;
    stride = 1u;
#elif FMT == 1
    e0 = p;
    stride = uint(u_i1.x);
    n = u_i3.w != 0 ? lens[p] : uint(u_i1.y);
#else
    uint sh = uint(u_i2.w), s = p >> sh, base = ptr[s];
    e0 = base + (p & ((1u << sh) - 1u));
    n = (ptr[s + 1u] - base) >> sh;
    stride = 1u << sh;
#endif
}

uint out_group(uint g) {
    return u_i3.z == 1 ? perm[g] : g;
}

#if CPW
// the row of storage row p, in y's element order
int nat_row(uint p) {
    uint g = out_group(p >> 2u), w = uint(u_i0.z), c = p & 3u;
    return int((2u * (g / w) + (c >> 1u)) * uint(u_i2.x) + 2u * (g % w) + (c & 1u));
}

// the column a CSR row's offsets are from (storage row p, its row po after rowsort): the row's
// own index, or (BASED) its reference column ptr[RS + 1 + p]
int csr_ref(uint p, uint po) {
#if BASED
    return int(ptr[uint(u_i1.x) + 1u + p]);
#else
    return nat_row(po);
#endif
}

// a column's bits: 16 (CPW 2) or 8 (CPW 4)
#define CBITS (32u / uint(CPW))

// entry value a times x at the offset in h's low CBITS bits from row; exactly 0 for padding
// (the code 0x8000 / 0x80, no offset)
float termc(uint h, int row, float a) {
    bool ok = (h & ((1u << CBITS) - 1u)) != (1u << (CBITS - 1u));
    int c = row + (int(h << (32u - CBITS)) >> int(32u - CBITS));
    float p = a * xlin[ok ? uint(c) : 0u];
    return ok ? p : 0.0;
}

// where storage row p's column words are: w0 + j * stride for word j (steps CPW j ..)
void row_words(uint p, out uint w0, out uint stride) {
#if FMT == 1
    w0 = p;
    stride = uint(u_i1.x);
#else
    uint sh = uint(u_i2.w);
    w0 = ptr[(uint(u_i1.x) >> sh) + 1u + (p >> sh)] + (p & ((1u << sh) - 1u));
    stride = 1u << sh;
#endif
}
#endif

#if LONG && LONGPASS == 2
void long_arrive_group(uint g);
#endif

// writes the G rows of group g (after the permutation) as whole texels
void store_group(uint g, VT r0, VT r1, VT r2, VT r3) {
    uint w = uint(u_i0.z);
#if K == 4
    ivec2 pos = ivec2(int(2u * (g % w)), int(g / w));
    vec4 t0 = vec4(r0.xy, r1.xy), t1 = vec4(r0.zw, r1.zw);
    if (u_i2.z != 0) {
        t0 += u_f0.x * imageLoad(u_dst, pos);
        t1 += u_f0.x * imageLoad(u_dst, pos + ivec2(1, 0));
    }
    imageStore(u_dst, pos, t0);
    imageStore(u_dst, pos + ivec2(1, 0), t1);
#else
    ivec2 pos = ivec2(int(g % w), int(g / w));
#if K == 1
    vec4 t = vec4(r0, r1, r2, r3);
#else
    vec4 t = vec4(r0, r1);
#endif
    if (u_i2.z != 0) t += u_f0.x * imageLoad(u_dst, pos);
    imageStore(u_dst, pos, t);
#endif
#if LONG && LONGPASS == 2
    long_arrive_group(g);
#endif
}

// the sum over the workgroup, valid in invocation 0
VT wg_sum(VT v, uint lid) {
#if defined(TEXLA_SUBGROUP)
    v = subgroupAdd(v);
    if (subgroupElect()) sh_red[gl_SubgroupID] = v;
    barrier();
    if (lid == 0u)
        for (uint i = 1u; i < gl_NumSubgroups; ++i) v += sh_red[i];
    barrier();
    return v;
#else
    sh_red[lid] = v;
    barrier();
    for (uint s = uint(WG) / 2u; s > 0u; s >>= 1u) {
        if (lid < s) sh_red[lid] += sh_red[lid + s];
        barrier();
    }
    VT r = sh_red[0];
    barrier();
    return r;
#endif
}

#if LONG || MODE == 2
// this invocation's part of entries s .. s + n - 1 summed by the workgroup: four loads of each
// kind in flight before their products are taken (a loop of one load at a time waits for the
// memory once per iteration; plain variables, not arrays, which a compiler may put in memory)
VT span_part(uint s, uint n, uint lid) {
    VT a = VZERO, b = VZERO;
    uint W = uint(WG), j = lid;
    for (; j + 3u * W < n; j += 4u * W) {
        uint e = s + j;
        uint c0 = col[e], c1 = col[e + W], c2 = col[e + 2u * W], c3 = col[e + 3u * W];
        VT v0 = entry(e), v1 = entry(e + W), v2 = entry(e + 2u * W), v3 = entry(e + 3u * W);
        a += term(c0, v0) + term(c2, v2);
        b += term(c1, v1) + term(c3, v3);
    }
    for (; j < n; j += W) a += term(col[s + j], entry(s + j));
    return a + b;
}
#endif

#if LONG
// one chunk of a long row: its entries summed by the whole workgroup into part[c]
void row_finish(uint c, uint lid);

void unit_chunk(uint c, uint lid) {
    uint s = lt[2u * c], n = lt[2u * c + 1u];
    VT acc = wg_sum(span_part(s, n, lid), lid);
    if (lid == 0u) {
#if K == 1
        part[c] = acc;
#else
        for (uint i = 0u; i < uint(K); ++i) part[c * uint(K) + i] = acc[i];
#endif
    }
#if LONGPASS == 2
    row_finish(c, lid);
#endif
}

VT part_at(uint c) {
#if K == 1
    return part[c];
#elif K == 2
    return vec2(part[2u * c], part[2u * c + 1u]);
#else
    return vec4(part[4u * c], part[4u * c + 1u], part[4u * c + 2u], part[4u * c + 3u]);
#endif
}

// the long rows' sums add[] into group g's texels
void long_texels(uint g, VT add[4]) {
    uint w = uint(u_i0.z);
#if K == 4
    ivec2 pos = ivec2(int(2u * (g % w)), int(g / w));
    imageStore(u_dst, pos, imageLoad(u_dst, pos) + vec4(add[0].xy, add[1].xy));
    pos.x += 1;
    imageStore(u_dst, pos, imageLoad(u_dst, pos) + vec4(add[0].zw, add[1].zw));
#else
    ivec2 pos = ivec2(int(g % w), int(g / w));
#if K == 1
    vec4 t = vec4(add[0], add[1], add[2], add[3]);
#else
    vec4 t = vec4(add[0], add[1]);
#endif
    imageStore(u_dst, pos, imageLoad(u_dst, pos) + t);
#endif
}

#if defined(TEXLA_SUBGROUP)
#if WG % TEXLA_SUBGROUP_SIZE == 0
#define SG_FULL 1 // every subgroup full: its lanes cover gl_SubgroupSize chunks a step
#endif
#endif

// affected group a: its long rows (their chunks in order) added into its texels, by a subgroup
// (SG_FULL: its lanes take every S-th chunk of a row, summed with subgroupAdd; H100, circuit:
// one invocation summing the 204 chunks of a row one after another kept the whole product
// waiting ~20 us), else by one invocation (lane 0 of 1)
void finish_group(uint a, uint lane, uint S) {
    uint lr = uint(u_i2.x), ag = uint(u_i2.y);
    uint g = lt[ag + 2u * a], f = lt[ag + 2u * a + 1u], fe = lt[ag + 2u * a + 3u];
    VT add[4] = VT[4](VZERO, VZERO, VZERO, VZERO);
    for (uint i = f; i < fe; ++i) {
        uint c = lt[lr + 3u * i], c0 = lt[lr + 3u * i + 1u], cn = lt[lr + 3u * i + 2u];
        VT s = VZERO;
        for (uint q = lane; q < cn; q += S) s += part_at(c0 + q);
#ifdef SG_FULL
        s = subgroupAdd(s);
#endif
        add[c] += s;
    }
    if (lane == 0u) long_texels(g, add);
}

#if LONGPASS == 2
// LONGPASS 2: no pass and no wait. The workgroup that sums a long row's last chunk (the last to
// count itself on the row's counter) sums the row's chunks into its total; the last of an
// affected group's parties (its long rows' totals and the main pass's write of its texels)
// adds the totals into the texels. Every sum in a fixed order, whoever comes last: the same
// result run to run. Past the affected groups in lt: chunk -> long row, long row -> affected
// group, a bit per group of y (affected or not); in State past part[]: the rows' totals, then
// a counter per long row and per affected group (each left at zero by the one that finishes).
uint n_long() { return (uint(u_i2.y) - uint(u_i2.x)) / 3u; }
uint lt_cl() { return uint(u_i2.y) + 2u * (uint(u_i1.w) + 1u); }
uint lt_la() { return lt_cl() + uint(u_i0.w); }
uint lt_bm() { return lt_la() + n_long(); }
uint at_rowtot(uint lr) { return uint(K) * (uint(u_i0.w) + lr); }
uint at_rowcnt(uint lr) { return uint(K) * (uint(u_i0.w) + n_long()) + lr; }
uint at_grpcnt(uint a) { return at_rowcnt(n_long()) + a; }

VT rowtot(uint lr) { return part_at(uint(u_i0.w) + lr); }

// the last party of affected group a: its long rows' totals into its texels
void group_finish(uint a) {
    uint ag = uint(u_i2.y), lr0 = lt[ag + 2u * a + 1u], lr1 = lt[ag + 2u * a + 3u];
    VT add[4] = VT[4](VZERO, VZERO, VZERO, VZERO);
    for (uint lr = lr0; lr < lr1; ++lr) add[lt[uint(u_i2.x) + 3u * lr]] += rowtot(lr);
    long_texels(lt[ag + 2u * a], add);
    SU(at_grpcnt(a)) = 0u;
}

// one party of affected group a is done, its writes made visible: the last one finishes
void group_arrive(uint a) {
    uint ag = uint(u_i2.y), nl = lt[ag + 2u * a + 3u] - lt[ag + 2u * a + 1u];
    if (atomicAdd(SU(at_grpcnt(a)), 1u) == nl) {
        memoryBarrier();
        group_finish(a);
    }
}

// the main pass wrote group g's texels: a party of its affected group, if it is one
void long_arrive_group(uint g) {
    if (((lt[lt_bm() + (g >> 5u)] >> (g & 31u)) & 1u) == 0u) return;
    uint ag = uint(u_i2.y), lo = 0u, hi = uint(u_i1.w) - 1u;
    while (lo < hi) { // the affected groups are in increasing order
        uint mid = (lo + hi) >> 1u;
        if (lt[ag + 2u * mid] < g) lo = mid + 1u;
        else hi = mid;
    }
    memoryBarrier();
    group_arrive(lo);
}

// chunk c's sum is in part[c] (invocation 0 wrote it): the last chunk of its row to count
// itself sums the row's chunks (the whole workgroup, in a fixed order) into the row's total
void row_finish(uint c, uint lid) {
    uint lr = lt[lt_cl() + c], lro = uint(u_i2.x);
    uint c0 = lt[lro + 3u * lr + 1u], cn = lt[lro + 3u * lr + 2u];
    if (lid == 0u) {
        memoryBarrier();
        sh_last = atomicAdd(SU(at_rowcnt(lr)), 1u) == cn - 1u;
    }
    barrier();
    bool last = sh_last;
    barrier();
    if (!last) return;
    memoryBarrier();
    VT acc = VZERO;
    for (uint q = lid; q < cn; q += uint(WG)) acc += part_at(c0 + q);
    acc = wg_sum(acc, lid);
    if (lid == 0u) {
        uint o = at_rowtot(lr);
#if K == 1
        part[o] = acc;
#else
        for (uint i = 0u; i < uint(K); ++i) part[o + i] = acc[i];
#endif
        SU(at_rowcnt(lr)) = 0u;
        memoryBarrier();
        group_arrive(lt[lt_la() + lr]);
    }
}
#endif
#endif

#if MODE == 0 && VEC
// VEC (CSR, real entries): chunk q, entries 4q .. 4q + 3 read with one 16-byte load of values
// (and of columns: CPW 0 16 bytes, CPW 2 8, CPW 4 4), its terms summed where the entries are
// the row's, [e0, e0 + n), and h; an entry outside reads x at a padding column and adds 0
float chunk_terms(uint q, uint e0, uint n, bool h, int row) {
    vec4 v = val4[q];
    uint d = 4u * q - e0; // entry 4q's step in the row (wrapped below e0)
    bool k0 = h && d < n, k1 = h && d + 1u < n, k2 = h && d + 2u < n, k3 = h && d + 3u < n;
#if CPW == 4
    uint w = col[q];
    return (termc(k0 ? w : 0x80u, row, v.x) + termc(k1 ? w >> 8u : 0x80u, row, v.y)) +
           (termc(k2 ? w >> 16u : 0x80u, row, v.z) + termc(k3 ? w >> 24u : 0x80u, row, v.w));
#elif CPW == 2
    uvec2 w = col2[q];
    return (termc(k0 ? w.x : 0x8000u, row, v.x) + termc(k1 ? w.x >> 16u : 0x8000u, row, v.y)) +
           (termc(k2 ? w.y : 0x8000u, row, v.z) + termc(k3 ? w.y >> 16u : 0x8000u, row, v.w));
#else
    uvec4 c = col4[q];
    return (term(k0 ? c.x : PAD, v.x) + term(k1 ? c.y : PAD, v.y)) +
           (term(k2 ? c.z : PAD, v.z) + term(k3 ? c.w : PAD, v.w));
#endif
}
#endif

#if MODE == 0
// the sum over the L lanes of a row, valid in lane 0
VT lanes_sum(VT v, uint lid, uint lane) {
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
    return sh_red[lid];
#endif
}

// WG / L rows: L lanes each, then the groups' texels from shared memory
void unit_rows(uint u, uint lid) {
    uint r = lid / uint(L), lane = lid % uint(L);
    uint p = u * uint(WG / L) + r;
    VT acc = VZERO;
    bool live = p < uint(u_i0.x) * uint(G);
    // rowsort: the row's own storage row, in the unit's rows (padding rows keep theirs)
    uint po = u_i3.z == 2 && live ? perm[p] : p;
    if (live) {
        uint e0, n, st;
        row_span(p, e0, n, st);
#if CPW == 4 && FMT != 0
        // a word of columns (four steps) an iteration, then the last word's steps
        uint w0, wst, nw = n >> 2u, q = 0u;
        row_words(p, w0, wst);
        int row = nat_row(po);
        float acc2 = 0.0;
        for (; q < nw; ++q) {
            uint h = col[w0 + q * wst], e = e0 + 4u * q * st;
            acc += termc(h, row, entry(e)) + termc(h >> 16u, row, entry(e + 2u * st));
            acc2 += termc(h >> 8u, row, entry(e + st)) + termc(h >> 24u, row, entry(e + 3u * st));
        }
        if ((n & 3u) != 0u) {
            uint h = col[w0 + nw * wst], e = e0 + 4u * nw * st;
            for (uint t = 0u; t < (n & 3u); ++t) acc += termc(h >> (8u * t), row, entry(e + t * st));
        }
        acc += acc2;
#elif CPW == 2 && FMT != 0
        // two step pairs (a word of columns each) an iteration, then the odd step
        uint w0, wst, np = n >> 1u, q = 0u;
        row_words(p, w0, wst);
        int row = nat_row(po);
        float acc2 = 0.0;
        for (; q + 1u < np; q += 2u) {
            uint h0 = col[w0 + q * wst], h1 = col[w0 + (q + 1u) * wst], e = e0 + 2u * q * st;
            acc += termc(h0, row, entry(e)) + termc(h1, row, entry(e + 2u * st));
            acc2 += termc(h0 >> 16u, row, entry(e + st)) + termc(h1 >> 16u, row, entry(e + 3u * st));
        }
        for (; q < np; ++q) {
            uint h = col[w0 + q * wst], e = e0 + 2u * q * st;
            acc += termc(h, row, entry(e)) + termc(h >> 16u, row, entry(e + st));
        }
        if ((n & 1u) != 0u) acc += termc(col[w0 + np * wst], row, entry(e0 + (n - 1u) * st));
        acc += acc2;
#elif VEC
        // chunks of four entries (aligned in the buffers), two an iteration, lane l taking
        // chunks c0 + l, c0 + l + L, ...; the second past the row's last chunk is loaded at
        // the last (a clamped index) and dropped
#if CPW
        int row = csr_ref(p, po);
#else
        int row = 0;
#endif
        uint c1 = (e0 + n + 3u) >> 2u, q = (e0 >> 2u) + lane;
        float acc2 = 0.0;
        for (; q < c1; q += 2u * uint(L)) {
            bool h = q + uint(L) < c1;
            acc += chunk_terms(q, e0, n, true, row);
            acc2 += chunk_terms(min(q + uint(L), c1 - 1u), e0, n, h, row);
        }
        acc += acc2;
#else
        // four entries an iteration: straight-line code whose loads the compiler issues
        // together (one entry an iteration waits for the memory each time). CSR with CPW: entry
        // e's offset in part e % CPW of word e / CPW, so the lanes read neighbouring parts
#if CPW
        int row = csr_ref(p, po);
#define TERM(e) termc(col[(e) / uint(CPW)] >> (CBITS * ((e) % uint(CPW))), row, entry(e))
#else
#define TERM(e) term(col[e], entry(e))
#endif
        uint j = lane, L4 = 4u * uint(L);
        VT acc2 = VZERO;
        for (; j + 3u * uint(L) < n; j += L4) {
            uint e = e0 + j * st, d = uint(L) * st;
            acc += TERM(e) + TERM(e + 2u * d);
            acc2 += TERM(e + d) + TERM(e + 3u * d);
        }
        // the last 1 to 3 entries together too (short rows: most of their entries); a slot
        // past the row's end reads entry 0, the same address in every such lane (one cache
        // line for them all, where entry j again would touch each lane's own), and is dropped
        // by a select. With CPW, entry j again: entry 0's offset is from its own row, which
        // from this row could reach outside x
        if (j < n) {
            uint e = e0 + j * st, d = uint(L) * st;
            bool h1 = j + uint(L) < n, h2 = j + 2u * uint(L) < n;
#if CPW
            uint none = e;
#else
            uint none = 0u;
#endif
            uint e1 = h1 ? e + d : none, e2 = h2 ? e + 2u * d : none;
            VT t0 = TERM(e), t1 = TERM(e1), t2 = TERM(e2);
            acc += t0 + (h2 ? t2 : VZERO);
            acc2 += h1 ? t1 : VZERO;
        }
#undef TERM
        acc += acc2;
#endif
    }
    acc = lanes_sum(acc, lid, lane);
    if (lane == 0u) sh_row[po - u * uint(WG / L)] = acc;
    barrier();
    uint gpu = uint(WG / L / G);
    if (lid < gpu) {
        uint g = u * gpu + lid;
        if (g < uint(u_i0.x)) {
            uint b = lid * uint(G);
#if G == 4
            store_group(out_group(g), sh_row[b], sh_row[b + 1u], sh_row[b + 2u], sh_row[b + 3u]);
#else
            store_group(out_group(g), sh_row[b], sh_row[b + 1u], VZERO, VZERO);
#endif
        }
    }
    barrier();
}
#elif MODE == 1
// one step of a group's rows: its G entries at e, together in ELL and SELL
void group_step(uint e, inout VT a0, inout VT a1, inout VT a2, inout VT a3) {
#if K == 1
    uvec4 cc = col4[e >> 2];
#if SOA
    vec4 vv = vec4(valf[e], valf[e + 1u], valf[e + 2u], valf[e + 3u]);
#else
    vec4 vv = val4[e >> 2];
#endif
    a0 += term(cc.x, vv.x);
    a1 += term(cc.y, vv.y);
    a2 += term(cc.z, vv.z);
    a3 += term(cc.w, vv.w);
#else
    uvec2 cc = col2[e >> 1];
#if K == 2 && !SOA
    vec4 vv = val4[e >> 1];
    a0 += term(cc.x, vv.xy);
    a1 += term(cc.y, vv.zw);
#else
    a0 += term(cc.x, entry(e));
    a1 += term(cc.y, entry(e + 1u));
#endif
#endif
}

#if CPW && MODE == 1
// steps t < cnt of a column word of a group's 4 rows (rows: theirs in element order): their
// words at w, their entries at e + t st
void group_word(uint w, uint e, uint st, ivec4 rows, uint cnt, inout float a0, inout float a1,
                inout float a2, inout float a3) {
    uvec4 cc = col4[w >> 2];
    for (uint t = 0u; t < cnt; ++t) {
        vec4 v = val4[(e + t * st) >> 2];
        a0 += termc(cc.x, rows.x, v.x);
        a1 += termc(cc.y, rows.y, v.y);
        a2 += termc(cc.z, rows.z, v.z);
        a3 += termc(cc.w, rows.w, v.w);
        cc >>= CBITS;
    }
}
#endif

// the G rows of group g, written as whole texels
void group_rows(uint g) {
    uint p0 = g * uint(G);
    VT a0 = VZERO, a1 = VZERO, a2 = VZERO, a3 = VZERO;
#if FMT == 0
    for (uint c = 0u; c < uint(G); ++c) {
        uint e0 = ptr[p0 + c], e1 = ptr[p0 + c + 1u];
        VT acc = VZERO;
        for (uint e = e0; e < e1; ++e) acc += term(col[e], entry(e));
        if (c == 0u) a0 = acc;
        else if (c == 1u) a1 = acc;
        else if (c == 2u) a2 = acc;
        else a3 = acc;
    }
#else
    uint e0, n, st;
    row_span(p0, e0, n, st);
    if (u_i3.w != 0)
        for (uint c = 1u; c < uint(G); ++c) n = max(n, lens[p0 + c]);
#if CPW
    // whole words (16 bits: two an iteration, four steps as with 8), then the last word's steps
    uint w0, wst, nw = n / uint(CPW), q = 0u, cpw = uint(CPW);
    row_words(p0, w0, wst);
    int r0 = nat_row(p0), nx = u_i2.x;
    ivec4 rows = ivec4(r0, r0 + 1, r0 + nx, r0 + nx + 1);
#if CPW == 2
    for (; q + 1u < nw; q += 2u) {
        group_word(w0 + q * wst, e0 + cpw * q * st, st, rows, cpw, a0, a1, a2, a3);
        group_word(w0 + (q + 1u) * wst, e0 + cpw * (q + 1u) * st, st, rows, cpw, a0, a1, a2, a3);
    }
#endif
    for (; q < nw; ++q) group_word(w0 + q * wst, e0 + cpw * q * st, st, rows, cpw, a0, a1, a2, a3);
    if (n % cpw != 0u) group_word(w0 + nw * wst, e0 + cpw * nw * st, st, rows, n % cpw, a0, a1, a2, a3);
#else
    // four steps an iteration, straight-line code whose loads the compiler issues together
    uint j = 0u;
    for (; j + 3u < n; j += 4u) {
        group_step(e0 + j * st, a0, a1, a2, a3);
        group_step(e0 + (j + 1u) * st, a0, a1, a2, a3);
        group_step(e0 + (j + 2u) * st, a0, a1, a2, a3);
        group_step(e0 + (j + 3u) * st, a0, a1, a2, a3);
    }
    for (; j < n; ++j) group_step(e0 + j * st, a0, a1, a2, a3);
#endif
#endif
    store_group(out_group(g), a0, a1, a2, a3);
}

// WG groups: one invocation each
void unit_groups(uint u, uint lid) {
    uint g = u * uint(WG) + lid;
    if (g < uint(u_i0.x)) group_rows(g);
}
#endif

#if MODE == 2
// lanes of a row in MODE 2: at most 32, and within one subgroup where shuffles sum them
#if defined(TEXLA_SUBGROUP) && TEXLA_SUBGROUP_SIZE < 32
#define LMAX uint(TEXLA_SUBGROUP_SIZE)
#else
#define LMAX 32u
#endif

// the sum over Ld (a power of two, uniform) aligned invocations, valid in the first of them
VT lanes_sum_dyn(VT v, uint lid, uint Ld) {
#if defined(TEXLA_SUBGROUP)
    for (uint o = Ld / 2u; o > 0u; o >>= 1u) v += subgroupShuffleXor(v, o);
    return v;
#else
    sh_red[lid] = v;
    barrier();
    if ((lid & (Ld - 1u)) == 0u)
        for (uint i = 1u; i < Ld; ++i) v += sh_red[lid + i];
    barrier();
    return v;
#endif
}

void unit_stream(uint u, uint lid) {
    uint g0 = lens[2u * u], e0 = lens[2u * u + 1u], g1 = lens[2u * u + 2u];
    uint ne = lens[2u * u + 3u] - e0;
    uint r0 = g0 * uint(G), nr = (g1 - g0) * uint(G), W = uint(WG);
    if (ne > uint(TB)) { // one group: each row summed by the workgroup
        for (uint c = 0u; c < uint(G); ++c) {
            uint s = ptr[r0 + c];
            VT t = wg_sum(span_part(s, ptr[r0 + c + 1u] - s, lid), lid);
            if (lid == 0u) sh_rv[c] = t;
        }
        barrier();
        if (lid == 0u) {
#if G == 4
            store_group(out_group(g0), sh_rv[0], sh_rv[1], sh_rv[2], sh_rv[3]);
#else
            store_group(out_group(g0), sh_rv[0], sh_rv[1], VZERO, VZERO);
#endif
        }
        barrier();
        return;
    }
    // the rows' lanes, and the first pass's row bounds, loaded with the entries
    uint Ld = 1u;
    while (Ld < LMAX && 2u * Ld * nr <= W) Ld *= 2u;
    uint per = W / Ld, lane = lid & (Ld - 1u), r = lid / Ld;
    uint rq = r0 + min(r, max(nr, 1u) - 1u); // clamped into range, not loads under a condition
    uint rs = ptr[rq], rt = ptr[rq + 1u];
    // the products, four of the block's entries at a time per invocation, their loads issued
    // before the first is used (plain variables: arrays may be put in memory)
    for (uint k = lid; k < ne; k += 4u * W) {
        uint k1 = k + W, k2 = k + 2u * W, k3 = k + 3u * W;
        uint a1 = e0 + min(k1, ne - 1u), a2 = e0 + min(k2, ne - 1u), a3 = e0 + min(k3, ne - 1u);
        uint c0 = col[e0 + k], c1 = col[a1], c2 = col[a2], c3 = col[a3];
        VT v0 = entry(e0 + k), v1 = entry(a1), v2 = entry(a2), v3 = entry(a3);
        sh_prod[k] = term(c0, v0);
        if (k1 < ne) sh_prod[k1] = term(c1, v1);
        if (k2 < ne) sh_prod[k2] = term(c2, v2);
        if (k3 < ne) sh_prod[k3] = term(c3, v3);
    }
    barrier();
    // the rows: Ld lanes each, in passes of WG / Ld rows
    for (uint rb = 0u; rb < nr; rb += per, r += per) {
        VT acc = VZERO;
        if (r < nr) {
            if (rb > 0u) {
                rs = ptr[r0 + r];
                rt = ptr[r0 + r + 1u];
            }
            for (uint j = rs - e0 + lane; j < rt - e0; j += Ld) acc += sh_prod[j];
        }
        if (Ld > 1u) acc = lanes_sum_dyn(acc, lid, Ld);
        if (lane == 0u && r < nr) sh_rv[r] = acc;
    }
    barrier();
    for (uint q = lid; q < g1 - g0; q += W) {
        uint b = q * uint(G);
#if G == 4
        store_group(out_group(g0 + q), sh_rv[b], sh_rv[b + 1u], sh_rv[b + 2u], sh_rv[b + 3u]);
#else
        store_group(out_group(g0 + q), sh_rv[b], sh_rv[b + 1u], VZERO, VZERO);
#endif
    }
    barrier();
}
#endif

void do_unit(uint u, uint lid) {
#if LONG
    if (u < uint(u_i0.w)) {
        unit_chunk(u, lid);
        return;
    }
    u -= uint(u_i0.w);
#endif
#if MODE == 0
    unit_rows(u, lid);
#elif MODE == 1
    unit_groups(u, lid);
#elif MODE == 2
    unit_stream(u, lid);
#endif
}

#if MODE == 3
void main() {
#ifdef SG_FULL
    // a subgroup an affected group
    uint nsg = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_NumSubgroups;
    uint a0 = (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x) * gl_NumSubgroups +
              gl_SubgroupID;
    for (uint a = a0; a < uint(u_i1.w); a += nsg)
        finish_group(a, gl_SubgroupInvocationID, gl_SubgroupSize);
#else
    uint a = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * uint(WG);
    if (a < uint(u_i1.w)) finish_group(a, 0u, 1u);
#endif
}
#else
void main() {
    uint lid = gl_LocalInvocationID.x;
    uint nwg = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    uint wgid = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    uint total = uint(u_i0.y) + uint(u_i0.w);
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
        do_unit(u, lid);
        if (dist == 0) break;
    }
    if (dist == 2) {
        // the last workgroup to finish leaves the counters at zero
        memoryBarrier();
        barrier();
        if (lid == 0u) sh_last = atomicAdd(done, 1u) == nwg - 1u;
        barrier();
        if (sh_last) {
            if (lid == 0u) {
                next = 0u;
                done = 0u;
            }
        }
    }
}
#endif
