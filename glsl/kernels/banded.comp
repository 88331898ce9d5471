// Banded product y = A x (+ s b) in one kernel over the diagonal textures (up to five per pass;
// further passes add to y), one invocation per output texel (four elements of the 2D layout).
// A texture holds the wrapped diagonal w: A(k, (k + w) mod n) at element k (see banded.frag).
// Element k is cell (cx, cy) of the grid, k = cy nx + cx; its partner j = (k + w) mod n is
// found by adding w = wy nx + wx cell-wise (carry, then wrap past n), no division. The
// diagonal texel is the output's own texel: read whole, one vec4 per texture.
// STENCIL 1: the constant 5-point stencil on the full nx x ny grid, y = c0 x + cW x(west) +
// cE x(east) + cS x(south) + cN x(north), zero across the grid's edges: five x texels per
// output texel, no diagonal read at all.
// Optionally the dot product x'y of the finished y (last pass) into the 1x1 image at unit 1:
// each workgroup sums its texels in a fixed tree, the last workgroup to finish sums the
// partial sums in index order (the same result run to run).
// u_shape = (1, n, nx) of y. u_i0 = (textures in this pass, flags, n / nx, n % nx); flags: bit
// 0 add s b (s = u_f0.x), bit 1 add to y (a later pass), bit 2 the dot product.
// u_i1.xyzw, u_i3.x: wx of textures 0..4; u_i2.xyzw, u_i3.y: wy; u_i3.zw y's texture size (a
// uniform: imageSize in every invocation costs the texture unit). Stencil: c0 = u_f0.y,
// (cW, cE, cS, cN) = u_f1. u_src0 = x, u_src1 = b, u_src2..u_src6 = the textures.
layout(local_size_x = 16, local_size_y = 16) in;
layout(rgba32f, binding = 0) uniform image2D u_dst;
layout(rgba32f, binding = 1) uniform image2D u_img1;
layout(std430, binding = 0) coherent buffer Scratch {
    uint count;
    uint pad0, pad1, pad2;
    float part[];
};
uniform ivec4 u_i3;
uniform sampler2D u_src0; // x
uniform sampler2D u_src1; // b
uniform sampler2D u_src2;
uniform sampler2D u_src3;
uniform sampler2D u_src4;
uniform sampler2D u_src5;
uniform sampler2D u_src6;

shared float red[256];
shared bool last_group;

// x at element (k + w) mod n, k at cell (cx, cy), w = wy nx + wx (0 <= wx < nx)
float shifted(int cx, int cy, int wx, int wy) {
    int nx = u_shape.z, ylast = u_i0.z, xlast = u_i0.w;
    int x = cx + wx, y = cy + wy;
    if (x >= nx) x -= nx, ++y;
    if (y > ylast || (y == ylast && x >= xlast)) { // past n: wrap around
        x -= xlast, y -= ylast;
        if (x < 0) x += nx, --y;
    }
    return texelFetch(u_src0, ivec2(x >> 1, y >> 1), 0)[(x & 1) + 2 * (y & 1)];
}

vec4 diag_terms(sampler2D d, ivec2 t, bvec4 live, int wx, int wy) {
    vec4 a = texelFetch(d, t, 0), v = vec4(0.0);
    for (int c = 0; c < 4; ++c)
        if (live[c]) v[c] = a[c] * shifted(2 * t.x + (c & 1), 2 * t.y + (c >> 1), wx, wy);
    return v;
}

void main() {
    ivec2 t = ivec2(gl_GlobalInvocationID.xy), size = u_i3.zw;
    bool inside = all(lessThan(t, size));
    int flags = u_i0.y;
    vec4 y = vec4(0.0), x0 = vec4(0.0);
    if (inside) {
        bvec4 live = texla_live(t);
        x0 = texelFetch(u_src0, t, 0);
#if STENCIL
        int nx = u_shape.z, ny = u_i0.z;
        ivec4 cx = 2 * t.x + ivec4(0, 1, 0, 1), cy = 2 * t.y + ivec4(0, 0, 1, 1);
        vec4 xw = t.x > 0 ? texelFetch(u_src0, t - ivec2(1, 0), 0) : vec4(0.0);
        vec4 xe = t.x + 1 < size.x ? texelFetch(u_src0, t + ivec2(1, 0), 0) : vec4(0.0);
        vec4 xs = t.y > 0 ? texelFetch(u_src0, t - ivec2(0, 1), 0) : vec4(0.0);
        vec4 xn = t.y + 1 < size.y ? texelFetch(u_src0, t + ivec2(0, 1), 0) : vec4(0.0);
        vec4 w = mix(vec4(0.0), vec4(xw.y, x0.x, xw.w, x0.z), greaterThan(cx, ivec4(0)));
        vec4 e = mix(vec4(0.0), vec4(x0.y, xe.x, x0.w, xe.z), lessThan(cx, ivec4(nx - 1)));
        vec4 s = mix(vec4(0.0), vec4(xs.z, xs.w, x0.x, x0.y), greaterThan(cy, ivec4(0)));
        vec4 n = mix(vec4(0.0), vec4(x0.z, x0.w, xn.x, xn.y), lessThan(cy, ivec4(ny - 1)));
        y = u_f0.y * x0 + u_f1.x * w + u_f1.y * e + u_f1.z * s + u_f1.w * n;
#else
        int nt = u_i0.x;
        if (nt > 0) y += diag_terms(u_src2, t, live, u_i1.x, u_i2.x);
        if (nt > 1) y += diag_terms(u_src3, t, live, u_i1.y, u_i2.y);
        if (nt > 2) y += diag_terms(u_src4, t, live, u_i1.z, u_i2.z);
        if (nt > 3) y += diag_terms(u_src5, t, live, u_i1.w, u_i2.w);
        if (nt > 4) y += diag_terms(u_src6, t, live, u_i3.x, u_i3.y);
#endif
        if ((flags & 1) != 0) y += u_f0.x * texelFetch(u_src1, t, 0);
        if ((flags & 2) != 0) y += imageLoad(u_dst, t);
        y = mix(vec4(0.0), y, live);
        imageStore(u_dst, t, y);
    }
    if ((flags & 4) == 0) return;
    uint lid = gl_LocalInvocationIndex;
    red[lid] = dot(y, x0);
    barrier();
    for (uint s = 128u; s > 0u; s >>= 1u) {
        if (lid < s) red[lid] += red[lid + s];
        barrier();
    }
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    if (lid == 0u) {
        part[gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x] = red[0];
        memoryBarrierBuffer();
        last_group = atomicAdd(count, 1u) == groups - 1u;
    }
    barrier();
    if (!last_group) return;
    memoryBarrierBuffer();
    float a = 0.0;
    for (uint q = lid; q < groups; q += 256u) a += part[q];
    barrier();
    red[lid] = a;
    barrier();
    for (uint s = 128u; s > 0u; s >>= 1u) {
        if (lid < s) red[lid] += red[lid + s];
        barrier();
    }
    if (lid == 0u) {
        imageStore(u_img1, ivec2(0, 0), vec4(red[0], 0.0, 0.0, 0.0));
        count = 0u;
    }
}
