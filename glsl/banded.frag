// Up to four diagonal textures of a banded product y = A x (+ s b): for each live element k of
// the output (u_shape = (1, n, nx)), the sum over the pass's textures i of diag_i[k] * x[j],
// j = (k + w_i) mod n. A texture holds the wrapped diagonal w (GPU Gems 2 ch. 44): diagonal w
// in elements 0 .. n-w-1 and its partner w - n in the rest, so no term leaves the matrix. The
// shift is only a change of fetch coordinates: x[j] is cell (j mod nx, j div nx) of x.
// u_src0 = x; u_src1..u_src4 = the textures (same layout as y); u_src5 = b;
// u_i0 = the wrapped offsets w_0..w_3 (0 <= w < n); u_i2.x = textures in this pass;
// u_i2.y = 1: add u_f0.x * b.
uniform sampler2D u_src0;
uniform sampler2D u_src1;
uniform sampler2D u_src2;
uniform sampler2D u_src3;
uniform sampler2D u_src4;
uniform sampler2D u_src5;

float term(sampler2D d, int w, ivec2 t, int c, int k) {
    int j = k >= u_shape.y - w ? k - (u_shape.y - w) : k + w; // (k + w) mod n, no overflow
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
