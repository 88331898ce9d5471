// y = A x (+ beta y) for CSR with real entries, split by the merge path (Merrill & Garland): the
// rows' ends and the entries are merged into one list of R + NNZ items, and every workgroup
// takes a tile of WG * E items, every invocation E of them, whatever the rows' lengths: a row of
// a million entries and a million empty rows cost the same as any other million items. The
// stored CSR is the one spmv_row.comp reads (rows in texel order of y, columns packed): storage
// row p is channel p % 4 of y's texel p / 4, and y is written whole texels at a time.
//
// MODE 2 (once per stored form, kept): the (row, entry) on the merge path at every multiple of
//   SPLIT items, by binary search of the row starts, into the splits; every tile size is a
//   multiple of SPLIT, so one set serves every variant.
// MODE 0 (the tiles): the workgroup reads its tile's first and last (row, entry) from the
//   splits, stages the tile's row ends and its entries' products a x in shared memory (loads
//   of consecutive entries by consecutive invocations), and each invocation walks its E items:
//   an entry adds its product to the open row's sum, a row end writes the sum to rowv[]. A row
//   that an invocation closes but did not open also needs the sums the invocations before it
//   left open on it: a segmented scan of those open sums over the workgroup (keys: the open
//   row, non-decreasing) gives each invocation what its first closed row is owed. The tile's
//   last open sum goes to the carries (row, value). Then the workgroup writes the texels of y
//   whose four rows it closed and opened itself, from rowv[].
// MODE 1 (the split texels): one subgroup per tile where there are subgroups, else one
//   invocation. A texel not written whole by one tile (a row of it opened in an earlier tile)
//   is written by the tile that closes its last row: rowv[] of its four rows plus the open
//   sums of the tiles before it that ended on them, in a fixed order. No atomics: the same
//   result run to run.
// Uniforms: u_i0 = (R storage rows, NNZ, tiles, M = ceil((R + NNZ) / SPLIT)), u_i1 = (T /
//   SPLIT, texels per row of y, rowv[]'s offset in the buffer), u_i2.z beta on, u_f0.x beta; x
//   is u_src0 (the vector texture, read at each column's packed texel and channel), y the image
//   at unit 0. The buffer holds M open rows, M open sums, M + 1 splits, then R row values.
//   Defines: WG invocations, E items each.
layout(local_size_x = WG) in;
uniform sampler2D u_src0;

layout(std430, binding = 0) readonly buffer Ptr { uint ptr[]; };
layout(std430, binding = 1) readonly buffer Col { uint col[]; };
layout(std430, binding = 2) readonly buffer Val { float val[]; };
layout(rgba32f, binding = 0) uniform image2D u_dst;
// M open rows, M open sums (as bits), M + 1 splits (row, entry), R row values (as bits)
layout(std430, binding = 6) buffer Carry { uint carry_row[]; };
#define ROWV(p) carry_row[uint(u_i1.z) + (p)]

#if MODE != 2
// texel q of y: v (+ beta y)
void put_texel(uint q, vec4 v) {
    uint w = uint(u_i1.y);
    ivec2 pos = ivec2(int(q % w), int(q / w));
    if (u_i2.z != 0) v += u_f0.x * imageLoad(u_dst, pos);
    imageStore(u_dst, pos, v);
}
#endif

#define T (WG * E)
#define SPLIT 256
#define NONE 0xFFFFFFFFu

#if MODE == 0
// the tile's items, na + nb <= T of them: its row ends (item k < na: row i0 + k ends where entry
// ptr[i0 + k + 1] starts), then its entries' products (item na + j, as bits). One array, not
// two of T: shared memory comes out of the SM's L1, which caches x's gathers (H100, R-MAT: E 8
// and 16, twice and four times the shared memory, ran 1.2x and 2x slower than E 4)
shared uint sh_item[T];
#define END(k) sh_item[k]
#define PROD(j) uintBitsToFloat(sh_item[na + (j)])
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
shared uint sh_gkey[NSG];   // each subgroup's last open row
shared float sh_gtail[NSG]; // its open sums on that row, scanned within the subgroup
#else
shared uint sh_key[WG];  // each invocation's open row
shared float sh_sum[WG]; // the open sums, scanned
#endif

float xat(uint c) {
    return texelFetch(u_src0, ivec2(int(c & 0x7FFFu), int((c >> 15) & 0x7FFFu)), 0)[c >> 30];
}

#ifdef SG_SCAN
// what subgroups t, t - 1, .. leave open on row k at their ends (rows non-decreasing: a
// subgroup whose last row is not k ends the run)
float open_from(int t, uint k) {
    float c = 0.0;
    for (; t >= 0 && sh_gkey[t] == k; --t) c += sh_gtail[t];
    return c;
}
#endif

void main() {
#ifdef SG_SCAN
    uint lid = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
#else
    uint lid = gl_LocalInvocationID.x;
#endif
    uint tile = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (tile >= uint(u_i0.z)) return; // a grid of more workgroups than tiles (the whole group)
    uint R = uint(u_i0.x);
    uint M = uint(u_i0.w), sp = 2u * M, per = uint(u_i1.x); // splits a tile
    uint s0 = tile * per, s1 = min(s0 + per, M);
    uint i0 = carry_row[sp + 2u * s0], j0 = carry_row[sp + 2u * s0 + 1u];
    uint i1 = carry_row[sp + 2u * s1], j1 = carry_row[sp + 2u * s1 + 1u];
    uint na = i1 - i0, nb = j1 - j0;
    bool midrow = j0 > ptr[i0]; // the tile opens in the middle of row i0
    for (uint k = lid; k < na; k += uint(WG)) END(k) = ptr[i0 + k + 1u];
    // the tile's products: at most E entries an invocation (nb <= T), LB at a time with every
    // load issued before a product is taken; a loop of one entry an iteration waits for its
    // column, then for x, each time (H100, R-MAT: 280 -> 205 us at E 4). Plain variables:
    // arrays may be put in memory.
#if E < 8
#define LB 4
#else
#define LB 8
#endif
#define LD(i) uint k##i = k + uint(i) * uint(WG); bool o##i = k##i < nb; \
    uint c##i = o##i ? col[j0 + k##i] : 0u; float v##i = o##i ? val[j0 + k##i] : 0.0;
#define PUT(i) if (o##i) sh_item[na + k##i] = floatBitsToUint(v##i * x##i);
    for (uint k = lid; k < nb; k += uint(LB * WG)) {
        LD(0) LD(1) LD(2) LD(3)
#if LB == 8
        LD(4) LD(5) LD(6) LD(7)
#endif
        float x0 = xat(c0), x1 = xat(c1), x2 = xat(c2), x3 = xat(c3);
#if LB == 8
        float x4 = xat(c4), x5 = xat(c5), x6 = xat(c6), x7 = xat(c7);
#endif
        PUT(0) PUT(1) PUT(2) PUT(3)
#if LB == 8
        PUT(4) PUT(5) PUT(6) PUT(7)
#endif
    }
    barrier();
    // this invocation's start on the tile's own path
    uint dl = min(lid * uint(E), na + nb);
    uint lo = dl > nb ? dl - nb : 0u, hi = min(dl, na);
    while (lo < hi) {
        uint mid = (lo + hi) >> 1;
        if (END(mid) <= j0 + dl - mid - 1u) lo = mid + 1u;
        else hi = mid;
    }
    // from here on each row end item is read by the one invocation whose items hold it, which
    // then keeps the row's value in its place
    barrier();
    uint r = lo, j = dl - lo, dend = min(dl + uint(E), na + nb);
    float acc = 0.0, first = 0.0;
    uint first_row = NONE;
    for (uint d = dl; d < dend; ++d) {
        if (r < na && END(r) <= j0 + j) { // row i0 + r ends here
            if (first_row == NONE) first_row = r, first = acc;
            else sh_item[r] = floatBitsToUint(acc);
            acc = 0.0;
            ++r;
        } else {
            acc += PROD(j);
            ++j;
        }
    }
    // the open sums, scanned by row over the workgroup (rows non-decreasing with lid)
    uint key = i0 + r;
#ifdef SG_SCAN
    uint sl = gl_SubgroupInvocationID, sg = gl_SubgroupID, S = gl_SubgroupSize;
    float tot = acc;
    for (uint off = 1u; off < S; off <<= 1u) {
        uint src = sl >= off ? sl - off : sl;
        float pv = subgroupShuffle(tot, src);
        uint pk = subgroupShuffle(key, src);
        if (sl >= off && pk == key) tot += pv;
    }
    // the invocation before this one (lane sl - 1, or the last of the subgroup before)
    float ptot = subgroupShuffle(tot, sl > 0u ? sl - 1u : 0u);
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
    if (first_row != NONE) {
        // what the invocations before this one left open on its first row (which they all
        // end on: this invocation starts where the one before it stopped)
        float owed = lid > 0u && pkey == i0 + first_row ? ptot : 0.0;
        sh_item[first_row] = floatBitsToUint(first + owed);
    }
    if (lid == uint(WG) - 1u) {
        carry_row[tile] = key < R ? key : NONE;
        carry_row[M + tile] = floatBitsToUint(tot);
    }
#else
    sh_key[lid] = key;
    sh_sum[lid] = acc;
    for (uint off = 1u; off < uint(WG); off <<= 1u) {
        barrier();
        float add = lid >= off && sh_key[lid - off] == key ? sh_sum[lid - off] : 0.0;
        barrier();
        sh_sum[lid] += add;
    }
    barrier();
    if (first_row != NONE) {
        // what the invocations before this one left open on its first row (which they all
        // end on: this invocation starts where the one before it stopped)
        float owed = lid > 0u && sh_key[lid - 1u] == i0 + first_row ? sh_sum[lid - 1u] : 0.0;
        sh_item[first_row] = floatBitsToUint(first + owed);
    }
    if (lid == uint(WG) - 1u) {
        carry_row[tile] = key < R ? key : NONE;
        carry_row[M + tile] = floatBitsToUint(sh_sum[lid]);
    }
#endif
    barrier();
    // the texels whose four rows this tile opened and closed, from sh_item; the other rows it
    // closed (at most 4 before them, 3 after) to rowv[], for MODE 1
    uint qa = (i0 + (midrow ? 1u : 0u) + 3u) >> 2, qe = (i0 + na) >> 2;
    for (uint q = qa + lid; q < qe; q += uint(WG)) {
        uint p = 4u * q - i0;
        put_texel(q, vec4(uintBitsToFloat(sh_item[p]), uintBitsToFloat(sh_item[p + 1u]),
                          uintBitsToFloat(sh_item[p + 2u]), uintBitsToFloat(sh_item[p + 3u])));
    }
    uint nlo = qa < qe ? 4u * qa - i0 : na, nhi = qa < qe ? i0 + na - 4u * qe : 0u;
    if (lid < nlo) ROWV(i0 + lid) = sh_item[lid];
    else if (lid < nlo + nhi) ROWV(4u * qe + lid - nlo) = sh_item[4u * qe - i0 + lid - nlo];
}
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
    carry_row[2u * M + 2u * t] = s.x;
    carry_row[2u * M + 2u * t + 1u] = s.y;
}
#else
// tile t's split texel: q, and its first row p; false where the texel of the tile's first row is
// not split (no row of it opened before the tile) or not the tile's (it does not close the
// texel's last row)
bool split_of(uint t, out uint q, out uint p) {
    uint M = uint(u_i0.w), sp = 2u * M, per = uint(u_i1.x);
    uint s0 = t * per, s1 = min(s0 + per, M);
    uint i0 = carry_row[sp + 2u * s0], j0 = carry_row[sp + 2u * s0 + 1u];
    uint i1 = carry_row[sp + 2u * s1];
    q = i0 >> 2;
    p = 4u * q;
    return !((p == i0 && j0 <= ptr[i0]) || p + 3u >= i1);
}

// texel q: its rows' values plus s
void put_split(uint q, uint p, vec4 s) {
    put_texel(q, vec4(uintBitsToFloat(ROWV(p)), uintBitsToFloat(ROWV(p + 1u)),
                      uintBitsToFloat(ROWV(p + 2u)), uintBitsToFloat(ROWV(p + 3u))) + s);
}

#if defined(TEXLA_SUBGROUP)
#if WG % TEXLA_SUBGROUP_SIZE == 0
#define SG_WALK 1
#endif
#endif
// SG_WALK: a subgroup a tile, its lanes taking S tiles of the run at a time (circuit's row of
// 834880 entries carries across hundreds of tiles); else an invocation a tile (lane 0 of 1)
#ifdef SG_WALK
#define LANE gl_SubgroupInvocationID
#define LANES gl_SubgroupSize
#define WALKERS (gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_NumSubgroups)
#define WALKER \
    ((gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x) * gl_NumSubgroups + gl_SubgroupID)
#define ALL(b) (subgroupMin((b) ? 1u : 0u) == 1u)
#define TOTAL(s) subgroupAdd(s)
#else
#define LANE 0u
#define LANES 1u
#define WALKERS (gl_NumWorkGroups.x * gl_NumWorkGroups.y * uint(WG))
#define WALKER (gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * uint(WG))
#define ALL(b) (b)
#define TOTAL(s) (s)
#endif

void main() {
    uint tiles = uint(u_i0.z), M = uint(u_i0.w), q, p, S = LANES, sl = LANE;
    for (uint t = WALKER; t < tiles; t += WALKERS) {
        if (!split_of(t, q, p)) continue;
        // the open sums of the tiles before t that ended on the texel's rows: those tiles end
        // on rows p .. i0, non-decreasing, so they are the run of tiles just before t
        vec4 s = vec4(0.0);
        for (uint u = t;; u -= S) { // lane sl: tile u - 1 - sl
            bool in_run = u > sl && carry_row[u - 1u - sl] >= p;
            uint v = u - 1u - sl;
            if (in_run) s[carry_row[v] - p] += uintBitsToFloat(carry_row[M + v]);
            if (!ALL(in_run) || u <= S) break;
        }
        s = TOTAL(s);
        if (sl == 0u) put_split(q, p, s);
    }
}
#endif
