// Moves ylin (y's texels as stored: float texel * 4 + channel, written by the scatter forms)
// into y's texture, one texel per invocation (plus u_f0.x times y's old texel when u_i0.z != 0),
// and leaves ylin zero for the next product. u_i0 = (texels, texels per row of y, beta on).
// UNPACK (defined): the other way, x's texels (u_src0) into xlin at binding 7, for the sparse
// variants that gather x from a storage buffer (texla_sparse_variant.xbuf); u_i0 = (texels,
// texels per row of x). UNPACK 2 (BSR): by block column instead, one vec4 per invocation: vec4 t
// holds floats 4 (t % NV) .. + 3 of block column t / NV (u_i1.y = NV vec4s a block column of
// u_i1.x = B K floats; floats past the block or past x's n are 0); u_i0 = (vec4s, texels per
// row of x, nx, n). UNPACK 3 (cols16): x in element order: a texel's cells
// (2 tx + (ch & 1), 2 ty + (ch >> 1)) of x's grid are elements cy nx + cx (those inside the
// grid and below n), two neighbouring texels' four cells of a grid row stored as one vec4 where
// nx is a multiple of 4, else a texel's two as one vec2 where nx is even (H200, restrict8's
// whole product, its x of 33.6 MB: four 4-byte stores a texel 77.8-78.8 us, 8-byte stores 70.2
// in the same call; then 8-byte 69.9-70.5, 16-byte 69.6 in another);
// u_i0 = (texels, texels per row of x, nx, n).
// UNPACK 1 and 3: a workgroup of 16 x 16 invocations takes a tile of 16 TPI x 16 texels of x's
// texture, each invocation TPI texels (UNPACK 1: 16 apart in a row; 3: two pairs of neighbours
// 32 apart), all read before any is stored (a 2D
// texture read in rows streams slower than in tiles, and one load in flight an invocation
// slower than several: BENCHMARKS, twenty-third session). H200, against a texel an invocation
// in rows: circuit's CSR a row 67.7 -> 66.3 us; restrict8's (x of 33.6 MB) 79.1 -> 79.0.
#define TPI 4
#if defined(UNPACK) && UNPACK != 2
layout(local_size_x = 16, local_size_y = 16) in;
#else
layout(local_size_x = 256) in;
#endif
#ifdef UNPACK
uniform sampler2D u_src0;
layout(std430, binding = 7) writeonly buffer Xlin { vec4 xlin[]; };
#if UNPACK == 3
layout(std430, binding = 7) writeonly buffer XlinF { float xlinf[]; };
layout(std430, binding = 7) writeonly buffer XlinH { vec2 xlinh[]; };
#endif
#else
layout(rgba32f, binding = 0) uniform image2D u_dst;
layout(std430, binding = 5) buffer Out { vec4 ylin[]; };
#endif

#if defined(UNPACK) && UNPACK == 3
// the cells of texel (tx, ty) in grid row 2 ty + h (v) into xlin in element order: one 8-byte
// store where nx is even (i even, cx + 1 < nx)
void put_cells(uint tx, uint ty, uint h, vec2 v, uint w, uint nx, uint n) {
    uint cx = 2u * tx, i = (2u * ty + h) * nx + cx;
    if (tx >= w || cx >= nx || i >= n) return;
    if ((nx & 1u) == 0u && i + 1u < n) xlinh[i >> 1u] = v;
    else {
        xlinf[i] = v.x;
        if (cx + 1u < nx && i + 1u < n) xlinf[i + 1u] = v.y;
    }
}
#endif

#if defined(UNPACK) && UNPACK != 2
// the texel of part j of this invocation's tile: UNPACK 3 two neighbouring texels at a time
// (where 2 tx + 3 < nx their cells of a grid row are 4 neighbouring elements), UNPACK 1 texels
// 16 apart
uint tile_x(int j) {
#if UNPACK == 3
    return gl_WorkGroupID.x * (16u * uint(TPI)) + 2u * gl_LocalInvocationID.x + 32u * uint(j >> 1) +
           uint(j & 1);
#else
    return gl_WorkGroupID.x * (16u * uint(TPI)) + gl_LocalInvocationID.x + 16u * uint(j);
#endif
}
#endif

void main() {
#if defined(UNPACK) && UNPACK != 2
    uint ty = gl_GlobalInvocationID.y, w = uint(u_i0.y);
    vec4 tv[TPI];
    for (int j = 0; j < TPI; ++j) {
        uint tx = tile_x(j);
        bool ok = tx < w && ty * w + tx < uint(u_i0.x);
        tv[j] = ok ? texelFetch(u_src0, ivec2(int(tx), int(ty)), 0) : vec4(0.0);
    }
#else
    uint t = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256u;
    if (t >= uint(u_i0.x)) return;
#endif
#if defined(UNPACK) && UNPACK == 3
    uint nx = uint(u_i0.z), n = uint(u_i0.w);
    for (int j = 0; j < TPI; j += 2) {
        // texels tx (even) and tx + 1: where nx is a multiple of 4 a grid row's 4 cells of them
        // are one aligned 16-byte store (i % 4 = 0; cx + 3 < nx and tx + 1 < w follow)
        uint tx = tile_x(j);
        bool q = (nx & 3u) == 0u && 2u * tx < nx;
        for (uint h = 0u; h < 2u; ++h) {
            uint i = (2u * ty + h) * nx + 2u * tx;
            vec2 a = h == 0u ? tv[j].xy : tv[j].zw, b = h == 0u ? tv[j + 1].xy : tv[j + 1].zw;
            if (q && i + 3u < n) xlin[i >> 2u] = vec4(a, b);
            else {
                put_cells(tx, ty, h, a, w, nx, n);
                put_cells(tx + 1u, ty, h, b, w, nx, n);
            }
        }
    }
#elif defined(UNPACK) && UNPACK == 2
    uint nx = uint(u_i0.z), n = uint(u_i0.w), bk = uint(u_i1.x), nv = uint(u_i1.y);
    uint J = t / nv, o = 4u * (t - J * nv);
    vec4 v = vec4(0.0);
    for (uint c = 0u; c < 4u; ++c) {
        uint f = J * bk + o + c, cy = f / nx, cx = f - cy * nx;
        if (o + c < bk && f < n)
            v[c] = texelFetch(u_src0, ivec2(int(cx >> 1), int(cy >> 1)), 0)[(cx & 1u) + 2u * (cy & 1u)];
    }
    xlin[t] = v;
#elif defined(UNPACK)
    for (int j = 0; j < TPI; ++j) {
        uint tx = tile_x(j);
        if (tx < w && ty * w + tx < uint(u_i0.x)) xlin[ty * w + tx] = tv[j];
    }
#else
    uint w = uint(u_i0.y);
    ivec2 pos = ivec2(int(t % w), int(t / w));
    vec4 v = ylin[t];
    ylin[t] = vec4(0.0);
    if (u_i0.z != 0) v += u_f0.x * imageLoad(u_dst, pos);
    imageStore(u_dst, pos, v);
#endif
}
