// Shared by every program. The pass runner fills these uniform slots; each program's
// comment says what it reads from them.
uniform ivec4 u_i0;
uniform ivec4 u_i1;
uniform vec4 u_f0;
uniform vec4 u_f1;
// Layout of the destination, for the padding mask:
//   x = -1: no padding (every lane is live)
//   x =  0: dense 4x1 packing, y = rows        (texel (x, y) channel c is row 4y + c)
//   x =  1: 2D vector, 2x2 packing, y = N, z = Gx (channel c is grid cell (2x + c%2, 2y + c/2))
uniform ivec4 u_shape;

// Which lanes of texel t hold elements (true) and which are padding (false).
bvec4 texla_live(ivec2 t) {
    if (u_shape.x == 0)
        return lessThan(4 * t.y + ivec4(0, 1, 2, 3), ivec4(u_shape.y));
    if (u_shape.x == 1) {
        ivec4 gx = 2 * t.x + ivec4(0, 1, 0, 1);
        ivec4 gy = 2 * t.y + ivec4(0, 0, 1, 1);
        return bvec4(ivec4(lessThan(gy * u_shape.z + gx, ivec4(u_shape.y))) *
                     ivec4(lessThan(gx, ivec4(u_shape.z))));
    }
    return bvec4(true);
}

// v with its padding lanes forced to zero (a select, so Inf or NaN in v cannot leak).
vec4 texla_mask(vec4 v, ivec2 t) {
    return mix(vec4(0.0), v, texla_live(t));
}
