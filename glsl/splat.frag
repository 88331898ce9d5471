// Adds a Gaussian bump u_f0.w * exp(-d^2 / u_f0.z^2), d the distance of a cell to the point
// (u_f0.x, u_f0.y) in grid cells, to a 2D vector by blending; drawn over the bump's bounding
// rectangle only. Padding lanes get 0 (u_shape).
vec4 texla_op(ivec2 t) {
    vec4 cx = vec4(2 * t.x) + vec4(0.0, 1.0, 0.0, 1.0) - u_f0.x;
    vec4 cy = vec4(2 * t.y) + vec4(0.0, 0.0, 1.0, 1.0) - u_f0.y;
    return texla_mask(u_f0.w * exp(-(cx * cx + cy * cy) / (u_f0.z * u_f0.z)), t);
}
