// Complex GPU scalars: (re, im) in .xy of a 1x1 texture. a = u_src0, b = u_src1.
// u_i0.x: 0 a / b, 1 a * b, 2 (a.x, b.x) (packs two real scalars into one complex).
uniform sampler2D u_src0;
uniform sampler2D u_src1;
vec4 texla_op(ivec2 t) {
    vec2 a = texelFetch(u_src0, ivec2(0, 0), 0).xy, b = texelFetch(u_src1, ivec2(0, 0), 0).xy;
    vec2 r;
    if (u_i0.x == 0) {
        // scaled by the larger part of b so that |b|^2 neither overflows nor underflows early
        float m = max(abs(b.x), abs(b.y));
        vec2 c = b / m, d = a / m;
        r = vec2(d.x * c.x + d.y * c.y, d.y * c.x - d.x * c.y) / dot(c, c);
    } else if (u_i0.x == 1) {
        r = vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
    } else {
        r = vec2(a.x, b.x);
    }
    return vec4(r, 0.0, 0.0);
}
