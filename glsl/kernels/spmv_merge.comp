// y = A x for CSR with real entries, split by the merge path (Merrill & Garland): the rows' ends
// and the entries are merged into one list of R + NNZ items, and every workgroup takes a tile
// of WG * E items, every invocation E of them, whatever the rows' lengths: a row of a million
// entries and a million empty rows cost the same as any other million items. The stored CSR
// is the one spmv_row.comp reads (rows in texel order of y, columns packed): storage row p's
// sum goes to ylin[p] (y's texels as stored, float texel * 4 + channel), and
// glsl/kernels/spmv_pack.comp moves ylin into y.
//
// MODE 2 (once per stored form, kept): the (row, entry) on the merge path at every multiple of
//   SPLIT items, by binary search of the row starts, into split[] (after the carries); every
//   tile size is a multiple of SPLIT, so one set serves every variant.
// MODE 0 (the tiles): the workgroup reads its tile's first and last (row, entry) from the
//   splits, stages the tile's row ends and its entries' products a x in shared memory (loads
//   of consecutive entries by consecutive invocations), and each invocation walks its E items:
//   an entry adds its product to the open row's sum, a row end writes the sum. A row that an
//   invocation closes but did not open also needs the sums the invocations before it left
//   open on it: a segmented scan of those open sums over the workgroup (keys: the open row,
//   non-decreasing) gives each invocation what its first closed row is owed. The tile's last
//   open sum goes to carry[tile] (row, value).
// MODE 1 (the carries): one invocation per tile: the first tile of each run of tiles carrying
//   into the same row adds the run's sums, in tile order, into ylin[row]; that row was written
//   in MODE 0 by the tile that closed it. No atomics: the same result run to run.
// Uniforms: u_i0 = (R storage rows, NNZ, tiles, M = ceil((R + NNZ) / SPLIT)), u_i1.x = T /
//   SPLIT; x is u_src0 (the vector texture, read at each column's packed texel and channel).
//   The buffer holds M open rows, M open sums, M + 1 splits. Defines: WG invocations, E items
//   each.
layout(local_size_x = WG) in;
uniform sampler2D u_src0;

layout(std430, binding = 0) readonly buffer Ptr { uint ptr[]; };
layout(std430, binding = 1) readonly buffer Col { uint col[]; };
layout(std430, binding = 2) readonly buffer Val { float val[]; };
layout(std430, binding = 5) buffer Out { float ylin[]; };
// M open rows, M open sums (as bits), then M + 1 splits (row, entry)
layout(std430, binding = 6) buffer Carry { uint carry_row[]; };

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
#define NSG (WG / TEXLA_SUBGROUP_SIZE)
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
    uint R = uint(u_i0.x);
    uint M = uint(u_i0.w), sp = 2u * M, per = uint(u_i1.x); // splits a tile
    uint s0 = tile * per, s1 = min(s0 + per, M);
    uint i0 = carry_row[sp + 2u * s0], j0 = carry_row[sp + 2u * s0 + 1u];
    uint i1 = carry_row[sp + 2u * s1], j1 = carry_row[sp + 2u * s1 + 1u];
    uint na = i1 - i0, nb = j1 - j0;
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
    uint r = lo, j = dl - lo, dend = min(dl + uint(E), na + nb);
    float acc = 0.0, first = 0.0;
    uint first_row = NONE;
    for (uint d = dl; d < dend; ++d) {
        if (r < na && END(r) <= j0 + j) { // row i0 + r ends here
            if (first_row == NONE) first_row = r, first = acc;
            else ylin[i0 + r] = acc;
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
        ylin[i0 + first_row] = first + owed;
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
        ylin[i0 + first_row] = first + owed;
    }
    if (lid == uint(WG) - 1u) {
        carry_row[tile] = key < R ? key : NONE;
        carry_row[M + tile] = floatBitsToUint(sh_sum[lid]);
    }
#endif
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
void main() {
    uint t = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * uint(WG);
    uint tiles = uint(u_i0.z), M = uint(u_i0.w);
    if (t >= tiles) return;
    uint row = carry_row[t];
    if (row == NONE || (t > 0u && carry_row[t - 1u] == row)) return;
    float s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0; // four sums in a fixed order
    uint u = t;
    for (; u + 3u < tiles && carry_row[u + 3u] == row; u += 4u) {
        s0 += uintBitsToFloat(carry_row[M + u]);
        s1 += uintBitsToFloat(carry_row[M + u + 1u]);
        s2 += uintBitsToFloat(carry_row[M + u + 2u]);
        s3 += uintBitsToFloat(carry_row[M + u + 3u]);
    }
    for (; u < tiles && carry_row[u] == row; ++u) s0 += uintBitsToFloat(carry_row[M + u]);
    ylin[row] += (s0 + s1) + (s2 + s3);
}
#endif
