// y = A x (+ beta y) for a matrix stored as B x B dense blocks (BSR; B = 2, 3, 4; the 3x3
// blocks of FEM matrices) of real (K = 1) or complex (K = 2) entries. Block rows are in natural
// order; blocks past the matrix's edge are padded with zeros. One invocation per row (the
// seed's BSR design): it reads its row of each block and the B entries of x the block column
// covers. A workgroup covers a segment of WG K / 4 texels of one texel row of y: its
// invocations compute the rows of those texels (K = 1: 4 cells each; K = 2: two complex rows,
// .xy and .zw), meet in shared memory, and the segment's texels are written whole, so y is
// written without blending or atomics whatever B is.
//
// Variant: K; B; FMT 0 block CSR (bptr[block row] .. bptr[block row + 1]), 1 block ELL
// (column-major over block rows, stride NBR, bptr[block row] = its block count), 2 sliced block
// ELL (slices of 32 block rows, column-major within a slice, each slice as wide as its longest
// block row: bptr[block row] its count, bptr[NBR + 1 + slice] the slice's first block); SOA 1: float
// (r, c, part) of a block in plane (r B + c) K + part of NB blocks; WG. The grid: u_i3.x as in
// spmv_row.comp. Uniforms: u_i0 = (texels per row of y, segments per texel row, units, x's nx),
// u_i1 = (y's nx, y's n, NB, NBR), u_i2 = (x's n, 0, beta on), u_f0.x = beta (y = A x + beta y);
// n and nx count floats. Columns: the packed texel and channel of the first float of entry B J
// of x (J the block column); the next entries follow it along x's grid rows, K cells apart.
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
layout(std430, binding = 5) coherent buffer State {
    uint next;
    uint done;
};
#if XBUF
// XBUF: x's texels copied into a buffer (u_i3.y texels per row of x's texture)
layout(std430, binding = 7) readonly buffer Xlin { float xlin[]; };
#endif
uniform ivec4 u_i3;

shared VT sh[WG];
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
    uint i = (e * uint(B * B) + q) * 2u;
    return vec2(val[i], val[i + 1u]);
#endif
#endif
}

// row r of block e times the B entries of x its column covers
VT block_row(uint e, uint r, uint nxx, uint nx_n) {
    uint c = bcol[e];
    VT acc = VZERO;
    uint x0 = 2u * (c & 0x7FFFu) + ((c >> 30) & 1u);
    uint y0 = 2u * ((c >> 15) & 0x7FFFu) + (c >> 31);
    for (uint q = 0u; q < uint(B); ++q) {
        bool ok = y0 * nxx + x0 < nx_n;
        VT a = bval(e, r, q);
#if XBUF
        uint xi = ok ? ((y0 >> 1) * uint(u_i3.y) + (x0 >> 1)) * 4u : 0u;
#if K == 1
        float xv = xlin[xi + (x0 & 1u) + 2u * (y0 & 1u)];
#else
        xi += 2u * (y0 & 1u);
        vec2 xv = vec2(xlin[xi], xlin[xi + 1u]);
#endif
#else
        ivec2 t = ok ? ivec2(int(x0 >> 1), int(y0 >> 1)) : ivec2(0);
        vec4 tx = texelFetch(u_src0, t, 0);
#if K == 1
        float xv = tx[(x0 & 1u) + 2u * (y0 & 1u)];
#else
        vec2 xv = (y0 & 1u) == 0u ? tx.xy : tx.zw;
#endif
#endif
#if K == 1
        float p = a * xv;
#else
        vec2 p = vec2(a.x * xv.x - a.y * xv.y, a.x * xv.y + a.y * xv.x);
#endif
        acc += ok ? p : VZERO;
        x0 += uint(K);
        if (x0 >= nxx) {
            x0 -= nxx;
            ++y0;
        }
    }
    return acc;
}

void unit(uint u, uint lid) {
    uint S = uint(WG * K) / 4u, spr = uint(u_i0.y);
    uint ty = u / spr, a0 = (u - ty * spr) * S;
    uint per = uint(WG) / 2u; /* rows of one grid row in the segment */
    uint m = lid % per, h = lid / per;
    uint cx = 2u * a0 + m * uint(K), cy = 2u * ty + h;
    uint nxy = uint(u_i1.x), nxx = uint(u_i0.w), nx_n = uint(u_i2.x);
    VT acc = VZERO;
    if (cx < nxy) {
        uint k = (cy * nxy + cx) / uint(K);
        if (k * uint(K) < uint(u_i1.y)) {
            uint I = k / uint(B), r = k - I * uint(B);
#if FMT == 0
            uint e0 = bptr[I], n = bptr[I + 1u] - e0, st = 1u;
#elif FMT == 1
            uint e0 = I, n = bptr[I], st = uint(u_i1.w);
#else // sliced: slice I / 32 starts at bptr[NBR + 1 + I / 32]
            uint e0 = bptr[uint(u_i1.w) + 1u + (I >> 5)] + (I & 31u), n = bptr[I], st = 32u;
#endif
            // four blocks an iteration: straight-line code whose loads the compiler issues
            // together (one block an iteration waits for the memory each time)
            uint j = 0u;
            VT acc2 = VZERO;
            for (; j + 3u < n; j += 4u) {
                uint e = e0 + j * st;
                acc += block_row(e, r, nxx, nx_n) + block_row(e + 2u * st, r, nxx, nx_n);
                acc2 += block_row(e + st, r, nxx, nx_n) + block_row(e + 3u * st, r, nxx, nx_n);
            }
            for (; j < n; ++j) acc += block_row(e0 + j * st, r, nxx, nx_n);
            acc += acc2;
        }
    }
    sh[lid] = acc;
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
