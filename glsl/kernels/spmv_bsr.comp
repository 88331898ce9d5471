// y = A x (+ beta y) for a real matrix stored as B x B dense blocks (BSR; B = 2, 3, 4; the 3x3
// blocks of FEM matrices). Block rows are in natural order; blocks past the matrix's edge are
// padded with zeros. One invocation per scalar row (the seed's BSR design): it reads its row of
// each block and the B elements of x the block column covers. A workgroup covers a segment of
// WG / 4 texels of one texel row of y: its invocations compute the 4 cells of each texel, meet
// in shared memory, and WG / 4 of them write whole texels, so y is written without blending or
// atomics whatever B is.
//
// Variant: B; FMT 0 block CSR (bptr[block row] .. bptr[block row + 1]), 1 block ELL
// (column-major over block rows, stride NBR, bptr[block row] = its block count); SOA 1: block
// element (r, c) in plane r * B + c of NB blocks; WG. The grid: u_i3.x as in spmv_row.comp.
// Uniforms: u_i0 = (texels per row of y, segments per texel row, units, x's nx),
// u_i1 = (y's nx, y's n, NB, NBR), u_i2 = (x's n, 0, beta on), u_f0.x = beta (y = A x + beta y). Columns: the packed texel and channel of
// element B * J of x (J the block column); the next ones follow it along x's grid rows.
layout(local_size_x = WG) in;
layout(rgba32f, binding = 0) uniform image2D u_dst;
uniform sampler2D u_src0;

layout(std430, binding = 0) readonly buffer Ptr { uint bptr[]; };
layout(std430, binding = 1) readonly buffer Col { uint bcol[]; };
layout(std430, binding = 2) readonly buffer Val { float val[]; };
layout(std430, binding = 5) coherent buffer State {
    uint next;
    uint done;
};
uniform ivec4 u_i3;

shared float sh[WG];
shared uint sh_next;
shared bool sh_last;

float bval(uint e, uint r, uint c) {
#if SOA
    return val[(r * uint(B) + c) * uint(u_i1.z) + e];
#else
    return val[(e * uint(B) + r) * uint(B) + c];
#endif
}

void unit(uint u, uint lid) {
    uint S = uint(WG) / 4u, spr = uint(u_i0.y);
    uint ty = u / spr, a0 = (u - ty * spr) * S;
    uint m = lid % (2u * S), h = lid / (2u * S);
    uint cx = 2u * a0 + m, cy = 2u * ty + h;
    uint nxy = uint(u_i1.x), nxx = uint(u_i0.w), nx_n = uint(u_i2.x);
    float acc = 0.0;
    if (cx < nxy) {
        uint k = cy * nxy + cx;
        if (k < uint(u_i1.y)) {
            uint I = k / uint(B), r = k - I * uint(B);
#if FMT == 0
            uint e0 = bptr[I], n = bptr[I + 1u] - e0, st = 1u;
#else
            uint e0 = I, n = bptr[I], st = uint(u_i1.w);
#endif
            for (uint j = 0u; j < n; ++j) {
                uint e = e0 + j * st, c = bcol[e];
                uint x0 = 2u * (c & 0x7FFFu) + ((c >> 30) & 1u);
                uint y0 = 2u * ((c >> 15) & 0x7FFFu) + (c >> 31);
                for (uint q = 0u; q < uint(B); ++q) {
                    bool ok = y0 * nxx + x0 < nx_n;
                    ivec2 t = ok ? ivec2(int(x0 >> 1), int(y0 >> 1)) : ivec2(0);
                    float xv = texelFetch(u_src0, t, 0)[(x0 & 1u) + 2u * (y0 & 1u)];
                    float p = bval(e, r, q) * xv;
                    acc += ok ? p : 0.0;
                    if (++x0 >= nxx) {
                        x0 = 0u;
                        ++y0;
                    }
                }
            }
        }
    }
    sh[lid] = acc;
    barrier();
    if (lid < S && a0 + lid < uint(u_i0.x)) {
        uint b = 2u * lid;
        vec4 t = vec4(sh[b], sh[b + 1u], sh[2u * S + b], sh[2u * S + b + 1u]);
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
