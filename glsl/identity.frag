// Dense identity: o = 1 where row == column, 0 elsewhere and in padding (u_shape.y = rows).
vec4 texla_op(ivec2 t) {
    vec4 v = vec4(equal(4 * t.y + ivec4(0, 1, 2, 3), ivec4(t.x)));
    return texla_mask(v, t);
}
