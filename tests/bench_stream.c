/* bench_stream.c - texla-bench section "stream": how fast plain GL compute shaders READ on this
 * GPU (ceilings, written here as plain GL, not texla code).
 *  1. A large array of vec4s. Each variant sums its loads and writes only when the sum hits an
 *     impossible value, so the loads stay and the writes cost nothing. Variants: where the data
 *     lives (an SSBO; a 2D RGBA32F texture 16384 texels wide, texelFetch; a buffer texture over
 *     the same SSBO), loads per invocation K (all issued before the sums), the workgroup size,
 *     and the order (grid: load k of invocation i at i + k * invocations; block: a workgroup
 *     reads K * size consecutive vec4s; loop: a fixed grid of 8 x 256 invocations an SM of a
 *     132-SM GPU strides over the array, K loads an iteration). These dispatches run back to
 *     back with no barrier between them, so they overlap; then the SSBO read with a
 *     glMemoryBarrier after each dispatch (texla's runner issues one after every pass: each
 *     dispatch then ends before the next starts, as CUDA kernels of one stream do), the same
 *     bytes as floats and vec2s, one workgroup's dispatch (the fixed cost of a pass), and the 2D
 *     texture read by 2D workgroups of several shapes (texelFetch, imageLoad).
 *  2. Block ELL's values (complex 3x3 blocks, complex3x3's shape): texla's BSR pattern (one
 *     invocation a scalar row, its row of each block as three vec2 loads), then with the block
 *     columns, complex products and y stored, x gathered from an SSBO or a 2D texture, y written
 *     by texla's texel segments (shared memory, imageStore), with and without barriers; and a
 *     tile of block rows staged through shared memory with whole vec4 loads.
 *  3. R-MAT's columns and values (2^21 rows, 2^24 entries) streamed with 4- or 16-byte loads,
 *     x gathered at the columns from a texla-style 2D texture or an SSBO: a CSR product's loads
 *     without its rows or y. The 4-byte loads twice: at indices tested against the end (a load
 *     under a condition, `i < n ? col[i] : 0`) and at indices clamped into range (H200: the
 *     columns and values alone 130 against 71 us, with x's texture gathers 178 against 112).
 * The sizes in MB come from TEXLA_STREAM_MB (default "88.2,78.4,121"; 8 on a software GL);
 * TEXLA_STREAM_FEW=1 times fewer variants of table 1. The back-to-back rows (no barrier) overlap
 * one dispatch with the next and reuse the L2 between them: past the barrier rows' rates, even
 * past the memory's, they are not read times. Run on its own:
 *   texla-bench --sections stream */
#include "bench.h"

#include <glad/gl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct st_run {
    GLuint prog;
    GLuint groups;
    GLbitfield bar; /* a glMemoryBarrier after each dispatch (texla's runner issues one), or 0 */
    GLuint groups_y; /* a 2D grid of groups x groups_y workgroups (0: 1D) */
} st_run;

static int st_draw(void *arg) {
    st_run *r = arg;
    glDispatchCompute(r->groups, r->groups_y ? r->groups_y : 1, 1);
    if (r->bar) glMemoryBarrier(r->bar);
    return 0;
}

/* GPU ms per dispatch (the wall clock on a software GL, whose timer queries mean nothing); -1
 * where the grid is past GL_MAX_COMPUTE_WORK_GROUP_COUNT (the GL would refuse the dispatch) */
static double st_time(const bench_env *e, st_run *r) {
    GLint mx = 0, my = 0;
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &mx);
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 1, &my);
    if ((GLint64)r->groups > (GLint64)mx || (GLint64)r->groups_y > (GLint64)my) {
        printf("(a grid of %u x %u workgroups is past GL_MAX_COMPUTE_WORK_GROUP_COUNT %d x %d: "
               "not timed)\n", r->groups, r->groups_y ? r->groups_y : 1, mx, my);
        return -1;
    }
    double ms = e->soft ? -1 : gpu_time_op(st_draw, r, e->batches);
    return ms > 0 ? ms : time_op(st_draw, r, e->batches);
}

/* fewer variants: on a software GL, or where TEXLA_STREAM_FEW is a positive number */
static int st_few(const bench_env *e) {
    const char *f = getenv("TEXLA_STREAM_FEW");
    return e->soft || (f && atoi(f) > 0);
}

/* texla's runner's barrier after every dispatch (src/gl/runner.c) */
#define BAR_ALL                                                                                \
    (GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT |                       \
     GL_TEXTURE_UPDATE_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT | GL_PIXEL_BUFFER_BARRIER_BIT | \
     GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT)

/* elem: 4 (vec4), 2 (vec2) or 1 (float) elements of the SSBO (mode 0 only) */
static GLuint st_program_w(int mode, int k, int wg, int block, int elem) {
    char src[4096];
    snprintf(src, sizeof src,
             "#version 430 core\n"
             "#define MODE %d\n#define K %d\n#define BLOCK %d\n"
             "layout(local_size_x=%d)in;\n"
             "#define ET %s\n"
             "layout(std430,binding=0)restrict readonly buffer Src{ET v[];};\n"
             "layout(std430,binding=1)restrict writeonly buffer Dst{vec4 o[];};\n"
             "layout(binding=0)uniform sampler2D t2;\n"
             "layout(binding=1)uniform samplerBuffer tb;\n"
             "uniform uint n;\n"
             "vec4 ld(uint i){\n"
             "#if MODE==0\n return vec4(v[i]"
             "%s);\n"
             "#elif MODE==1\n return texelFetch(t2,ivec2(int(i&16383u),int(i>>14)),0);\n"
             "#else\n return texelFetch(tb,int(i));\n#endif\n}\n"
             "void main(){\n"
             " uint lid=gl_LocalInvocationID.x,g=gl_WorkGroupID.x,sz=gl_WorkGroupSize.x;\n"
             " uint inv=gl_NumWorkGroups.x*sz,id=g*sz+lid;\n"
             " vec4 s=vec4(0);\n"
             "#if BLOCK==2\n"
             " for(uint b=id;b<n;b+=inv*uint(K)){\n"
             "  vec4 a[K];\n"
             "  for(int k=0;k<K;++k){uint i=b+uint(k)*inv;a[k]=i<n?ld(i):vec4(0);}\n"
             "  for(int k=0;k<K;++k)s+=a[k];}\n"
             "#else\n"
             " vec4 a[K];\n"
             " for(int k=0;k<K;++k){\n"
             "#if BLOCK\n  uint i=(g*uint(K)+uint(k))*sz+lid;\n"
             "#else\n  uint i=id+uint(k)*inv;\n#endif\n"
             "  a[k]=i<n?ld(i):vec4(0);}\n"
             " for(int k=0;k<K;++k)s+=a[k];\n"
             "#endif\n"
             " if(s.x+s.y+s.z+s.w==1234.5678)o[0]=s;\n"
             "}\n",
             mode, k, block, wg, elem == 1 ? "float" : elem == 2 ? "vec2" : "vec4",
             elem == 1 ? ",0,0,0" : elem == 2 ? ",0,0" : "");
    return bench_program(NULL, src, "stream");
}

static GLuint st_program(int mode, int k, int wg, int block) {
    return st_program_w(mode, k, wg, block, 4);
}

static void stream_size(const bench_env *e, double mb) {
    GLuint n = (GLuint)(mb * 1e6 / 16.0);
    if (n < 16384) n = 16384;
    GLint maxtb = 0, maxt = 0;
    glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &maxtb);
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &maxt);
    GLuint h = (n + 16383) / 16384;
    float *host = malloc((size_t)h * 16384 * 4 * sizeof *host);
    if (!host) return;
    for (size_t i = 0; i < (size_t)h * 16384 * 4; i++) host[i] = (float)(i % 1000) * 1e-3f;
    GLuint buf[2], tex[2];
    glGenBuffers(2, buf);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf[0]);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)n * 16, host, GL_STATIC_DRAW);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf[1]);
    glBufferData(GL_SHADER_STORAGE_BUFFER, 16, NULL, GL_DYNAMIC_DRAW);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buf[0]);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, buf[1]);
    glGenTextures(2, tex);
    int have2d = (GLint)h <= maxt && 16384 <= maxt, havetb = (GLint)n <= maxtb;
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, tex[0]);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    if (have2d) {
        glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA32F, 16384, (GLsizei)h);
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 16384, (GLsizei)h, GL_RGBA, GL_FLOAT, host);
    }
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_BUFFER, tex[1]);
    if (havetb) glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, buf[0]);
    glActiveTexture(GL_TEXTURE0);
    free(host);
    printf("\n### GL compute read of %.1f MB (%u vec4s): GPU us, TB/s\n\n", (double)n * 16 / 1e6, n);
    printf("| source | order | K | wg | us | TB/s |\n|---|---|---|---|---|---|\n");
    static const char *src_name[3] = {"SSBO", "2D texture", "buffer texture"};
    static const int ks[] = {1, 2, 4, 8}, wgs[] = {128, 256, 512, 1024};
    double best = 1e30;
    for (int mode = 0; mode < 3; mode++) {
        if ((mode == 1 && !have2d) || (mode == 2 && !havetb)) {
            printf("| %s | | | | past GL_MAX_%s | |\n", src_name[mode],
                   mode == 1 ? "TEXTURE_SIZE" : "TEXTURE_BUFFER_SIZE");
            continue;
        }
        for (int block = 0; block < 3; block++)
            for (int ki = 0; ki < 4; ki++)
                for (int wi = 0; wi < 4; wi++) {
                    if (st_few(e) && (wi != 1 || ki == 3)) continue;
                    st_run r = {st_program(mode, ks[ki], wgs[wi], block), 0, 0, 0};
                    if (!r.prog) continue;
                    GLuint per = (GLuint)(ks[ki] * wgs[wi]);
                    /* grid-stride loop: a fixed grid of 8 x 256 invocations an SM of a
                     * 132-SM GPU (the CUDA ceiling's grid), or fewer where n is small */
                    r.groups = block == 2 ? 1056u * 256u / (GLuint)wgs[wi] : (n + per - 1) / per;
                    if (block == 2 && r.groups > (n + per - 1) / per) r.groups = (n + per - 1) / per;
                    glUseProgram(r.prog);
                    glUniform1ui(glGetUniformLocation(r.prog, "n"), n);
                    double ms = st_time(e, &r);
                    glUseProgram(0);
                    glDeleteProgram(r.prog);
                    if (ms <= 0) continue;
                    double tbs = (double)n * 16 / (ms * 1e-3) / 1e12;
                    if (ms < best) best = ms;
                    printf("| %s | %s | %d | %d | %.1f | %.2f |\n", src_name[mode],
                           block == 2 ? "loop" : block ? "block" : "grid", ks[ki], wgs[wi], ms * 1e3, tbs);
                }
    }
    /* the same read with a barrier after each dispatch, as texla's runner issues one */
    {
        st_run r = {st_program(0, 4, 256, 0), (n + 1023) / 1024, BAR_ALL, 0};
        if (r.prog) {
            glUseProgram(r.prog);
            glUniform1ui(glGetUniformLocation(r.prog, "n"), n);
            for (int b = 0; b < 3; b++) {
                r.bar = b == 0 ? 0 : b == 1 ? GL_SHADER_STORAGE_BARRIER_BIT : BAR_ALL;
                double ms = st_time(e, &r);
                if (ms <= 0) continue;
                printf("| SSBO, barrier %s | grid | 4 | 256 | %.1f | %.2f |\n",
                       b == 0 ? "none" : b == 1 ? "storage" : "texla's", ms * 1e3,
                       (double)n * 16 / (ms * 1e-3) / 1e12);
            }
            /* the same bytes as floats and vec2s: 4 or 2 times the loads */
            for (int w = 1; w <= 2; w++) {
                GLuint pw = st_program_w(0, 4, 256, 0, w);
                if (!pw) continue;
                st_run q = {pw, (n * (GLuint)(4 / w) + 1023) / 1024, 0, 0};
                glUseProgram(pw);
                glUniform1ui(glGetUniformLocation(pw, "n"), n * (GLuint)(4 / w));
                for (int b = 0; b < 2; b++) {
                    q.bar = b ? BAR_ALL : 0;
                    double ms = st_time(e, &q);
                    if (ms <= 0) continue;
                    printf("| SSBO of %s, barrier %s | grid | 4 | 256 | %.1f | %.2f |\n",
                           w == 1 ? "floats" : "vec2s", b ? "texla's" : "none", ms * 1e3,
                           (double)n * 16 / (ms * 1e-3) / 1e12);
                }
                glDeleteProgram(pw);
            }
            glUseProgram(r.prog);
            r.groups = 1; /* one workgroup: the fixed cost of a dispatch */
            glUniform1ui(glGetUniformLocation(r.prog, "n"), 1024);
            for (int b = 0; b < 2; b++) {
                r.bar = b ? BAR_ALL : 0;
                double ms = st_time(e, &r);
                double wall = time_op(st_draw, &r, e->batches);
                printf("| one workgroup, barrier %s | | | | %.2f (wall %.2f) | |\n",
                       b ? "texla's" : "none", ms * 1e3, wall * 1e3);
            }
            glUseProgram(0);
            glDeleteProgram(r.prog);
        }
    }
    /* the 2D texture read by 2D workgroups of X x Y invocations, one texel each (texla's compute
     * backend runs its element-wise programs as 16 x 16), texelFetch or imageLoad; with the
     * barrier */
    static const int shp[][2] = {{16, 16}, {32, 8}, {64, 4}, {32, 32}, {8, 8}, {128, 2}};
    for (int im = 0; im < 2 && have2d; im++)
        for (size_t c = 0; c < sizeof shp / sizeof shp[0]; c++) {
            if (im && c > 1) break;
            char src[1024];
            snprintf(src, sizeof src,
                     "#version 430 core\nlayout(local_size_x=%d,local_size_y=%d)in;\n"
                     "layout(binding=0)uniform sampler2D t2;\n"
                     "layout(rgba32f,binding=1)uniform readonly image2D i2;\n"
                     "layout(std430,binding=1)restrict writeonly buffer Dst{vec4 o[];};\n"
                     "uniform ivec2 sz;\n"
                     "void main(){ivec2 p=ivec2(gl_GlobalInvocationID.xy);\n"
                     " if(p.x>=sz.x||p.y>=sz.y)return;\n"
                     " vec4 s=%s;\n"
                     " if(s.x+s.y+s.z+s.w==1234.5678)o[0]=s;}\n",
                     shp[c][0], shp[c][1],
                     im ? "imageLoad(i2,p)" : "texelFetch(t2,p,0)");
            /* the whole texture, 16384 x h texels, whatever the shape */
            st_run r = {bench_program(NULL, src, "2D read"), 16384u / (GLuint)shp[c][0], BAR_ALL,
                        (h + (GLuint)shp[c][1] - 1) / (GLuint)shp[c][1]};
            if (!r.prog) continue;
            /* the bounds as uniforms, as texla's element-wise programs have them (textureSize
             * each invocation took the H200 36-38 us instead of 25-28: the texture unit answers
             * it) */
            glUseProgram(r.prog);
            glUniform2i(glGetUniformLocation(r.prog, "sz"), 16384, (GLint)h);
            if (im) glBindImageTexture(1, tex[0], 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA32F);
            glUseProgram(r.prog);
            double ms = st_time(e, &r);
            glUseProgram(0);
            glDeleteProgram(r.prog);
            if (ms <= 0) continue;
            double bytes = 16384.0 * (double)h * 16;
            printf("| 2D texture, %s, workgroups %d x %d, barrier texla's | 2D | 1 | %d | %.1f | "
                   "%.2f |\n", im ? "imageLoad" : "texelFetch", shp[c][0], shp[c][1],
                   shp[c][0] * shp[c][1], ms * 1e3, bytes / (ms * 1e-3) / 1e12);
        }
    if (best < 1e30)
        printf("\nbest GL read of %.1f MB: %.1f us (%.2f TB/s)\n", (double)n * 16 / 1e6,
               best * 1e3, (double)n * 16 / (best * 1e-3) / 1e12);
    glBindTexture(GL_TEXTURE_BUFFER, 0);
    glBindTexture(GL_TEXTURE_2D, 0);
    glDeleteTextures(2, tex);
    glDeleteBuffers(2, buf);
    fflush(stdout);
}

/* ---- block ELL's value stream (complex 3x3 blocks), values only: the pattern texla's BSR
 * kernel reads (one invocation a scalar row, its row of each block as three vec2 loads, four
 * blocks an iteration) against a workgroup staging a tile of T block rows' blocks through
 * shared memory with whole vec4 loads, SL slots a stage ---- */

static GLuint bp_program(int mode, int wg, int t, int sl) {
    char src[8192];
    snprintf(src, sizeof src,
             "#version 430 core\n#define MODE %d\n#define WG %d\n#define T %d\n#define SL %d\n"
             "layout(local_size_x=WG)in;\n"
             "layout(std430,binding=0)restrict readonly buffer Src{vec2 v2[];};\n"
             "layout(std430,binding=0)restrict readonly buffer Src4{vec4 v4[];};\n"
             "layout(std430,binding=1)restrict writeonly buffer Dst{vec4 o[];};\n"
             "uniform uint nbr,slots;\n"
             "#if MODE==1\n#define N4 (SL*T*9/2)\n#define NL ((N4+WG-1)/WG)\nshared vec2 sh[SL*T*9];\n#endif\n"
             "layout(std430,binding=2)restrict readonly buffer Col{uint bcol[];};\n"
             "layout(std430,binding=3)restrict readonly buffer Xb{vec2 xl[];};\n"
             "layout(std430,binding=4)restrict writeonly buffer Y{vec2 y[];};\n"
             "layout(binding=0)uniform sampler2D xt;\n"
             "layout(rgba32f,binding=0)uniform writeonly image2D yi;\n"
             "#if MODE>=5\nshared vec2 sh5[WG];\n#endif\n"
             "vec2 cm(vec2 p,vec2 q){return vec2(p.x*q.x-p.y*q.y,p.x*q.y+p.y*q.x);}\n"
             "vec2 xat(uint J,uint q){\n"
             "#if MODE==2\n return vec2(float(J&7u),1.0+float(q));\n"
             "#elif MODE==3||MODE>=5\n return xl[J*3u+q];\n"
             "#else\n uint i=J*3u+q;vec4 t=texelFetch(xt,ivec2(int((i>>1)&4095u),int(i>>13)),0);return (i&1u)!=0u?t.zw:t.xy;\n#endif\n}\n"
             "vec2 blk(uint e,uint r){uint J=bcol[e];vec2 s=vec2(0);\n"
             " for(uint q=0u;q<3u;++q)s+=cm(v2[e*9u+r*3u+q],xat(J,q));return s;}\n"
             "void main(){\n"
             " uint lid=gl_LocalInvocationID.x;vec2 a=vec2(0),b=vec2(0);\n"
             "#if MODE==0\n"
             " uint k=gl_GlobalInvocationID.x;if(k>=3u*nbr)return;uint I=k/3u,r=k-3u*I;\n"
             " uint j=0u;for(;j+3u<slots;j+=4u){\n"
             "  for(uint u=0u;u<4u;u+=2u){uint e=(j+u)*nbr+I,f=e+nbr;\n"
             "   for(uint q=0u;q<3u;++q){a+=v2[e*9u+r*3u+q];b+=v2[f*9u+r*3u+q];}}}\n"
             " for(;j<slots;++j){uint e=j*nbr+I;for(uint q=0u;q<3u;++q)a+=v2[e*9u+r*3u+q];}\n"
             "#elif MODE>=2&&MODE<5\n"
             " uint k=gl_GlobalInvocationID.x;if(k>=3u*nbr)return;uint I=k/3u,r=k-3u*I;\n"
             " uint j=0u;for(;j+3u<slots;j+=4u){uint e=j*nbr+I;\n"
             "  a+=blk(e,r)+blk(e+2u*nbr,r);b+=blk(e+nbr,r)+blk(e+3u*nbr,r);}\n"
             " for(;j<slots;++j)a+=blk(j*nbr+I,r);\n"
             " y[k]=a+b;return;\n"
             "#elif MODE>=5\n"
             " uint R=uint(WG),S=R/2u,spr=(4096u+S-1u)/S,per=R/2u;\n"
             " for(uint u=gl_WorkGroupID.x;;u+=gl_NumWorkGroups.x){\n"
             "  if(u>=16u*spr)break;\n"
             "  uint ty=u/spr,a0=(u-ty*spr)*S,rs=lid,m=rs%%per,h=rs/per;\n"
             "  uint cx=2u*a0+2u*m,cy=2u*ty+h;vec2 acc=vec2(0),acc2=vec2(0);\n"
             "  if(cx<8192u){uint k=(cy*8192u+cx)/2u;if(k<3u*nbr){uint I=k/3u,r=k-3u*I;\n"
             "   uint j=0u;for(;j+3u<slots;j+=4u){uint e=j*nbr+I;\n"
             "    acc+=blk(e,r)+blk(e+2u*nbr,r);acc2+=blk(e+nbr,r)+blk(e+3u*nbr,r);}\n"
             "   for(;j<slots;++j)acc+=blk(j*nbr+I,r);}}\n"
             "  sh5[rs]=acc+acc2;barrier();\n"
             "  if(lid<S&&a0+lid<4096u)imageStore(yi,ivec2(int(a0+lid),int(ty)),vec4(sh5[lid],sh5[per+lid]));\n"
             "  barrier();\n"
             "#if MODE==5\n  break;\n#endif\n"
             " }\n"
             " return;\n"
             "#else\n"
             " uint I0=gl_WorkGroupID.x*uint(T),r=lid%%3u,i=lid/3u;\n"
             " for(uint j0=0u;j0<slots;j0+=uint(SL)){\n"
             "  vec4 t[NL];\n"
             "  for(int l=0;l<NL;++l){uint w=lid+uint(l*WG),s=w/uint(T*9/2),x=w-s*uint(T*9/2);\n"
             "   uint g=((j0+s)*nbr+I0)*9u/2u+x;\n"
             "   t[l]=(w<uint(N4)&&j0+s<slots&&g<nbr*slots*9u/2u)?v4[g]:vec4(0);}\n"
             "  for(int l=0;l<NL;++l){uint w=lid+uint(l*WG);if(w<uint(N4)){sh[2u*w]=t[l].xy;sh[2u*w+1u]=t[l].zw;}}\n"
             "  barrier();\n"
             "  if(i<uint(T))for(int s=0;s<SL;++s){uint e=uint(s*T)+i;\n"
             "   for(uint q=0u;q<3u;++q)a+=sh[e*9u+r*3u+q];}\n"
             "  barrier();}\n"
             "#endif\n"
             " if(a.x+a.y+b.x+b.y==1234.5678)o[0]=vec4(a,b);\n"
             "}\n",
             mode, wg, t, sl);
    return bench_program(NULL, src, "block pattern");
}

static void block_pattern(const bench_env *e) {
    GLuint nbr = e->soft ? 4096 : 42876, slots = 27; /* complex3x3: 35^3 block rows (even) */
    size_t nv = (size_t)nbr * slots * 9;             /* complex entries */
    float *host = malloc(nv * 2 * sizeof *host);
    if (!host) return;
    for (size_t i = 0; i < nv * 2; i++) host[i] = (float)(i % 1000) * 1e-3f;
    GLuint buf[5], xtex, ytex;
    glGenBuffers(5, buf);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf[0]);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)(nv * 8), host, GL_STATIC_DRAW);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf[1]);
    glBufferData(GL_SHADER_STORAGE_BUFFER, 16, NULL, GL_DYNAMIC_DRAW);
    /* block columns: a 27-point stencil on a grid of side 35 (clamped at the ends) */
    uint32_t *col = malloc((size_t)nbr * slots * sizeof *col);
    for (GLuint j = 0; j < slots && col; j++)
        for (GLuint i = 0; i < nbr; i++) {
            long off = (long)((int)(j % 3) - 1) + 35L * ((int)(j / 3 % 3) - 1) +
                       1225L * ((int)(j / 9) - 1), c = (long)i + off;
            col[(size_t)j * nbr + i] = (uint32_t)(c < 0 ? 0 : c >= (long)nbr ? nbr - 1 : c);
        }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf[2]);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)nbr * slots * 4, col, GL_STATIC_DRAW);
    free(col);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf[3]); /* x: 3 complex a block column */
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)nbr * 3 * 8, host, GL_STATIC_DRAW);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf[4]); /* y */
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)nbr * 3 * 8, NULL, GL_DYNAMIC_DRAW);
    for (GLuint i = 0; i < 5; i++) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, i, buf[i]);
    /* x as a 2D texture 4096 texels wide, two complex a texel */
    GLuint xh = (nbr * 3 / 2 + 4095) / 4096 + 1;
    glGenTextures(1, &xtex);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, xtex);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA32F, 4096, (GLsizei)xh);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 4096, (GLsizei)xh, GL_RGBA, GL_FLOAT, host);
    free(host);
    glGenTextures(1, &ytex); /* y: 4096 x 16 texels, two complex a texel (rows 2ty, 2ty + 1) */
    glBindTexture(GL_TEXTURE_2D, ytex);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA32F, 4096, 16);
    glBindTexture(GL_TEXTURE_2D, xtex);
    glBindImageTexture(0, ytex, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA32F);
    printf("\n### block ELL's values, %u block rows x %u slots of complex 3x3 (%.1f MB)\n\n", nbr,
           slots, (double)nv * 8 / 1e6);
    printf("| pattern | wg | T | SL | barrier | us | TB/s |\n|---|---|---|---|---|---|---|\n");
    static const char *pat[] = {"a row an invocation", "tile staged in shared memory",
                                "a row, columns, complex products, y stored",
                                "the same, x gathered from an SSBO",
                                "the same, x gathered from a 2D texture",
                                "x from an SSBO, y by texla's texel segments (shared, imageStore)",
                                "the same in a grid-stride loop of units (a fixed grid)"};
    static const GLbitfield bars[] = {0, BAR_ALL,
                                      GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT,
                                      GL_SHADER_STORAGE_BARRIER_BIT, GL_TEXTURE_UPDATE_BARRIER_BIT,
                                      GL_PIXEL_BUFFER_BARRIER_BIT, GL_FRAMEBUFFER_BARRIER_BIT,
                                      GL_BUFFER_UPDATE_BARRIER_BIT};
    static const char *barn[] = {"none", "texla's", "image + fetch", "storage", "texture update",
                                 "pixel buffer", "framebuffer", "buffer update"};
    static const int cfg[][5] = {
        {0, 256, 0, 0, 0}, {0, 256, 0, 0, 1}, {2, 256, 0, 0, 0}, {2, 256, 0, 0, 1},
        {3, 256, 0, 0, 0}, {3, 256, 0, 0, 1},
        {3, 256, 0, 0, 2}, {3, 256, 0, 0, 3}, {3, 256, 0, 0, 4}, {3, 256, 0, 0, 5},
        {3, 256, 0, 0, 6}, {3, 256, 0, 0, 7}, {4, 256, 0, 0, 0}, {4, 256, 0, 0, 1},
        {5, 256, 0, 0, 0}, {5, 256, 0, 0, 1}, {5, 256, 0, 0, 2}, {6, 256, 0, 0, 1},
        {1, 128, 42, 2, 0}, {1, 256, 84, 1, 0}, {1, 512, 170, 1, 0},
    };
    for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
        st_run r = {bp_program(cfg[c][0], cfg[c][1], cfg[c][2], cfg[c][3]), 0, bars[cfg[c][4]], 0};
        if (!r.prog) continue;
        GLuint units = 16 * ((4096 + (GLuint)cfg[c][1] / 2 - 1) / ((GLuint)cfg[c][1] / 2));
        r.groups = cfg[c][0] == 5 ? units : cfg[c][0] == 6 ? 132 * 4 : cfg[c][0] != 1 ? (3 * nbr + (GLuint)cfg[c][1] - 1) / (GLuint)cfg[c][1]
                                  : (nbr + (GLuint)cfg[c][2] - 1) / (GLuint)cfg[c][2];
        glUseProgram(r.prog);
        glUniform1ui(glGetUniformLocation(r.prog, "nbr"), nbr);
        glUniform1ui(glGetUniformLocation(r.prog, "slots"), slots);
        double ms = st_time(e, &r);
        glUseProgram(0);
        glDeleteProgram(r.prog);
        if (ms <= 0) continue;
        printf("| %s | %d | %d | %d | %s | %.1f | %.2f |\n", pat[cfg[c][0]], cfg[c][1],
               cfg[c][2], cfg[c][3], barn[cfg[c][4]], ms * 1e3, (double)nv * 8 / (ms * 1e-3) / 1e12);
    }
    glBindTexture(GL_TEXTURE_2D, 0);
    glDeleteTextures(1, &xtex);
    glDeleteTextures(1, &ytex);
    glDeleteBuffers(5, buf);
    fflush(stdout);
}

/* ---- a CSR product's floor on R-MAT columns: the entries' columns and values streamed
 * (coalesced, K an invocation) and x gathered at the columns, no rows: what any CSR schedule
 * reads, without its row bookkeeping or y ---- */

static GLuint gp_program(int mode, int k, int clamp) {
    char src[4096];
    snprintf(src, sizeof src,
             "#version 430 core\n#define MODE %d\n#define K %d\n#define CLAMP %d\n"
             "layout(local_size_x=256)in;\n"
             "layout(std430,binding=0)restrict readonly buffer Col{uint col[];};\n"
             "layout(std430,binding=1)restrict readonly buffer Val{float val[];};\n"
             "layout(std430,binding=2)restrict readonly buffer Xb{float xb[];};\n"
             "layout(std430,binding=3)restrict writeonly buffer Dst{vec4 o[];};\n"
             "layout(std430,binding=0)restrict readonly buffer Col4{uvec4 col4[];};\n"
             "layout(std430,binding=1)restrict readonly buffer Val4{vec4 val4[];};\n"
             "layout(binding=0)uniform sampler2D xt;\n"
             "uniform uint n;\n"
             "float xat(uint c){\n"
             "#if MODE==0||MODE==3\n return float(c&1u);\n"
             "#elif MODE==1||MODE==4\n return texelFetch(xt,ivec2(int(c&0x7FFFu),int((c>>15)&0x7FFFu)),0)[c>>30];\n"
             "#else\n return xb[c];\n#endif\n}\n"
             "void main(){\n"
             " uint b=gl_WorkGroupID.x*256u*uint(K)+gl_LocalInvocationID.x;float s=0.0;\n"
             "#if MODE>=3\n"
             " // K / 4 uvec4s and vec4s a lane: 4 consecutive entries a load\n"
             " uint b4=gl_WorkGroupID.x*64u*uint(K)+gl_LocalInvocationID.x;\n"
             " uvec4 c[K/4];vec4 v[K/4];\n"
             " for(int k=0;k<K/4;++k){uint i=b4+uint(k)*256u;c[k]=4u*i<n?col4[i]:uvec4(0);v[k]=4u*i<n?val4[i]:vec4(0);}\n"
             " for(int k=0;k<K/4;++k)s+=v[k].x*xat(c[k].x)+v[k].y*xat(c[k].y)+v[k].z*xat(c[k].z)+v[k].w*xat(c[k].w);\n"
             "#else\n"
             " // plain variables, not arrays (arrays may be put in memory)\n"
             "#if CLAMP\n // loads at an index clamped into range: no load under a condition\n"
             "#define LD(k) uint i##k=min(b+uint(k)*256u,n-1u);uint c##k=col[i##k];float v##k=val[i##k];\n"
             "#else\n"
             "#define LD(k) uint i##k=b+uint(k)*256u;uint c##k=i##k<n?col[i##k]:0u;float v##k=i##k<n?val[i##k]:0.0;\n"
             "#endif\n"
             " LD(0) LD(1) LD(2) LD(3)\n"
             "#if K==8\n LD(4) LD(5) LD(6) LD(7)\n#endif\n"
             " s+=v0*xat(c0)+v1*xat(c1)+v2*xat(c2)+v3*xat(c3);\n"
             "#if K==8\n s+=v4*xat(c4)+v5*xat(c5)+v6*xat(c6)+v7*xat(c7);\n#endif\n"
             "#endif\n"
             " if(s==1234.5678)o[0]=vec4(s);\n"
             "}\n",
             mode, k, clamp);
    return bench_program(NULL, src, "gather");
}

static uint64_t gp_rng(uint64_t *s) { /* splitmix64 */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void gather_pattern(const bench_env *e) {
    int levels = e->soft ? 14 : 21;
    size_t N = (size_t)1 << levels, E = 8 * N;
    uint64_t seed = 12345, *rc = malloc(E * sizeof *rc);
    uint32_t *perm = malloc(N * sizeof *perm), *col = malloc(E * sizeof *col);
    float *val = malloc(E * sizeof *val), *x = malloc(N * sizeof *x);
    if (!rc || !perm || !col || !val || !x) {
        free(rc), free(perm), free(col), free(val), free(x);
        return;
    }
    /* R-MAT (a, b, c) = (0.57, 0.19, 0.19), vertices relabelled by a random permutation, entries
     * sorted by row then column (bench/spgen.py's rmat; duplicates kept) */
    for (size_t i = 0; i < N; i++) perm[i] = (uint32_t)i;
    for (size_t i = N - 1; i > 0; i--) {
        size_t j = gp_rng(&seed) % (i + 1);
        uint32_t t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    for (size_t k = 0; k < E; k++) {
        uint64_t r = 0, c = 0;
        for (int l = 0; l < levels; l++) {
            double u = (double)(gp_rng(&seed) >> 11) * 0x1.0p-53;
            r = r << 1 | (u >= 0.76), c = c << 1 | ((u >= 0.57 && u < 0.76) || u >= 0.95);
        }
        rc[k] = (uint64_t)perm[r] << 32 | perm[c];
    }
    qsort(rc, E, sizeof *rc, cmp_u64);
    /* x: a texla vector's texture (the most square, 2 x 2 cells a texel) and a plain array */
    GLuint w = 1;
    while ((size_t)w * w < N / 4) w++;
    GLuint h = (GLuint)((N / 4 + w - 1) / w), nx = 2 * w;
    float *tex = calloc((size_t)w * h * 4, sizeof *tex);
    for (size_t i = 0; i < N; i++) x[i] = (float)(i % 7) * 0.25f;
    for (size_t i = 0; i < N && tex; i++) {
        size_t cx = i % nx, cy = i / nx;
        tex[((cy / 2) * w + cx / 2) * 4 + (cx & 1) + 2 * (cy & 1)] = x[i];
    }
    free(perm);
    printf("\n### CSR's floor on R-MAT columns: %zu rows, %zu entries (%.1f MB of columns and "
           "values), x %.1f MB\n\n",
           N, E, (double)E * 8 / 1e6, (double)N * 4 / 1e6);
    printf("| x | K | barrier | us |\n|---|---|---|---|\n");
    for (int pass = 0; pass < 2; pass++) { /* 0: texture codes, 1: plain indices */
        for (size_t k = 0; k < E; k++) {
            uint32_t c = (uint32_t)rc[k];
            size_t cx = c % nx, cy = c / nx;
            col[k] = pass ? c : (uint32_t)(cx / 2) | (uint32_t)(cy / 2) << 15 |
                                    (uint32_t)((cx & 1) + 2 * (cy & 1)) << 30;
            val[k] = (float)(k % 5) * 0.5f;
        }
        GLuint buf[4], xtex;
        glGenBuffers(4, buf);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf[0]);
        glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)(E * 4), col, GL_STATIC_DRAW);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf[1]);
        glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)(E * 4), val, GL_STATIC_DRAW);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf[2]);
        glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)(N * 4), x, GL_STATIC_DRAW);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf[3]);
        glBufferData(GL_SHADER_STORAGE_BUFFER, 16, NULL, GL_DYNAMIC_DRAW);
        for (GLuint i = 0; i < 4; i++) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, i, buf[i]);
        glGenTextures(1, &xtex);
        glActiveTexture(GL_TEXTURE0);
        glBindTexture(GL_TEXTURE_2D, xtex);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA32F, (GLsizei)w, (GLsizei)h);
        if (tex) glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)w, (GLsizei)h, GL_RGBA, GL_FLOAT, tex);
        static const char *xn[] = {"none (columns and values only)", "2D texture", "SSBO",
                                   "none, 16-byte loads (4 entries a load)",
                                   "2D texture, 16-byte loads", "SSBO, 16-byte loads"};
        static const int modes[2][4] = {{0, 1, 3, 4}, {2, 5, -1, -1}};
        for (int mi = 0; mi < 4 && modes[pass][mi] >= 0; mi++)
            for (int k = 4; k <= 8; k += 4)
                for (int b = 0; b < 4; b++) { /* barrier b % 2; b >= 2: clamped indices */
                    int mode = modes[pass][mi], cl = b >= 2;
                    if (cl && mode >= 3) continue; /* 16-byte loads have no clamped form */
                    st_run r = {gp_program(mode, k, cl), 0, b % 2 ? BAR_ALL : 0, 0};
                    if (!r.prog) continue;
                    r.groups = (GLuint)((E + 256 * (size_t)k - 1) / (256 * (size_t)k));
                    glUseProgram(r.prog);
                    glUniform1ui(glGetUniformLocation(r.prog, "n"), (GLuint)E);
                    double ms = st_time(e, &r);
                    glUseProgram(0);
                    glDeleteProgram(r.prog);
                    if (ms <= 0) continue;
                    printf("| %s%s | %d | %s | %.1f |\n", xn[mode], cl ? ", clamped indices" : "",
                           k, b % 2 ? "texla's" : "none", ms * 1e3);
                }
        glBindTexture(GL_TEXTURE_2D, 0);
        glDeleteTextures(1, &xtex);
        glDeleteBuffers(4, buf);
    }
    free(rc), free(col), free(val), free(x), free(tex);
    fflush(stdout);
}

void bench_stream(const bench_env *e) {
    const char *env = getenv("TEXLA_STREAM_MB");
    const char *list = env && *env ? env : e->soft ? "8" : "88.2,78.4,121";
    for (const char *p = list; p && *p;) {
        double mb = atof(p);
        if (mb > 0 && mb < 4096) stream_size(e, mb);
        p = strchr(p, ',');
        if (p) p++;
    }
    block_pattern(e);
    gather_pattern(e);
}
