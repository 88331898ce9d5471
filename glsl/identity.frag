// Dense identity: o = 1 where row == column, 0 elsewhere and in padding (u_shape.y = rows).
out vec4 o;
void main() {
    ivec2 t = ivec2(gl_FragCoord.xy);
    vec4 v = vec4(equal(4 * t.y + ivec4(0, 1, 2, 3), ivec4(t.x)));
    o = texla_mask(v, t);
}
