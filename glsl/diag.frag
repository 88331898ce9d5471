// The diagonal of a dense n x n matrix A (u_src0) as a dense n x 1 vector: row i = 4y + c of
// the output is A(i, i), texel (i, y) of A, channel c. u_i0.x = n; rows past n-1 stay 0.
uniform sampler2D u_src0;
vec4 texla_op(ivec2 t) {
    int y = t.y, n = u_i0.x;
    vec4 v = vec4(0.0);
    for (int c = 0; c < 4; ++c)
        if (4 * y + c < n) v[c] = texelFetch(u_src0, ivec2(4 * y + c, y), 0)[c];
    return v;
}
