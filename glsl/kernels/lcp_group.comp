// Many projected Jacobi steps of a small matrix-free LCP in one workgroup and one dispatch
// (texla_op_lcp_iterate, storage/splcp.c): x <- project(x + (A x + b) .* e), u_i1.x times, A
// sparse (MID 0) or A = L R with L and R sparse (MID 1), each as CSR in natural row order with
// packed columns (as glsl/kernels/lcp_sparse.comp reads them). x (and R x) live in shared memory
// for all the steps: a step costs a few barriers instead of the two dispatches of
// lcp_sparse.comp, which on the H100 dominate a step of a few thousand rows. The projection is
// texla_vec_lcp_step's: a row with index[i] = j (0 <= j < n, BOUNDED) is clamped to
// [-mu_i n_j, mu_i n_j], n_j = max(0, v_j) with v the step's value before projection; other
// rows max(0, v_i). Each row is summed by one invocation in stored order: the same result run
// to run, and the same as lcp_sparse.comp's with L = 1.
// Defines: WG invocations, XS >= n and MS >= R's rows (shared floats), MID, BOUNDED.
// u_src0..4 = x, b, e, index, mu (the vector layout); u_i0 = (n, nx (the vectors' row width),
// dst's texels per row, dst's texels); u_i1 = (steps, R's rows, L's column layout's row width);
// buffers 0..2 L's (or A's) row starts, packed columns, values; 3..5 R's. dst at image unit 0:
// every texel written, padding lanes 0.
layout(local_size_x = WG) in;
layout(rgba32f, binding = 0) uniform writeonly image2D u_dst;
uniform sampler2D u_src0;
uniform sampler2D u_src1;
uniform sampler2D u_src2;
uniform sampler2D u_src3;
uniform sampler2D u_src4;

layout(std430, binding = 0) readonly buffer LPtr { uint lptr[]; };
layout(std430, binding = 1) readonly buffer LCol { uint lcol[]; };
layout(std430, binding = 2) readonly buffer LVal { float lval[]; };
#if MID
layout(std430, binding = 3) readonly buffer RPtr { uint rptr[]; };
layout(std430, binding = 4) readonly buffer RCol { uint rcol[]; };
layout(std430, binding = 5) readonly buffer RVal { float rval[]; };
shared float ms[MS];
#endif
shared float xs[XS];

#define RPT ((XS + WG - 1) / WG) // rows per invocation at most

// the element a packed column (texel, channel) names in a layout of row width w
uint element(uint c, uint w) {
    uint cx = 2u * (c & 0x7FFFu) + ((c >> 30) & 1u), cy = 2u * ((c >> 15) & 0x7FFFu) + (c >> 31);
    return cy * w + cx;
}

float at(sampler2D s, int k, int nx) {
    ivec3 l = texla_vec_locate(k, nx);
    return texelFetch(s, l.xy, 0)[l.z];
}

void main() {
    int lid = int(gl_LocalInvocationID.x);
    int n = u_i0.x, nx = u_i0.y, steps = u_i1.x;
    uint wx = uint(nx);
    for (int i = lid; i < n; i += WG) xs[i] = at(u_src0, i, nx);
    float bb[RPT], ee[RPT], mm[RPT];
    int jj[RPT];
    for (int q = 0; q < RPT; ++q) {
        int i = lid + q * WG;
        bb[q] = 0.0, ee[q] = 0.0, mm[q] = 0.0, jj[q] = -1;
        if (i < n) {
            bb[q] = at(u_src1, i, nx);
            ee[q] = at(u_src2, i, nx);
#if BOUNDED
            int j = int(at(u_src3, i, nx));
            if (j >= 0 && j < n) jj[q] = j;
            mm[q] = at(u_src4, i, nx);
#endif
        }
    }
    barrier();
    for (int it = 0; it < steps; ++it) {
#if MID
        int k = u_i1.y;
        uint wm = uint(u_i1.z);
        for (int r = lid; r < k; r += WG) {
            float s = 0.0;
            uint e1 = rptr[r + 1];
            for (uint e = rptr[r]; e < e1; ++e) s += rval[e] * xs[element(rcol[e], wx)];
            ms[r] = s;
        }
        barrier();
#endif
        float v[RPT];
        for (int q = 0; q < RPT; ++q) {
            int i = lid + q * WG;
            v[q] = 0.0;
            if (i < n) {
                float w = 0.0;
                uint e1 = lptr[i + 1];
                for (uint e = lptr[i]; e < e1; ++e)
#if MID
                    w += lval[e] * ms[element(lcol[e], wm)];
#else
                    w += lval[e] * xs[element(lcol[e], wx)];
#endif
                v[q] = xs[i] + (w + bb[q]) * ee[q];
            }
        }
        barrier(); // every read of x done: x becomes v
        for (int q = 0; q < RPT; ++q)
            if (lid + q * WG < n) xs[lid + q * WG] = v[q];
        barrier();
        for (int q = 0; q < RPT; ++q) {
            float o = max(v[q], 0.0);
            if (jj[q] >= 0) {
                float nj = max(xs[jj[q]], 0.0);
                o = clamp(v[q], -mm[q] * nj, mm[q] * nj);
            }
            v[q] = o;
        }
        barrier(); // every read of v done: x becomes the projection
        for (int q = 0; q < RPT; ++q)
            if (lid + q * WG < n) xs[lid + q * WG] = v[q];
        barrier();
    }
    int tw = u_i0.z, texels = u_i0.w;
    for (int t = lid; t < texels; t += WG) {
        ivec2 tp = ivec2(t % tw, t / tw);
        vec4 o = vec4(0.0);
        for (int c = 0; c < 4; ++c) {
            int cx = 2 * tp.x + (c & 1), cy = 2 * tp.y + (c >> 1), k = cy * nx + cx;
            if (cx < nx && k < n) o[c] = xs[k];
        }
        imageStore(u_dst, tp, o);
    }
}
