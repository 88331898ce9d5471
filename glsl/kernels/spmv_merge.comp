// y = A x (+ beta y) for CSR with real, complex or quaternion entries, split by the merge path
// (Merrill & Garland): the rows' ends and the entries are merged into one list of R + NNZ
// items, and every workgroup takes a tile of WG * E items, every invocation E of them, whatever
// the rows' lengths: a row of a million entries and a million empty rows cost the same as any
// other million items. The stored CSR is the one spmv_row.comp reads (rows in the group order of
// y, columns packed): storage row p is row p % G of y's group p / G (K = 1: channel p % 4 of
// texel p / 4; K = 2: the .xy or .zw half of texel p / 2; K = 4: the .xy or .zw halves of
// texel pair p / 2), and y is written whole groups at a time.
//
// MODE 2 (once per stored form, kept): the (row, entry) on the merge path at every multiple of
//   SPLIT items, by binary search of the row starts, into the splits; every tile size is a
//   multiple of SPLIT, so one set serves every variant.
// MODE 0 (the tiles): the workgroup reads its tile's first and last (row, entry) from the
//   splits, stages the tile's row ends and its entries' products a x in shared memory (loads
//   of consecutive entries by consecutive invocations), and each invocation walks its E items:
//   an entry adds its product to the open row's sum, a row end closes the row. A row that an
//   invocation closes but did not open also needs the sums the invocations before it left open
//   on it: a segmented scan of those open sums over the workgroup (keys: the open row,
//   non-decreasing) gives each invocation what its first closed row is owed. The tile's last
//   open sum goes to the carries (row, value). Then the workgroup writes the groups of y whose
//   G rows it closed and opened itself; the other rows it closed go to rowv[].
//   K = 1 keeps a closed row's value in its row end's place at once (read by no one else); K > 1
//   keeps its rows' values in registers until the scan's barrier (every product read), then
//   puts them in the products' place.
// MODE 3 (variant field tiles; after Liu & Vinter's CSR5): MODE 0 on tiles of WG x E entries,
//   not items, stored so that each invocation's E entries lie at a stride of 32 (neighbours'
//   loads together) with a bit marking each row's last entry: it sums its own entries and closes
//   a row at each bit (its row from the bits before it), no row ends staged, no search; the
//   scan, carries and group writes as MODE 0's, the splits made with the stored form.
// MODE 1 (the split groups): one invocation per tile (a subgroup helps with long runs). A
//   group not written whole by one tile (a row of it opened in an earlier tile) is written by
//   the tile that closes its last row: rowv[] of its G rows plus the open sums of the tiles
//   before it that ended on them, in a fixed order. No atomics: the same result run to run.
// Uniforms: u_i0 = (R storage rows, NNZ, tiles, M = ceil((R + NNZ) / SPLIT)), u_i1 = (T /
//   SPLIT, groups per row of y, rowv[]'s offset in the buffer), u_i2.z beta on, u_f0.x beta; x
//   is u_src0 (the vector texture, read at each column's packed texel and channel), y the image
//   at unit 0. The buffer holds M open rows, M open sums (K words each), M + 1 splits (row,
//   entry), then R row values (K words each). Defines: WG invocations, E items each, K floats
//   an entry (1, 2, 4), SOA 1: the entries' parts in planes of NNZ floats.
layout(local_size_x = WG) in;
uniform sampler2D u_src0;

#if K == 1
#define VT float
#define VZERO 0.0
#define G 4u
#elif K == 2
#define VT vec2
#define VZERO vec2(0.0)
#define G 2u
#else
#define VT vec4
#define VZERO vec4(0.0)
#define G 2u
#endif

layout(std430, binding = 0) readonly buffer Ptr { uint ptr[]; };
layout(std430, binding = 1) readonly buffer Col { uint col[]; };
#if SOA
layout(std430, binding = 2) readonly buffer Val { float valf[]; };
#else
layout(std430, binding = 2) readonly buffer Val { VT val[]; };
#endif
layout(rgba32f, binding = 0) uniform image2D u_dst;
// M open rows, M open sums (as bits), M + 1 splits (row, entry), R row values (as bits)
layout(std430, binding = 6) buffer Carry { uint carry_row[]; };
// split s's row (its entry at + 1)
#define SPL(s) (uint(K + 1) * uint(u_i0.w) + 2u * (s))

// K words of the buffer at i, as a value, and back
VT carry_get(uint i) {
#if K == 1
    return uintBitsToFloat(carry_row[i]);
#else
    VT v;
    for (int c = 0; c < K; ++c) v[c] = uintBitsToFloat(carry_row[i + uint(c)]);
    return v;
#endif
}

void carry_put(uint i, VT v) {
#if K == 1
    carry_row[i] = floatBitsToUint(v);
#else
    for (int c = 0; c < K; ++c) carry_row[i + uint(c)] = floatBitsToUint(v[c]);
#endif
}

#define ROWV(p) carry_get(uint(u_i1.z) + uint(K) * (p))
#define PUT_ROWV(p, v) carry_put(uint(u_i1.z) + uint(K) * (p), v)

#if MODE != 2
// group q of y: rows r0 .. r(G - 1) (+ beta y)
void put_group(uint q, VT r0, VT r1, VT r2, VT r3) {
    uint w = uint(u_i1.y);
#if K == 4
    ivec2 pos = ivec2(int(2u * (q % w)), int(q / w));
    vec4 t0 = vec4(r0.xy, r1.xy), t1 = vec4(r0.zw, r1.zw);
    if (u_i2.z != 0) {
        t0 += u_f0.x * imageLoad(u_dst, pos);
        t1 += u_f0.x * imageLoad(u_dst, pos + ivec2(1, 0));
    }
    imageStore(u_dst, pos, t0);
    imageStore(u_dst, pos + ivec2(1, 0), t1);
#else
    ivec2 pos = ivec2(int(q % w), int(q / w));
#if K == 1
    vec4 v = vec4(r0, r1, r2, r3);
#else
    vec4 v = vec4(r0, r1);
#endif
    if (u_i2.z != 0) v += u_f0.x * imageLoad(u_dst, pos);
    imageStore(u_dst, pos, v);
#endif
}
#endif

#define T (WG * E)
#define SPLIT 256
#define NONE 0xFFFFFFFFu

#if MODE == 0 || MODE == 3
#if MODE == 3
// tiles of entries (after CSR5): the closed rows' values (at most one a stored entry: an
// empty row has a stand-in)
shared VT sh_rowv[T];
#define ROWVAL(r) sh_rowv[r]
#define PUT_ROWVAL(r, v) sh_rowv[r] = (v)
layout(std430, binding = 3) readonly buffer Dsc { uint dsc[]; };
#else
// the tile's items, na + nb <= T of them: its row ends (item k < na: row i0 + k ends where entry
// ptr[i0 + k + 1] starts), then its entries' products. K = 1: one array, not two of T, the
// products as bits: shared memory comes out of the SM's L1, which caches x's gathers (H100,
// R-MAT: E 8 and 16, twice and four times the shared memory, ran 1.2x and 2x slower than E 4)
shared uint sh_item[T];
#define END(k) sh_item[k]
#if K == 1
#define PROD(j) uintBitsToFloat(sh_item[na + (j)])
#define PUT_PROD(j, v) sh_item[na + (j)] = floatBitsToUint(v)
#define ROWVAL(r) uintBitsToFloat(sh_item[r])
#define PUT_ROWVAL(r, v) sh_item[r] = floatBitsToUint(v)
#else
shared VT sh_prod[T]; // the products; after the scan's barrier, the closed rows' values
#define PROD(j) sh_prod[j]
#define PUT_PROD(j, v) sh_prod[j] = (v)
#define ROWVAL(r) sh_prod[r]
#define PUT_ROWVAL(r, v) sh_prod[r] = (v)
#endif
#endif
#if defined(TEXLA_SUBGROUP)
#if WG % TEXLA_SUBGROUP_SIZE == 0
#define SG_SCAN 1
#endif
#endif
#ifdef SG_SCAN
// the open sums scanned by subgroup shuffles, then across the subgroups through shared memory
// (one barrier instead of two per step); invocation q of the tile is lane q % S of subgroup
// q / S (whatever the invocations' order within the workgroup)
#define NSG (WG / 4) // room for subgroups as narrow as device.c accepts
shared uint sh_gkey[NSG]; // each subgroup's last open row
shared VT sh_gtail[NSG];  // its open sums on that row, scanned within the subgroup
#else
shared uint sh_key[WG]; // each invocation's open row
shared VT sh_sum[WG];   // the open sums, scanned
#endif

VT entry(uint e) {
#if SOA
    uint ne = uint(u_i0.y);
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

// a x, the entry on the left
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
    ivec2 t = ivec2(int(c & 0x7FFFu), int((c >> 15) & 0x7FFFu));
#if K == 1
    return texelFetch(u_src0, t, 0)[c >> 30];
#elif K == 2
    vec4 v = texelFetch(u_src0, t, 0);
    return (c >> 30) == 0u ? v.xy : v.zw;
#else
    vec4 a = texelFetch(u_src0, t, 0), b = texelFetch(u_src0, t + ivec2(1, 0), 0);
    return (c >> 30) == 0u ? vec4(a.xy, b.xy) : vec4(a.zw, b.zw);
#endif
}

#ifdef SG_SCAN
// what subgroups t, t - 1, .. leave open on row k at their ends (rows non-decreasing: a
// subgroup whose last row is not k ends the run)
VT open_from(int t, uint k) {
    VT c = VZERO;
    for (; t >= 0 && sh_gkey[t] == k; --t) c += sh_gtail[t];
    return c;
}
#endif

// the open sums (acc on row key, this invocation's last) scanned by row over the workgroup (rows
// non-decreasing with lid): what the invocations before this one left open on row frow, the
// first row it closes (NONE: none); the tile's last open row and sum to the carries
VT scan_owed(uint lid, uint tile, uint key, VT acc, uint frow) {
    uint R = uint(u_i0.x), M = uint(u_i0.w);
    VT owed = VZERO;
#ifdef SG_SCAN
    uint sl = gl_SubgroupInvocationID, sg = gl_SubgroupID, S = gl_SubgroupSize;
    VT tot = acc;
    for (uint off = 1u; off < S; off <<= 1u) {
        uint src = sl >= off ? sl - off : sl;
        VT pv = subgroupShuffle(tot, src);
        uint pk = subgroupShuffle(key, src);
        if (sl >= off && pk == key) tot += pv;
    }
    // the invocation before this one (lane sl - 1, or the last of the subgroup before)
    VT ptot = subgroupShuffle(tot, sl > 0u ? sl - 1u : 0u);
    uint pkey = subgroupShuffle(key, sl > 0u ? sl - 1u : 0u);
    if (sl == S - 1u) {
        sh_gkey[sg] = key;
        sh_gtail[sg] = tot;
    }
    barrier();
    tot += open_from(int(sg) - 1, key);
    if (sl > 0u) ptot += open_from(int(sg) - 1, pkey);
    else if (sg > 0u) {
        pkey = sh_gkey[sg - 1u];
        ptot = sh_gtail[sg - 1u] + open_from(int(sg) - 2, pkey);
    }
    // what the invocations before this one left open on its first row (which they all end on:
    // this invocation starts where the one before it stopped)
    if (frow != NONE && lid > 0u && pkey == frow) owed = ptot;
    if (lid == uint(WG) - 1u) {
        carry_row[tile] = key < R ? key : NONE;
        carry_put(M + uint(K) * tile, tot);
    }
#else
    sh_key[lid] = key;
    sh_sum[lid] = acc;
    for (uint off = 1u; off < uint(WG); off <<= 1u) {
        barrier();
        VT add = lid >= off && sh_key[lid - off] == key ? sh_sum[lid - off] : VZERO;
        barrier();
        sh_sum[lid] += add;
    }
    barrier();
    // what the invocations before this one left open on its first row (as above)
    if (frow != NONE && lid > 0u && sh_key[lid - 1u] == frow) owed = sh_sum[lid - 1u];
    if (lid == uint(WG) - 1u) {
        carry_row[tile] = key < R ? key : NONE;
        carry_put(M + uint(K) * tile, sh_sum[lid]);
    }
#endif
    return owed;
}

// after a barrier: the groups whose G rows the tile (rows i0 .. i0 + na - 1 closed; midrow: it
// opened in the middle of row i0) opened and closed, from the rows' values; the other rows it
// closed (at most G before them, G - 1 after) to rowv[], for MODE 1
void put_groups(uint lid, uint i0, uint na, bool midrow) {
    uint qa = (i0 + (midrow ? 1u : 0u) + G - 1u) / G, qe = (i0 + na) / G;
    for (uint q = qa + lid; q < qe; q += uint(WG)) {
        uint p = G * q - i0;
#if K == 1
        put_group(q, ROWVAL(p), ROWVAL(p + 1u), ROWVAL(p + 2u), ROWVAL(p + 3u));
#else
        put_group(q, ROWVAL(p), ROWVAL(p + 1u), VZERO, VZERO);
#endif
    }
    uint nlo = qa < qe ? G * qa - i0 : na, nhi = qa < qe ? i0 + na - G * qe : 0u;
    if (lid < nlo) PUT_ROWV(i0 + lid, ROWVAL(lid));
    else if (lid < nlo + nhi) PUT_ROWV(G * qe + lid - nlo, ROWVAL(G * qe - i0 + lid - nlo));
}

#if MODE == 0
void main() {
#ifdef SG_SCAN
    uint lid = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
#else
    uint lid = gl_LocalInvocationID.x;
#endif
    uint tile = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (tile >= uint(u_i0.z)) return; // a grid of more workgroups than tiles (the whole group)
    uint R = uint(u_i0.x);
    uint M = uint(u_i0.w), per = uint(u_i1.x); // splits a tile
    uint s0 = tile * per, s1 = min(s0 + per, M);
    uint i0 = carry_row[SPL(s0)], j0 = carry_row[SPL(s0) + 1u];
    uint i1 = carry_row[SPL(s1)], j1 = carry_row[SPL(s1) + 1u];
    uint na = i1 - i0, nb = j1 - j0;
    bool midrow = j0 > ptr[i0]; // the tile opens in the middle of row i0
    // the tile's first WG row ends are loaded with its entries, their loads issued together (a
    // loop of its own before the entries' loads waited for them apart); an index clamped into
    // range, not a load under a condition
    uint end0 = ptr[i0 + min(lid + 1u, na)];
    // the tile's products: at most E entries an invocation (nb <= T), LB at a time with every
    // load issued before a product is taken; a loop of one entry an iteration waits for its
    // column, then for x, each time (H100, R-MAT: 280 -> 205 us at E 4). Plain variables:
    // arrays may be put in memory. E 2 takes two at a time: its share (nb <= 2 WG) never
    // reaches a third and fourth, whose registers cost (H200, complex R-MAT, 2 items SoA at 128
    // invocations: 206-210 -> 193-203 us; at 4 items two at a time ran 194 -> 240). A slot past
    // the tile's entries loads its last entry again and drops the product at the store: NVIDIA's
    // GL compiler does not issue loads under a condition together (H200, complex R-MAT at 4
    // items: 201-203 -> 189 us; BENCHMARKS, thirty-first session)
#if E < 4
#define LB 2
#elif E < 8
#define LB 4
#else
#define LB 8
#endif
#define LD(i) uint k##i = k + uint(i) * uint(WG); bool o##i = k##i < nb; \
    uint e##i = j0 + min(k##i, nb - 1u); uint c##i = col[e##i]; VT v##i = entry(e##i);
#define PUT(i) if (o##i) PUT_PROD(k##i, emul(v##i, x##i));
    for (uint k = lid; k < nb; k += uint(LB * WG)) {
        LD(0) LD(1)
#if LB >= 4
        LD(2) LD(3)
#endif
#if LB == 8
        LD(4) LD(5) LD(6) LD(7)
#endif
        VT x0 = xat(c0), x1 = xat(c1);
#if LB >= 4
        VT x2 = xat(c2), x3 = xat(c3);
#endif
#if LB == 8
        VT x4 = xat(c4), x5 = xat(c5), x6 = xat(c6), x7 = xat(c7);
#endif
        PUT(0) PUT(1)
#if LB >= 4
        PUT(2) PUT(3)
#endif
#if LB == 8
        PUT(4) PUT(5) PUT(6) PUT(7)
#endif
    }
    if (lid < na) END(lid) = end0;
    for (uint k = lid + uint(WG); k < na; k += uint(WG)) END(k) = ptr[i0 + k + 1u];
    barrier();
    // this invocation's start on the tile's own path
    uint dl = min(lid * uint(E), na + nb);
    uint lo = dl > nb ? dl - nb : 0u, hi = min(dl, na);
    while (lo < hi) {
        uint mid = (lo + hi) >> 1;
        if (END(mid) <= j0 + dl - mid - 1u) lo = mid + 1u;
        else hi = mid;
    }
    // from here on each row end item is read by the one invocation whose items hold it
    barrier();
    uint r = lo, j = dl - lo, dend = min(dl + uint(E), na + nb);
    VT acc = VZERO, first = VZERO;
    uint first_row = NONE;
#if K == 1
    // a closed row's value goes to its row end's place at once
    for (uint d = dl; d < dend; ++d) {
        if (r < na && END(r) <= j0 + j) { // row i0 + r ends here
            if (first_row == NONE) first_row = r, first = acc;
            else PUT_ROWVAL(r, acc);
            acc = VZERO;
            ++r;
        } else {
            acc += PROD(j);
            ++j;
        }
    }
#else
    // item dl + i closes a row: bit i of ends, its value in rv[i] (constant indices once the
    // loop is unrolled), put in place after the scan's barrier
    VT rv[E];
    uint ends = 0u;
    for (uint i = 0u; i < uint(E); ++i) {
        bool mine = dl + i < dend, closes = mine && r < na && END(r) <= j0 + j;
        rv[i] = acc;
        if (closes) {
            if (ends == 0u) first_row = r, first = acc;
            ends |= 1u << i;
            acc = VZERO;
            ++r;
        } else if (mine) {
            acc += PROD(j);
            ++j;
        }
    }
#endif
    // the open sums, scanned by row over the workgroup (rows non-decreasing with lid)
    VT owed = scan_owed(lid, tile, i0 + r, acc, first_row == NONE ? NONE : i0 + first_row);
    if (first_row != NONE) PUT_ROWVAL(first_row, first + owed);
#if K != 1
    for (uint i = 0u; i < uint(E); ++i) { // the other rows this invocation closed
        uint before = ends & ((1u << i) - 1u);
        if ((ends & (1u << i)) != 0u && before != 0u) PUT_ROWVAL(lo + uint(bitCount(before)), rv[i]);
    }
#endif
    barrier();
    put_groups(lid, i0, na, midrow);
}
#else
// MODE 3: tiles of entries. The stored form (spformats.c, make_tiles): the entries in
// units of 32 lanes x E, lane l's E entries at l, 32 + l, .. of its unit (its loads beside its
// neighbours'); an empty row has a stand-in entry (column NONE, value 0); dsc: a bit an entry,
// set where it ends a row.
// The splits are the units' (rows ended before, first entry): a tile is WG / 32 units. No row
// ends staged, no products in shared memory, no search: each invocation sums its own entries,
// closing a row at each flag; the open sums are scanned as MODE 0's.
void main() {
#ifdef SG_SCAN
    uint lid = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
#else
    uint lid = gl_LocalInvocationID.x;
#endif
    uint tile = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (tile >= uint(u_i0.z)) return;
    uint M = uint(u_i0.w), per = uint(u_i1.x); // units a tile
    uint s0 = tile * per, s1 = min(s0 + per, M);
    uint i0 = carry_row[SPL(s0)], j0 = carry_row[SPL(s0) + 1u];
    uint i1 = carry_row[SPL(s1)];
    uint na = i1 - i0;
    bool midrow = j0 > ptr[i0];
    uint un = s0 + lid / 32u, lane = lid % 32u;
    bool live = un < s1; // the last tile's units past the matrix: no entries, no rows
    uint uc = min(un, M - 1u);
    // the unit's row ends, a bit an entry (entry s of lane l: bit l E + s of its E words); the
    // rows ended before this lane's entries by counting bits (no scan, no barrier)
    uint wi = lane * uint(E) / 32u, sh = lane * uint(E) % 32u, fw = 0u, rank = 0u;
    for (uint w = 0u; w < uint(E); ++w) {
        uint d = dsc[uc * uint(E) + w];
        rank += w < wi ? uint(bitCount(d)) : 0u;
        fw = w == wi ? d : fw;
    }
    rank += uint(bitCount(fw & ((1u << sh) - 1u)));
    uint flags = live ? (fw >> sh) & ((1u << uint(E)) - 1u) : 0u;
    uint cur = live ? carry_row[SPL(uc)] + rank : i1; // the row open at its first entry
    uint base = uc * uint(32 * E) + lane;
    VT acc = VZERO, first = VZERO;
    uint first_row = NONE;
#if E < 8
#define LB E
#else
#define LB 8
#endif
#define LD(i) uint c##i = col[base + uint(32 * (s + i))]; VT v##i = entry(base + uint(32 * (s + i)));
// a stand-in's or the padding's column (NONE) fetches texel 0, its product dropped: no fetch
// under a condition (NVIDIA's GL compiler does not issue those together)
#define XF(i) VT x##i = xat(c##i == NONE ? 0u : c##i);
#define ST(i) acc += (c##i == NONE || !live) ? VZERO : emul(v##i, x##i); \
    if ((flags & (1u << uint(s + i))) != 0u) { \
        if (first_row == NONE) first_row = cur - i0, first = acc; \
        else PUT_ROWVAL(cur - i0, acc); \
        acc = VZERO; \
        ++cur; \
    }
    for (int s = 0; s < E; s += LB) {
        LD(0) LD(1)
#if LB >= 4
        LD(2) LD(3)
#endif
#if LB >= 8
        LD(4) LD(5) LD(6) LD(7)
#endif
        XF(0) XF(1)
#if LB >= 4
        XF(2) XF(3)
#endif
#if LB >= 8
        XF(4) XF(5) XF(6) XF(7)
#endif
        ST(0) ST(1)
#if LB >= 4
        ST(2) ST(3)
#endif
#if LB >= 8
        ST(4) ST(5) ST(6) ST(7)
#endif
    }
    VT owed = scan_owed(lid, tile, cur, acc, first_row == NONE ? NONE : i0 + first_row);
    if (first_row != NONE) PUT_ROWVAL(first_row, first + owed);
    barrier();
    put_groups(lid, i0, na, midrow);
}
#endif
#elif MODE == 2
// the merge path's split on diagonal d: rows ended and entries taken by the first d items
uvec2 split_global(uint d, uint R, uint NNZ) {
    uint lo = d > NNZ ? d - NNZ : 0u, hi = min(d, R);
    while (lo < hi) {
        uint mid = (lo + hi) >> 1;
        if (ptr[mid + 1u] <= d - mid - 1u) lo = mid + 1u;
        else hi = mid;
    }
    return uvec2(lo, d - lo);
}

void main() {
    uint t = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * uint(WG);
    uint M = uint(u_i0.w), R = uint(u_i0.x), NNZ = uint(u_i0.y);
    if (t > M) return;
    uvec2 s = split_global(min(t * uint(SPLIT), R + NNZ), R, NNZ);
    carry_row[SPL(t)] = s.x;
    carry_row[SPL(t) + 1u] = s.y;
}
#else
#if defined(TEXLA_SUBGROUP)
#if WG % TEXLA_SUBGROUP_SIZE == 0
#define SG_WALK 1
#endif
#endif
// an open sum c on row r added to its row's sum where on, rows from p (K = 1: s4's component,
// chosen by selects, not by a loaded index; else the first row's s0 or the second's s2)
void add_open(bool on, uint r, VT c, uint p, inout vec4 s4, inout VT s0, inout VT s2) {
    uint o = on ? r - p : G;
#if K == 1
    s4 += vec4(o == 0u ? c : 0.0, o == 1u ? c : 0.0, o == 2u ? c : 0.0, o == 3u ? c : 0.0);
#else
    s0 += o == 0u ? c : VZERO;
    s2 += o == 1u ? c : VZERO;
#endif
}

// an invocation a tile: the tile's split group q (rows from p: a group not written whole by one
// tile, a row of it opened in an earlier tile, is written by the tile that closes its last row),
// from rowv[] and the open sums of the tiles before it that ended on the group's rows (they end
// on rows p .. i0, non-decreasing, so they are the run of tiles just before it). Every load that
// does not wait for the split is made with the split's: the open rows and sums of the RUN tiles
// before it (one or two are the run mostly), then the group's row values and its first row's
// start with nothing between. With subgroups, a run longer than that (circuit's row of 834880
// entries carries across hundreds of tiles) is summed by the whole subgroup, its lanes taking
// WALK x S tiles a step, one such run after another. (H200, against one tile a step: circuit on
// the merge path 130 -> 119 us, R-MAT and Pareto rows on tiles 1-3 us less; the pass's loads
// cost about 3.5 us, its row values and texel stores 3-20.) Every sum in a fixed order: the
// same result run to run. No atomics.
#define RUN 8u
#define WALK 4u
void main() {
    uint tiles = uint(u_i0.z), M = uint(u_i0.w), R = uint(u_i0.x), per = uint(u_i1.x);
    uint t = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * uint(WG);
    uint tc = min(t, tiles - 1u); // loads at clamped places, none under a condition
    uint sa = tc * per, sb = min(sa + per, M);
    uint i0 = carry_row[SPL(sa)], j0 = carry_row[SPL(sa) + 1u], i1 = carry_row[SPL(sb)];
    uint rr[RUN];
    VT cc[RUN];
    for (uint k = 0u; k < RUN; ++k) {
        uint x = tc > k ? tc - 1u - k : 0u;
        rr[k] = carry_row[x];
        cc[k] = carry_get(M + uint(K) * x);
    }
    uint q = i0 / G, p = G * q, pc = min(p, R >= G ? R - G : 0u);
    uint start0 = ptr[min(i0, R)]; // the first row's start
    VT v0 = ROWV(pc), v1 = ROWV(pc + 1u);
#if K == 1
    VT v2 = ROWV(pc + 2u), v3 = ROWV(pc + 3u);
#endif
    // false where the group of the tile's first row is not split (no row of it opened before
    // the tile) or not the tile's (it does not close the group's last row)
    bool mine = t < tiles && !((p == i0 && j0 <= start0) || p + G - 1u >= i1);
    vec4 s4 = vec4(0.0);
    VT s0 = VZERO, s2 = VZERO;
    bool on = true;
    for (uint k = 0u; k < RUN; ++k) {
        on = on && tc > k && rr[k] >= p;
        add_open(on, rr[k], cc[k], p, s4, s0, s2);
    }
    uint u = on ? tc - RUN : 0u; // the run may go on from tile u - 1
#ifdef SG_WALK
    uint sl = gl_SubgroupInvocationID, S = gl_SubgroupSize;
    for (uvec4 b = subgroupBallot(mine && u > 0u); subgroupBallotBitCount(b) > 0u;) {
        uint w = subgroupBallotFindLSB(b); // lane w's run, from tile uw - 1 down
        uint uw = subgroupShuffle(u, w), pw = subgroupShuffle(p, w);
        vec4 a4 = vec4(0.0);
        VT a0 = VZERO, a2 = VZERO;
        for (uint v = uw;; v -= WALK * S) { // lane sl: tiles v - 1 - sl - S j
            uint rj[WALK];
            VT cj[WALK];
            for (uint j = 0u; j < WALK; ++j) {
                uint o = sl + S * j, x = v > o ? v - 1u - o : 0u;
                rj[j] = carry_row[x];
                cj[j] = carry_get(M + uint(K) * x);
            }
            bool all_in = true;
            for (uint j = 0u; j < WALK; ++j) {
                bool in_run = v > sl + S * j && rj[j] >= pw;
                add_open(in_run, rj[j], cj[j], pw, a4, a0, a2);
                all_in = all_in && in_run;
            }
            if (subgroupMin(all_in ? 1u : 0u) == 0u || v <= WALK * S) break;
        }
#if K == 1
        a4 = subgroupAdd(a4);
#else
        a0 = subgroupAdd(a0);
        a2 = subgroupAdd(a2);
#endif
        if (sl == w) {
            s4 += a4;
            s0 += a0;
            s2 += a2;
        }
        b[w / 32u] &= ~(1u << (w % 32u));
    }
#else
    for (; mine && u > 0u && carry_row[u - 1u] >= p; --u)
        add_open(true, carry_row[u - 1u], carry_get(M + uint(K) * (u - 1u)), p, s4, s0, s2);
#endif
    if (!mine) return;
#if K == 1
    put_group(q, v0 + s4.x, v1 + s4.y, v2 + s4.z, v3 + s4.w);
#else
    put_group(q, v0 + s0, v1 + s2, VZERO, VZERO);
#endif
}
#endif
