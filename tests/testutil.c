/* testutil.c - the vector helpers of testutil.h */
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static texla_ctx *tu_ctx;

void tu_begin(texla_ctx *ctx) {
    tu_ctx = ctx;
    check_negzero_reset();
}

void tu_end(void) {
    check_negzero_report();
    tu_ctx = NULL;
}

vshape plain_shape(int n) {
    vshape s = {0, n, 0, 0};
    return s;
}
vshape grid_shape(int nx, int ny) {
    vshape s = {1, nx * ny, nx, ny};
    return s;
}
sname_buf sname(vshape s) {
    sname_buf b;
    if (s.grid) snprintf(b.s, sizeof b.s, "grid %dx%d", s.nx, s.ny);
    else snprintf(b.s, sizeof b.s, "plain n=%d", s.n);
    return b;
}

texla_vec mkv(vshape s, const float *data, const char *what) {
    texla_vec v = {0};
    texla_result r = s.grid ? texla_vec_make_grid(tu_ctx, s.nx, s.ny, data, &v)
                            : texla_vec_make(tu_ctx, s.n, data, &v);
    CHECK(r == TEXLA_OK && v.id != 0, "%s: texla_vec_make%s(%s, %s): %s: %s", what,
          s.grid ? "_grid" : "", sname(s).s, data ? "data" : "NULL", texla_result_name(r),
          texla_error_message(tu_ctx));
    return v;
}

/* texla_vec_info_get against the contract; returns 0 when it held. */
int vinfo(texla_vec v, vshape s, texla_vec_info *inf, const char *what) {
    memset(inf, 0, sizeof *inf);
    texla_result r = texla_vec_info_get(tu_ctx, v, inf);
    CHECK_OK(tu_ctx, r, what);
    if (r) return 1;
    int ok = inf->n == s.n && inf->gx > 0 && inf->gy > 0 && inf->gx % 2 == 0 &&
             inf->gy % 2 == 0 && (long long)inf->gx * inf->gy >= s.n &&
             inf->tex_width == inf->gx / 2 && inf->tex_height == inf->gy / 2 && inf->texture != 0;
    if (s.grid)
        ok = ok && inf->nx == s.nx && inf->ny == s.ny && inf->gx == s.nx + (s.nx & 1) &&
             inf->gy >= s.ny;
    else
        ok = ok && inf->nx == inf->gx && (long long)inf->nx * inf->ny >= s.n;
    CHECK(ok, "%s: texla_vec_info_get of %s: n %d, nx x ny %d x %d, gx x gy %d x %d, texture "
          "%d x %d (GL name %u); expected n %d and %s", what, sname(s).s, inf->n, inf->nx,
          inf->ny, inf->gx, inf->gy, inf->tex_width, inf->tex_height, inf->texture, s.n,
          s.grid ? "nx x ny as made, gx = nx rounded up to even, gy even >= ny, texture "
                   "gx/2 x gy/2"
                 : "gx, gy even, gx*gy >= n, nx = gx, nx*ny >= n, texture gx/2 x gy/2");
    return !ok;
}

/* the element held by grid cell (cx, cy), or -1 for a padding cell */
static long cell_elem(const texla_vec_info *inf, int grid, int cx, int cy) {
    if (grid) return cx < inf->nx && cy < inf->ny ? (long)cy * inf->nx + cx : -1;
    long k = (long)cy * inf->gx + cx;
    return k < inf->n ? k : -1;
}

/* Reads v back raw and through texla_vec_read (the layout: see test_vec.c's top comment); out
 * gets n floats unpacked from the raw texels. Returns 0 when every check held. */
int vfetch(texla_vec v, vshape s, float *out, const char *what) {
    int fails = check_failed;
    texla_vec_info inf;
    if (vinfo(v, s, &inf, what)) return 1;
    size_t nt = (size_t)inf.tex_width * (size_t)inf.tex_height * 4, n = (size_t)s.n;
    float *raw = check_alloc(nt, sizeof *raw), *rd = check_alloc(n, sizeof *rd);
    texla_result r = texla_vec_read_raw(tu_ctx, v, raw);
    CHECK_OK(tu_ctx, r, what);
    if (r) {
        free(raw), free(rd);
        return 1;
    }
    size_t bad = 0, lanes = 0;
    int bcx = 0, bcy = 0, bc = 0;
    float bv = 0;
    for (int ty = 0; ty < inf.tex_height; ty++)
        for (int tx = 0; tx < inf.tex_width; tx++)
            for (int c = 0; c < 4; c++) {
                int cx = 2 * tx + (c & 1), cy = 2 * ty + (c >> 1);
                float val = raw[((size_t)ty * (size_t)inf.tex_width + (size_t)tx) * 4 + (size_t)c];
                long k = cell_elem(&inf, s.grid, cx, cy);
                if (k >= 0) {
                    out[k] = val;
                    continue;
                }
                lanes++;
                if (val == 0.0f) {
                    if (signbit(val)) check_negzero(what);
                } else if (!bad++) {
                    bcx = cx, bcy = cy, bc = c, bv = val;
                }
            }
    CHECK(bad == 0,
          "%s: padding invariant (%s, grid %dx%d): %zu of %zu padding lanes are not 0 (first: "
          "cell (%d, %d) = texel (%d, %d) channel %d = %.9g)", what, sname(s).s, inf.gx, inf.gy,
          bad, lanes, bcx, bcy, bcx / 2, bcy / 2, bc, (double)bv);
    r = texla_vec_read(tu_ctx, v, rd);
    CHECK_OK(tu_ctx, r, what);
    size_t diff = 0, first = 0;
    for (size_t i = 0; i < n && !r; i++)
        if (memcmp(&rd[i], &out[i], sizeof(float)) != 0 && !diff++) first = i;
    int w = s.grid ? inf.nx : inf.gx;
    CHECK(diff == 0,
          "%s: texla_vec_read disagrees with read_raw unpacked by the documented layout (%s) in "
          "%zu of %zu elements (first element %zu: read %.9g, raw cell (%zu, %zu) = texel (%zu, "
          "%zu) channel %zu holds %.9g)", what, sname(s).s, diff, n, first, (double)rd[first],
          first % (size_t)w, first / (size_t)w, first % (size_t)w / 2, first / (size_t)w / 2,
          first % (size_t)w % 2 + 2 * (first / (size_t)w % 2), (double)out[first]);
    free(raw);
    free(rd);
    return check_failed != fails;
}

/* got must equal want bit for bit */
void expect_exact(const float *got, const float *want, size_t n, const char *what) {
    size_t diff = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof(float)) != 0 && !diff++) first = i;
    CHECK(diff == 0, "%s: must be exact; %zu of %zu elements differ (first element %zu = %.9g, "
          "expected %.9g)", what, diff, n, first, (double)got[first], (double)want[first]);
}

/* v must still hold data exactly (padding 0) */
void expect_holds(texla_vec v, vshape s, const float *data, const char *what) {
    float *got = check_alloc((size_t)s.n, sizeof *got);
    if (!vfetch(v, s, got, what)) expect_exact(got, data, (size_t)s.n, what);
    free(got);
}

/* |got_i - ref_i| <= bnd_i for every i; returns the worst err/bound ratio (0/0 counts 0) */
double expect_bound(const float *got, const double *ref, const double *bnd, size_t n,
                    const char *what, const char *bound_name) {
    size_t bad = 0, first = 0;
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)got[i] - ref[i]);
        if (isnan(e)) e = INFINITY;
        double ratio = e == 0 ? 0 : bnd[i] > 0 ? e / bnd[i] : INFINITY;
        if (ratio > worst) worst = ratio;
        if (!(e <= bnd[i]) && !bad++) first = i;
    }
    double err1 = fabs((double)got[first] - ref[first]);
    CHECK(bad == 0, "%s: %zu of %zu elements out of bound %s (first element %zu: got %.9g, ref "
          "%.17g, |err| %.3g = %.3f u|ref| > bound %.3g)", what, bad, n, bound_name, first,
          (double)got[first], ref[first], err1,
          ref[first] != 0 ? err1 / (CHECK_U * fabs(ref[first])) : 0.0, bnd[first]);
    return worst;
}
