/* optable.h - THE list of texla's programs and of its layout-agnostic operations. Program ids,
 * the shader registry, the element-wise and reduction wrappers for every storage kind that
 * supports them (ops/), the test rows (tests/test_ops.c), the benchmark rows and the CLI's
 * builtins are all generated from these lists. Adding an element-wise operation touches:
 * its shader (glsl/NAME.frag), one TEXLA__PROGRAMS line and one TEXLA__EW_OPS line here, its
 * declarations in include/texla.h, and its float64 reference in tests/ref_ops.c. */
#ifndef TEXLA_OPTABLE_H
#define TEXLA_OPTABLE_H

/* ---- programs: X(ID, file in glsl/, form) ----
 * form OP:     the file defines vec4 texla_op(ivec2 texel); it runs as a fragment program
 *              (quad.vert + common/frag_main.glsl) or as a compute shader over the same texels
 *              (common/comp_main.glsl): the fragment and compute backends.
 * form POINTS: a fragment shader with its own main, drawn as points from the vertex shader
 *              named by TEXLA__POINTS_VERT (the classic sparse product): fragment backend only.
 * form KERNEL: a compute shader with its own main, workgroup size and bindings (kernel
 *              passes: storage buffers, images, shared memory, subgroups): compute only. */
#define TEXLA__PROGRAMS(X)                                                                     \
    X(FILL, "fill.frag", OP)                                                                   \
    X(IDENTITY, "identity.frag", OP)                                                           \
    X(COPY, "copy.frag", OP)                                                                   \
    X(SCALE, "scale.frag", OP)                                                                 \
    X(AXPBY, "axpby.frag", OP)                                                                 \
    X(MUL, "mul.frag", OP)                                                                     \
    X(MIN, "min.frag", OP)                                                                     \
    X(MAX, "max.frag", OP)                                                                     \
    X(ABS, "abs.frag", OP)                                                                     \
    X(MADAD, "madad.frag", OP)                                                                 \
    X(CLAMP_MIN, "clamp_min.frag", OP)                                                         \
    X(CLAMP, "clamp.frag", OP)                                                                 \
    X(RECIP, "recip.frag", OP)                                                                 \
    X(DIAG, "diag.frag", OP)                                                                   \
    X(MATMUL, "matmul.frag", OP)                                                               \
    X(MATMUL_TN, "matmul_tn.frag", OP)                                                         \
    X(MATMUL_NT, "matmul_nt.frag", OP)                                                         \
    X(VEC_TO_DENSE, "vec_to_dense.frag", OP)                                                   \
    X(DENSE_TO_VEC, "dense_to_vec.frag", OP)                                                   \
    X(REDUCE, "reduce.frag", OP)                                                               \
    X(SCALAR, "scalar.frag", OP)                                                               \
    X(BANDED, "banded.frag", OP)                                                               \
    X(SPLAT, "splat.frag", OP)                                                                 \
    X(LCP_PROJECT, "lcp_project.frag", OP)                                                     \
    X(POINTS, "sparse.frag", POINTS)                                                           \
    X(REDUCE_K, "kernels/reduce.comp", KERNEL)                                                \
    X(GEMM_K, "kernels/gemm.comp", KERNEL)                                                    \
    X(GEMV_K, "kernels/gemv.comp", KERNEL)                                                    \
    X(BANDED_K, "kernels/banded.comp", KERNEL)                                                \
    X(CG_UPDATE_K, "kernels/cg_update.comp", KERNEL)                                          \
    X(SPMV, "spmv.frag", OP)                                                                   \
    X(SPMV_ROW, "kernels/spmv_row.comp", KERNEL)                                               \
    X(SPMV_BSR, "kernels/spmv_bsr.comp", KERNEL)                                               \
    X(SPMV_SCATTER, "kernels/spmv_scatter.comp", KERNEL)                                       \
    X(SPMV_PACK, "kernels/spmv_pack.comp", KERNEL)                                             \
    X(CVEC, "cvec.frag", OP)                                                                   \
    X(CSCALAR, "cscalar.frag", OP)                                                             \
    X(LCP_STEP_VEC, "lcp_step_vec.frag", OP)                                                  \
    X(TRANSPOSE_K, "kernels/transpose.comp", KERNEL)                                          \
    X(LCP_SPARSE_K, "kernels/lcp_sparse.comp", KERNEL)                                        \
    X(SPMV_MERGE, "kernels/spmv_merge.comp", KERNEL)                                          \
    X(SPIN_K, "kernels/spin.comp", KERNEL)

#define TEXLA__POINTS_VERT "sparse.vert"

/* ---- element-wise operations: X(name, sig, PROGRAM, blend, k0, k1, formula) ----
 * Each row becomes texla_mat_NAME and texla_vec_NAME (ops/elementwise.c) with the arguments of
 * its signature:
 *   c     (texla_coef c, dst)                    c into every lane of u_f0
 *   f     (float s, dst)                         s is the blend factor (dst *= s)
 *   A     (a, dst)
 *   AB    (a, b, dst)
 *   Ac    (a, texla_coef s, dst)                 s into u_f0.x
 *   AcB   (a, texla_coef s, b, dst)              s into u_f0.y
 *   cB    (texla_coef s, b, dst)                 s into u_f0.x
 *   ABDE  (a, b, d, e, dst)
 *   Af    (a, float s, dst)                      s into u_f0.x
 *   Aff   (a, float lo, float hi, dst)           lo, hi into u_f0.x, .y
 * blend: NONE (dst replaced), ADD (dst += the program's value), SCALE (dst *= s).
 * k0, k1: u_f0.x and .y where the signature puts no coefficient there. */
#define TEXLA__EW_OPS(X)                                                                       \
    X(fill, c, FILL, NONE, 0, 0, "dst = c")                                                    \
    X(copy, A, COPY, NONE, 0, 0, "dst = a")                                                    \
    X(add, AB, AXPBY, NONE, 1, 1, "dst = a + b")                                               \
    X(sub, AB, AXPBY, NONE, 1, -1, "dst = a - b")                                              \
    X(mul, AB, MUL, NONE, 0, 0, "dst = a .* b")                                                \
    X(min, AB, MIN, NONE, 0, 0, "dst = min(a, b)")                                             \
    X(max, AB, MAX, NONE, 0, 0, "dst = max(a, b)")                                             \
    X(abs, A, ABS, NONE, 0, 0, "dst = |a|")                                                    \
    X(scale, Ac, SCALE, NONE, 0, 0, "dst = s a")                                               \
    X(axpy, AcB, AXPBY, NONE, 1, 0, "dst = a + s b")                                           \
    X(madad, ABDE, MADAD, NONE, 0, 0, "dst = a + (b + d) .* e")                                \
    X(clamp_min, Af, CLAMP_MIN, NONE, 0, 0, "dst = max(a, s)")                                 \
    X(clamp, Aff, CLAMP, NONE, 0, 0, "dst = min(max(a, lo), hi)")                              \
    X(recip, Af, RECIP, NONE, 0, 0, "dst = s ./ a")                                            \
    X(acc, cB, SCALE, ADD, 0, 0, "dst += s b")                                                 \
    X(acc_mul, AB, MUL, ADD, 0, 0, "dst += a .* b")                                            \
    X(rescale, f, FILL, SCALE, 0, 0, "dst *= s")

/* ---- reductions into a GPU scalar: X(name, sig, fold, map, formula) ----
 * texla_mat_NAME and texla_vec_NAME: (a, dst) or, sig AB, (a, b, dst); padding lanes count as
 * the fold's identity. fold SUM/MAX/MIN; map applied to each element first. */
#define TEXLA__REDUCE_OPS(X)                                                                   \
    X(sum, A, SUM, NONE, "sum of a")                                                           \
    X(dot, AB, SUM, MUL, "sum of a .* b")                                                      \
    X(sqnorm, A, SUM, SQUARE, "sum of a .* a (the squared 2-norm)")                            \
    X(maxval, A, MAX, NONE, "largest element")                                                 \
    X(minval, A, MIN, NONE, "smallest element")                                                \
    X(maxabs, A, MAX, ABS, "largest magnitude")

#endif
