// One pass of C = A * B: k "MOPs", each a 4x4 block of A times a 4x1 block of B.
// A is n x K (texture K wide), B is K x m (texture m wide); this fragment is C's texel
// (j, I): rows 4I..4I+3 of column j.
// u_i0: x = first block t0, y = blocks in this pass, z = K.
// Block t covers A's columns 4t..4t+3 and B's texel (j, t). B's padding lanes are zero, but
// A's texels past column K-1 do not exist, so the last partial block is fetched guarded.
uniform sampler2D u_src0; // A
uniform sampler2D u_src1; // B
vec4 texla_op(ivec2 t) {
    ivec2 p = t;
    int t0 = u_i0.x, t1 = u_i0.x + u_i0.y, K = u_i0.z;
    int tfull = min(t1, K / 4);
    vec4 acc = vec4(0.0);
    for (int t = t0; t < tfull; ++t) {
        vec4 b = texelFetch(u_src1, ivec2(p.x, t), 0);
        int c = 4 * t;
        acc += texelFetch(u_src0, ivec2(c, p.y), 0) * b.x;
        acc += texelFetch(u_src0, ivec2(c + 1, p.y), 0) * b.y;
        acc += texelFetch(u_src0, ivec2(c + 2, p.y), 0) * b.z;
        acc += texelFetch(u_src0, ivec2(c + 3, p.y), 0) * b.w;
    }
    if (tfull < t1) { // the partial block t = K/4: columns 4t .. K-1
        int c = 4 * tfull;
        vec4 b = texelFetch(u_src1, ivec2(p.x, tfull), 0);
        acc += texelFetch(u_src0, ivec2(c, p.y), 0) * b.x;
        if (c + 1 < K) acc += texelFetch(u_src0, ivec2(c + 1, p.y), 0) * b.y;
        if (c + 2 < K) acc += texelFetch(u_src0, ivec2(c + 2, p.y), 0) * b.z;
    }
    return acc;
}
