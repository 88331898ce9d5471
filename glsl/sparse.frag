// Writes a point's partial row product into its row's channel only; the pass adds by blending.
flat in float v_sum;
flat in int v_channel;
out vec4 o;
void main() {
    vec4 v = vec4(0.0);
    v[v_channel] = v_sum;
    o = v;
}
