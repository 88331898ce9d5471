// The compute stage of the same operation (the second backend): one invocation per texel of
// the rectangle u_rect (origin xy, size zw) of the destination image, which is bound read-write
// to image unit 0. Blending is done here: u_blend 0 replace, 1 add, 2 scale by u_blend_scale.
// An invocation reads and writes only its own texel of the destination.
layout(local_size_x = 16, local_size_y = 16) in;
layout(rgba32f, binding = 0) uniform image2D u_dst;
uniform ivec4 u_rect;
uniform int u_blend;
uniform float u_blend_scale;
void main() {
    ivec2 t = ivec2(gl_GlobalInvocationID.xy);
    if (t.x >= u_rect.z || t.y >= u_rect.w) return;
    t += u_rect.xy;
    vec4 v;
    if (u_blend == 2) v = imageLoad(u_dst, t) * u_blend_scale;
    else v = texla_op(t);
    if (u_blend == 1) v += imageLoad(u_dst, t);
    imageStore(u_dst, t, v);
}
