// Benchmark only: the fragment path's arithmetic ceiling. Four independent vec4 chains of
// u_i0.x multiply-adds each: 32 flops per iteration per fragment.
out vec4 o;
void main() {
    vec4 x0 = gl_FragCoord.xyxy * 1e-3, x1 = x0 + 1.0, x2 = x0 + 2.0, x3 = x0 + 3.0;
    for (int i = 0; i < u_i0.x; ++i) {
        x0 = x0 * u_f0 + u_f1;
        x1 = x1 * u_f0 + u_f1;
        x2 = x2 * u_f0 + u_f1;
        x3 = x3 * u_f0 + u_f1;
    }
    o = x0 + x1 + x2 + x3;
}
