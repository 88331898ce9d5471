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
shared uint sh_end[T];   // the tile's row ends (row i0 + k ends where entry ptr[i0 + k + 1] starts)
shared float sh_prod[T]; // the tile's entries' products
shared uint sh_key[WG];  // each invocation's open row
shared float sh_sum[WG]; // the open sums, scanned

float xat(uint c) {
    return texelFetch(u_src0, ivec2(int(c & 0x7FFFu), int((c >> 15) & 0x7FFFu)), 0)[c >> 30];
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint tile = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    uint R = uint(u_i0.x);
    uint M = uint(u_i0.w), sp = 2u * M, per = uint(u_i1.x); // splits a tile
    uint s0 = tile * per, s1 = min(s0 + per, M);
    uint i0 = carry_row[sp + 2u * s0], j0 = carry_row[sp + 2u * s0 + 1u];
    uint i1 = carry_row[sp + 2u * s1], j1 = carry_row[sp + 2u * s1 + 1u];
    uint na = i1 - i0, nb = j1 - j0;
    for (uint k = lid; k < na; k += uint(WG)) sh_end[k] = ptr[i0 + k + 1u];
    for (uint k = lid; k < nb; k += uint(WG)) sh_prod[k] = val[j0 + k] * xat(col[j0 + k]);
    barrier();
    // this invocation's start on the tile's own path
    uint dl = min(lid * uint(E), na + nb);
    uint lo = dl > nb ? dl - nb : 0u, hi = min(dl, na);
    while (lo < hi) {
        uint mid = (lo + hi) >> 1;
        if (sh_end[mid] <= j0 + dl - mid - 1u) lo = mid + 1u;
        else hi = mid;
    }
    uint r = lo, j = dl - lo, dend = min(dl + uint(E), na + nb);
    float acc = 0.0, first = 0.0;
    uint first_row = NONE;
    for (uint d = dl; d < dend; ++d) {
        if (r < na && sh_end[r] <= j0 + j) { // row i0 + r ends here
            if (first_row == NONE) first_row = r, first = acc;
            else ylin[i0 + r] = acc;
            acc = 0.0;
            ++r;
        } else {
            acc += sh_prod[j];
            ++j;
        }
    }
    // the open sums, scanned by row over the workgroup (rows non-decreasing with lid)
    uint key = i0 + r;
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
