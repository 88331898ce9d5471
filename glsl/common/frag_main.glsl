// The fragment stage of an operation: one texel of the destination per fragment, written by
// the framebuffer (the pass runner sets the blend state: replace, add, or scale).
out vec4 o;
void main() {
    o = texla_op(ivec2(gl_FragCoord.xy));
}
