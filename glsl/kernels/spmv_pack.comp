// Moves ylin (y's texels as stored: float texel * 4 + channel, written by the scatter forms)
// into y's texture, one texel per invocation (plus u_f0.x times y's old texel when u_i0.z != 0),
// and leaves ylin zero for the next product. u_i0 = (texels, texels per row of y, beta on).
// UNPACK (defined): the other way, x's texels (u_src0) into xlin at binding 7, for the sparse
// variants that gather x from a storage buffer (texla_sparse_variant.xbuf); u_i0 = (texels,
// texels per row of x).
layout(local_size_x = 256) in;
#ifdef UNPACK
uniform sampler2D u_src0;
layout(std430, binding = 7) writeonly buffer Xlin { vec4 xlin[]; };
#else
layout(rgba32f, binding = 0) uniform image2D u_dst;
layout(std430, binding = 5) buffer Out { vec4 ylin[]; };
#endif

void main() {
    uint t = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256u;
    if (t >= uint(u_i0.x)) return;
    uint w = uint(u_i0.y);
    ivec2 pos = ivec2(int(t % w), int(t / w));
#ifdef UNPACK
    xlin[t] = texelFetch(u_src0, pos, 0);
#else
    vec4 v = ylin[t];
    ylin[t] = vec4(0.0);
    if (u_i0.z != 0) v += u_f0.x * imageLoad(u_dst, pos);
    imageStore(u_dst, pos, v);
#endif
}
