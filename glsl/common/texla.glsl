// Shared by every program. The pass runner fills these uniform slots; each program's
// comment says what it reads from them.
uniform ivec4 u_i0;
uniform ivec4 u_i1;
uniform ivec4 u_i2;
uniform vec4 u_f0;
uniform vec4 u_f1;
// Layout of the destination, for the padding mask:
//   x = -1: no padding (every lane is live)
//   x =  0: dense 4x1 packing, y = rows     (texel (x, y) channel c is row 4y + c)
//   x =  1: 2D vector, y = n, z = nx        (channel c is cell (2x + c%2, 2y + c/2); the cell
//                                           (cx, cy) is element cy*nx + cx when cx < nx)
uniform ivec4 u_shape;
// GPU scalar coefficients: bit i of u_coef set means u_f0[i] is multiplied by the scalar in
// u_coef_src (a 1x1 texture, value in .x).
uniform int u_coef;
uniform sampler2D u_coef_src;

// Which lanes of texel t hold elements (true) and which are padding (false).
bvec4 texla_live(ivec2 t) {
    if (u_shape.x == 0)
        return lessThan(4 * t.y + ivec4(0, 1, 2, 3), ivec4(u_shape.y));
    if (u_shape.x == 1) {
        ivec4 cx = 2 * t.x + ivec4(0, 1, 0, 1);
        ivec4 cy = 2 * t.y + ivec4(0, 0, 1, 1);
        return bvec4(ivec4(lessThan(cy * u_shape.z + cx, ivec4(u_shape.y))) *
                     ivec4(lessThan(cx, ivec4(u_shape.z))));
    }
    return bvec4(true);
}

// NaN and non-finite tests on the bits: a compiler may take x != x, isnan and isinf as false
// (fast math), integer operations it leaves alone.
bool texla_isnan(float x) { return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u; }
bvec4 texla_nonfinite(vec4 x) {
    return greaterThanEqual(floatBitsToUint(x) & uvec4(0x7fffffffu), uvec4(0x7f800000u));
}

// max and min that return a NaN operand when there is one (numpy's rule; GLSL leaves max and
// min of NaN undefined): reduce.comp's folds across invocations (its per-element loops and
// reduce.frag fold with plain max/min and keep the NaN beside, cheaper per element).
float texla_max_nan(float a, float b) {
    return texla_isnan(a) ? a : texla_isnan(b) ? b : max(a, b);
}
float texla_min_nan(float a, float b) {
    return texla_isnan(a) ? a : texla_isnan(b) ? b : min(a, b);
}

// v with its padding lanes forced to zero (a select, so Inf or NaN in v cannot leak).
vec4 texla_mask(vec4 v, ivec2 t) {
    return mix(vec4(0.0), v, texla_live(t));
}

// u_f0 with the GPU scalar applied where u_coef says.
vec4 texla_coefs() {
    if (u_coef == 0) return u_f0;
    float s = texelFetch(u_coef_src, ivec2(0, 0), 0).x;
    return mix(u_f0, u_f0 * s, notEqual(ivec4(u_coef) & ivec4(1, 2, 4, 8), ivec4(0)));
}

// The complex product p q (.x real, .y imaginary parts) and the Hamilton product a x of
// quaternions (w, x, y, z): the sparse kernels' entry times x, the complex vectors' products.
vec2 texla_cmul(vec2 p, vec2 q) { return vec2(p.x * q.x - p.y * q.y, p.x * q.y + p.y * q.x); }
vec4 texla_qmul(vec4 a, vec4 x) {
    return vec4(a.x * x.x - a.y * x.y - a.z * x.z - a.w * x.w,
                a.x * x.y + a.y * x.x + a.z * x.w - a.w * x.z,
                a.x * x.z - a.y * x.w + a.z * x.x + a.w * x.y,
                a.x * x.w + a.y * x.z - a.z * x.y + a.w * x.x);
}

// Element k of a 2D vector whose logical rows are nx wide: its texel (xy) and channel (z).
ivec3 texla_vec_locate(int k, int nx) {
    int cy = k / nx, cx = k - cy * nx;
    return ivec3(cx / 2, cy / 2, (cx & 1) + 2 * (cy & 1));
}

float texla_vec_fetch(sampler2D s, int k, int nx) {
    ivec3 l = texla_vec_locate(k, nx);
    return texelFetch(s, l.xy, 0)[l.z];
}
