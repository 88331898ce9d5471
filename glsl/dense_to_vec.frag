// A dense n x 1 vector (u_src0) to the 2D layout of the destination (u_shape = (1, n, nx)):
// live lane c of texel t is element k = cy*nx + cx, row k of the dense vector (texel (0, k/4),
// channel k%4). Padding lanes stay 0.
uniform sampler2D u_src0;
vec4 texla_op(ivec2 t) {
    bvec4 live = texla_live(t);
    vec4 v = vec4(0.0);
    for (int c = 0; c < 4; ++c) {
        if (!live[c]) continue;
        int k = (2 * t.y + c / 2) * u_shape.z + 2 * t.x + c % 2;
        v[c] = texelFetch(u_src0, ivec2(0, k / 4), 0)[k % 4];
    }
    return v;
}
