// Keeps the GPU busy, doing nothing of use, for a calibrated time: the sparse tuner queues it
// before the host builds a storage (tenths of a second), so the GPU's clocks, which follow its
// load, are still up when the next candidate is timed. u_i0.x multiply-adds per invocation, a
// chain each; the result goes nowhere (the store never happens, but the compiler cannot know).
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer Sink { float sink[]; };

void main() {
    float x = float(gl_LocalInvocationID.x) * 1e-3;
    for (int i = 0; i < u_i0.x; ++i) x = x * 0.9999 + 1e-4;
    if (x < -1.0) sink[0] = x;
}
