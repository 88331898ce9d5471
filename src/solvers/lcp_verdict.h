/* lcp_verdict.h - what texla_lcp_jacobi and texla_lcp_jacobi_op say of the x they return: the
 * friction indices checked, the measures and the verdict, from host copies of x, w = A x + b
 * and b (read back once by the caller). Built on texla.h alone, as every solver. */
#ifndef TEXLA_LCP_VERDICT_H
#define TEXLA_LCP_VERDICT_H
#include "texla.h"

/* every friction row's index names a normal row (checked with the measures only: the loop
 * stays free of read-backs); fn names the call in the message */
texla_result texla__lcp_check_friction(texla_ctx *ctx, const char *fn, const float *index, int n);

/* out's measures and verdict (min_x, min_w, xw, max_abs_xw, max_friction_excess, tol, scale,
 * rel_*, status SOLVED / UNSOLVED / NAN); index and mu are read when bounded. tol_in 0: the
 * default, above float32's rounding of a length-n product. The caller sets iterations and
 * history_len, and CANCELLED over a status that is not NAN. */
void texla__lcp_verdict(int n, const float *x, const float *w, const float *b, const float *index,
                        const float *mu, int bounded, float tol_in, texla_lcp_result *out);
#endif
