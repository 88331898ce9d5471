// The projection of the bounded projected-Jacobi step (contacts with friction), for dense n x 1
// vectors: row i of v (u_src0) is a normal impulse when index[i] (u_src1) < 0 -> max(0, v_i);
// else a friction impulse of the normal row j = index[i] -> clamp(v_i, -mu_i * n_j, mu_i * n_j)
// with n_j = max(0, v_j) the projected normal impulse and mu_i = u_src2. u_i0.x = n; rows past
// n-1 stay 0.
uniform sampler2D u_src0; // v
uniform sampler2D u_src1; // index
uniform sampler2D u_src2; // mu
vec4 texla_op(ivec2 t) {
    int y = t.y, n = u_i0.x;
    vec4 v = texelFetch(u_src0, ivec2(0, y), 0), idx = texelFetch(u_src1, ivec2(0, y), 0);
    vec4 mu = texelFetch(u_src2, ivec2(0, y), 0), r = vec4(0.0);
    for (int c = 0; c < 4; ++c) {
        if (4 * y + c >= n) break;
        int j = int(idx[c]);
        if (j < 0) {
            r[c] = max(v[c], 0.0);
        } else {
            float nj = max(texelFetch(u_src0, ivec2(0, j / 4), 0)[j % 4], 0.0);
            r[c] = clamp(v[c], -mu[c] * nj, mu[c] * nj);
        }
    }
    return r;
}
