// One projected Jacobi step on 2D vectors (texla_vec_lcp_step): dst = project(v) with
// v = x + (w + b) .* e; u_src0..3 = x, w, b, e; u_i0.x = n, .y = nx (the vectors' row width),
// .z = 1: bounded, u_src4 = index, u_src5 = mu. A row with 0 <= index[i] = j < n is a friction
// row of normal row j: clamp(v_i, -mu_i n_j, mu_i n_j), n_j = max(0, v_j) computed here from
// the inputs at element j (so the pass reads no value it writes); other rows max(0, v_i).
uniform sampler2D u_src0; // x
uniform sampler2D u_src1; // w = A x
uniform sampler2D u_src2; // b
uniform sampler2D u_src3; // e = -omega / diag(A)
uniform sampler2D u_src4; // index (bounded)
uniform sampler2D u_src5; // mu (bounded)
vec4 texla_op(ivec2 t) {
    vec4 v = texelFetch(u_src0, t, 0) +
        (texelFetch(u_src1, t, 0) + texelFetch(u_src2, t, 0)) * texelFetch(u_src3, t, 0);
    if (u_i0.z == 0) return texla_mask(max(v, vec4(0.0)), t);
    vec4 idx = texelFetch(u_src4, t, 0), mu = texelFetch(u_src5, t, 0), r;
    for (int c = 0; c < 4; ++c) {
        int j = int(idx[c]);
        if (j < 0 || j >= u_i0.x) {
            r[c] = max(v[c], 0.0);
        } else {
            ivec3 l = texla_vec_locate(j, u_i0.y);
            float vj = texelFetch(u_src0, l.xy, 0)[l.z] +
                (texelFetch(u_src1, l.xy, 0)[l.z] + texelFetch(u_src2, l.xy, 0)[l.z]) *
                texelFetch(u_src3, l.xy, 0)[l.z];
            float nj = max(vj, 0.0);
            r[c] = clamp(v[c], -mu[c] * nj, mu[c] * nj);
        }
    }
    return texla_mask(r, t);
}
