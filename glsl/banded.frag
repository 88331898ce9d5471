// Up to four diagonals of a banded product y = A x (+ s b): for each live element k of the
// output (u_shape = (1, n, nx)), sum over the pass's diagonals i of diag_i[k] * x[k + d_i],
// terms whose column k + d_i falls outside 0..n-1 skipped. The shift is only a change of fetch
// coordinates: x[j] is cell (j mod nx, j div nx) of x.
// u_src0 = x; u_src1..u_src4 = the diagonals (same layout as y); u_src5 = b;
// u_i0 = the offsets d_0..d_3; u_i2.x = diagonals in this pass; u_i2.y = 1: add u_f0.x * b.
uniform sampler2D u_src0;
uniform sampler2D u_src1;
uniform sampler2D u_src2;
uniform sampler2D u_src3;
uniform sampler2D u_src4;
uniform sampler2D u_src5;

float term(sampler2D d, int off, ivec2 t, int c, int k) {
    int j = k + off;
    if (j < 0 || j >= u_shape.y) return 0.0;
    return texelFetch(d, t, 0)[c] * texla_vec_fetch(u_src0, j, u_shape.z);
}

vec4 texla_op(ivec2 t) {
    bvec4 live = texla_live(t);
    int nd = u_i2.x;
    vec4 v = vec4(0.0);
    for (int c = 0; c < 4; ++c) {
        if (!live[c]) continue;
        int k = (2 * t.y + c / 2) * u_shape.z + 2 * t.x + c % 2;
        float s = nd > 0 ? term(u_src1, u_i0.x, t, c, k) : 0.0;
        if (nd > 1) s += term(u_src2, u_i0.y, t, c, k);
        if (nd > 2) s += term(u_src3, u_i0.z, t, c, k);
        if (nd > 3) s += term(u_src4, u_i0.w, t, c, k);
        v[c] = s;
    }
    if (u_i2.y != 0) v += u_f0.x * texelFetch(u_src5, t, 0);
    return v;
}
