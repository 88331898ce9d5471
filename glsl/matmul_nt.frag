// One pass of C = A * B': k MOPs of 4x4 blocks. A is n x K (texture K wide), B is m x K
// (texture K wide, ceil(m/4) high); this fragment is C's texel (j, I). Row j of B is channel
// j%4 of B's texel row j/4, so block t of B' is that channel of texels (4t..4t+3, j/4).
// u_i0: x = first block t0, y = blocks in this pass, z = K. Texels past column K-1 of A and
// B do not exist: the last partial block is fetched guarded.
uniform sampler2D u_src0; // A
uniform sampler2D u_src1; // B
vec4 texla_op(ivec2 t) {
    ivec2 p = t;
    int t0 = u_i0.x, t1 = u_i0.x + u_i0.y, K = u_i0.z;
    int tfull = min(t1, K / 4);
    int by = p.x / 4, ch = p.x - 4 * by;
    vec4 acc = vec4(0.0);
    for (int t = t0; t < tfull; ++t) {
        int c = 4 * t;
        acc += texelFetch(u_src0, ivec2(c, p.y), 0) * texelFetch(u_src1, ivec2(c, by), 0)[ch];
        acc += texelFetch(u_src0, ivec2(c + 1, p.y), 0) * texelFetch(u_src1, ivec2(c + 1, by), 0)[ch];
        acc += texelFetch(u_src0, ivec2(c + 2, p.y), 0) * texelFetch(u_src1, ivec2(c + 2, by), 0)[ch];
        acc += texelFetch(u_src0, ivec2(c + 3, p.y), 0) * texelFetch(u_src1, ivec2(c + 3, by), 0)[ch];
    }
    if (tfull < t1) {
        int c = 4 * tfull;
        acc += texelFetch(u_src0, ivec2(c, p.y), 0) * texelFetch(u_src1, ivec2(c, by), 0)[ch];
        if (c + 1 < K)
            acc += texelFetch(u_src0, ivec2(c + 1, p.y), 0) * texelFetch(u_src1, ivec2(c + 1, by), 0)[ch];
        if (c + 2 < K)
            acc += texelFetch(u_src0, ivec2(c + 2, p.y), 0) * texelFetch(u_src1, ivec2(c + 2, by), 0)[ch];
    }
    return acc;
}
