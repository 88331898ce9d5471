// dst = src' on 4x1-packed textures: src is r x c (texel (j, I) holds rows 4I..4I+3 of column
// j), dst c x r. A 4 x 4 block of the matrix is 4 texels side by side in src and 4 texels side
// by side in dst, so one workgroup stages a TW x TH tile of src's texels (TW columns x 4 TH
// rows) in shared memory and writes the same block of dst, TH texel rows of TW texels: both
// the reads and the writes run along texel rows (coalesced), each invocation reading one whole
// texel and writing one whole texel.
// Uniforms: u_i0 = (r, c). u_src0 = src (c x ceil(r/4) texels), image unit 0 = dst
// (r x ceil(c/4) texels). Padding lanes of dst (rows >= c) are written as zero.
#define TW 32 // texel columns of src per tile (a multiple of 4)
#define TH 8  // texel rows of src per tile: 4 TH = TW matrix rows, so dst's tile is TW wide too
layout(local_size_x = TW, local_size_y = TH) in;
layout(rgba32f, binding = 0) uniform image2D u_dst;
uniform sampler2D u_src0;

shared vec4 S[TH][TW];

void main() {
    int r = u_i0.x, c = u_i0.y;
    int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y);
    int x0 = int(gl_WorkGroupID.x) * TW, y0 = int(gl_WorkGroupID.y) * TH;
    ivec2 p = ivec2(x0 + tx, y0 + ty);
    S[ty][tx] = p.x < c && p.y < (r + 3) / 4 ? texelFetch(u_src0, p, 0) : vec4(0.0);
    barrier();
    // dst texel (4 y0 + tx, x0 / 4 + ty): column i = 4 y0 + tx of dst is row i of src, its
    // lanes q rows x0 + 4 ty + q of dst, columns of src
    ivec2 o = ivec2(4 * y0 + tx, x0 / 4 + ty);
    if (o.x >= r || o.y >= (c + 3) / 4) return;
    int ti = tx >> 2, ch = tx & 3;
    vec4 v = vec4(S[ti][4 * ty + 0][ch], S[ti][4 * ty + 1][ch], S[ti][4 * ty + 2][ch],
                  S[ti][4 * ty + 3][ch]);
    imageStore(u_dst, o, v);
}
