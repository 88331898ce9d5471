// One pass of C = A' * B: k MOPs of 4x4 blocks. A is K x n (texture n wide), B is K x m
// (texture m wide), both ceil(K/4) high; this fragment is C's texel (j, I): rows 4I..4I+3 of
// column j, i.e. columns 4I..4I+3 of A. Block t: A's texels (4I+r, t) dotted with B's (j, t);
// their padding lanes (rows past K-1) are zero on both sides.
// u_i0: x = first block t0, y = blocks in this pass, z = n. Columns of A past n-1 do not
// exist: those lanes of C are padding and stay 0.
uniform sampler2D u_src0; // A
uniform sampler2D u_src1; // B
vec4 texla_op(ivec2 t) {
    ivec2 p = t;
    int t0 = u_i0.x, t1 = u_i0.x + u_i0.y;
    int c = 4 * p.y, live = min(4, u_i0.z - c);
    vec4 acc = vec4(0.0);
    if (live == 4) {
        for (int t = t0; t < t1; ++t) {
            vec4 b = texelFetch(u_src1, ivec2(p.x, t), 0);
            acc += vec4(dot(texelFetch(u_src0, ivec2(c, t), 0), b),
                        dot(texelFetch(u_src0, ivec2(c + 1, t), 0), b),
                        dot(texelFetch(u_src0, ivec2(c + 2, t), 0), b),
                        dot(texelFetch(u_src0, ivec2(c + 3, t), 0), b));
        }
    } else {
        for (int t = t0; t < t1; ++t) {
            vec4 b = texelFetch(u_src1, ivec2(p.x, t), 0);
            acc.x += dot(texelFetch(u_src0, ivec2(c, t), 0), b);
            if (live > 1) acc.y += dot(texelFetch(u_src0, ivec2(c + 1, t), 0), b);
            if (live > 2) acc.z += dot(texelFetch(u_src0, ivec2(c + 2, t), 0), b);
        }
    }
    return acc;
}
