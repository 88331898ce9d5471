/* lcp_verdict.c - the LCP solvers' measures and verdict (see lcp_verdict.h) */
#include "solvers/lcp_verdict.h"

#include <math.h>
#include <stddef.h>

texla_result texla__lcp_check_friction(texla_ctx *ctx, const char *fn, const float *h, int n) {
    for (int i = 0; i < n; i++) {
        float f = h[i];
        const char *why = NULL;
        if (!(f == floorf(f)) || !isfinite(f)) why = "is not an integer";
        else if (f < 0) continue;
        else if (f >= (float)n) why = "is past the last row";
        else if ((int)f == i) why = "names its own row";
        else if (!(h[(int)f] < 0)) why = "names a friction row, not a normal one";
        if (why)
            return texla_ctx_fail(ctx, TEXLA_ERR_ARGUMENT,
                                  "%s: friction_index[%d] = %g %s (a friction row's index names "
                                  "a normal row 0..%d, whose own index is < 0); x holds the "
                                  "iterations made with it", fn, i, (double)f, why, n - 1);
    }
    return TEXLA_OK;
}

void texla__lcp_verdict(int n, const float *hx, const float *hw, const float *hb, const float *hi,
                        const float *hm, int bounded, float tol_in, texla_lcp_result *out) {
    double mx = INFINITY, mw = INFINITY, xw = 0, mxw = 0, fx = 0;
    double xmax = 0, bmax = 0, axmax = 0;
    int nan = 0;
    for (int i = 0; i < n; i++) {
        nan |= hx[i] != hx[i] || hw[i] != hw[i];
        xmax = fmax(xmax, fabs((double)hx[i]));
        bmax = fmax(bmax, fabs((double)hb[i]));
        axmax = fmax(axmax, fabs((double)hw[i] - (double)hb[i]));
        int j = bounded ? (int)hi[i] : -1;
        if (j >= 0 && j < n) { /* friction row: within its cone? */
            fx = fmax(fx, fabs((double)hx[i]) - (double)hm[i] * fmax(hx[j], 0.0));
            continue;
        }
        mx = fmin(mx, hx[i]);
        mw = fmin(mw, hw[i]);
        xw += (double)hx[i] * hw[i];
        mxw = fmax(mxw, fabs((double)hx[i] * hw[i]));
    }
    *out = (texla_lcp_result){.min_x = (float)mx, .min_w = (float)mw, .xw = (float)xw,
                              .max_abs_xw = (float)mxw, .max_friction_excess = (float)fx};
    /* the verdict, relative to the problem's scale ||b|| + ||A x|| (max norms); the default
     * tolerance sits above float32's rounding of a length-n product */
    double tol = tol_in > 0 ? tol_in : fmax(1e-4, 16.0 * sqrt((double)n) * 0x1p-24);
    double scale = bmax + axmax, tiny = 1e-30;
    out->tol = (float)tol;
    out->scale = (float)scale;
    out->rel_min_w = (float)(mw < 0 ? -mw / fmax(scale, tiny) : 0.0);
    out->rel_xw = (float)(mxw / fmax(scale * xmax, tiny));
    out->rel_friction = (float)(fx / fmax(xmax, tiny));
    out->status = nan ? TEXLA_LCP_NAN
                : out->rel_min_w > tol || out->rel_xw > tol || out->rel_friction > tol
                    ? TEXLA_LCP_UNSOLVED
                    : TEXLA_LCP_SOLVED;
}
