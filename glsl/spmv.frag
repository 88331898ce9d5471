// The sparse product's gather form for the fragment backend (GL 3.3): one fragment per texel of
// y sums the rows of its four cells. The matrix (real; compound entries as their real
// expansion) lives in two RGBA32F textures: u_src1, twice y's width, holds per texel of y the
// first entry of its four rows, stored one after another (x, y of that entry's texel in
// u_src2), and the four rows' lengths: (first.x, first.y, n0, n1), (n2, n3, 0, 0); u_src2 holds
// the entries, 2^u_i0.x per texture row, each (value, column texel x, column texel y, channel),
// all exact integers in float. x is u_src0. Padding lanes have no entries: they stay 0.
uniform sampler2D u_src0;
uniform sampler2D u_src1;
uniform sampler2D u_src2;
vec4 texla_op(ivec2 t) {
    vec4 a = texelFetch(u_src1, ivec2(2 * t.x, t.y), 0);
    vec4 b = texelFetch(u_src1, ivec2(2 * t.x + 1, t.y), 0);
    int shift = u_i0.x, mask = (1 << shift) - 1;
    int e = (int(a.y) << shift) + int(a.x);
    vec4 n = vec4(a.z, a.w, b.x, b.y);
    vec4 r = vec4(0.0);
    for (int c = 0; c < 4; ++c) {
        float s = 0.0;
        for (int i = int(n[c]); i > 0; --i, ++e) {
            vec4 q = texelFetch(u_src2, ivec2(e & mask, e >> shift), 0);
            s += q.x * texelFetch(u_src0, ivec2(q.yz), 0)[int(q.w)];
        }
        r[c] = s;
    }
    return r;
}
