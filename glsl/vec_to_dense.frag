// A 2D vector (u_src0: n elements, rows nx wide) to the dense n x 1 layout: row i = 4y + c.
// u_i0 = (n, nx); rows past n-1 stay 0.
uniform sampler2D u_src0;
vec4 texla_op(ivec2 t) {
    int y = t.y, n = u_i0.x, nx = u_i0.y;
    vec4 v = vec4(0.0);
    for (int c = 0; c < 4; ++c)
        if (4 * y + c < n) v[c] = texla_vec_fetch(u_src0, 4 * y + c, nx);
    return v;
}
