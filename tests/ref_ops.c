/* ref_ops.c - float64 references of the element-wise operations of the library's table
 * (src/base/optable.h): one function ref_NAME per row, checked by the linker (optest.c names
 * ref_NAME for every row). s: the sources' elements, k: the coefficients in argument order,
 * old: dst before (in-place rows); *mag: the sum of the terms' magnitudes. */
#include "optest.h"

#include <math.h>

double ref_fill(const double *s, const double *k, double old, double *mag);
double ref_copy(const double *s, const double *k, double old, double *mag);
double ref_add(const double *s, const double *k, double old, double *mag);
double ref_sub(const double *s, const double *k, double old, double *mag);
double ref_mul(const double *s, const double *k, double old, double *mag);
double ref_min(const double *s, const double *k, double old, double *mag);
double ref_max(const double *s, const double *k, double old, double *mag);
double ref_abs(const double *s, const double *k, double old, double *mag);
double ref_scale(const double *s, const double *k, double old, double *mag);
double ref_axpy(const double *s, const double *k, double old, double *mag);
double ref_madad(const double *s, const double *k, double old, double *mag);
double ref_clamp_min(const double *s, const double *k, double old, double *mag);
double ref_clamp(const double *s, const double *k, double old, double *mag);
double ref_recip(const double *s, const double *k, double old, double *mag);
double ref_acc(const double *s, const double *k, double old, double *mag);
double ref_acc_mul(const double *s, const double *k, double old, double *mag);
double ref_rescale(const double *s, const double *k, double old, double *mag);

#define UNUSED (void)s, (void)k, (void)old

double ref_fill(const double *s, const double *k, double old, double *mag) {
    UNUSED;
    *mag = fabs(k[0]);
    return k[0];
}
double ref_copy(const double *s, const double *k, double old, double *mag) {
    UNUSED;
    *mag = fabs(s[0]);
    return s[0];
}
double ref_add(const double *s, const double *k, double old, double *mag) {
    UNUSED;
    *mag = fabs(s[0]) + fabs(s[1]);
    return s[0] + s[1];
}
double ref_sub(const double *s, const double *k, double old, double *mag) {
    UNUSED;
    *mag = fabs(s[0]) + fabs(s[1]);
    return s[0] - s[1];
}
double ref_mul(const double *s, const double *k, double old, double *mag) {
    UNUSED;
    *mag = fabs(s[0] * s[1]);
    return s[0] * s[1];
}
double ref_min(const double *s, const double *k, double old, double *mag) {
    UNUSED;
    double v = s[0] < s[1] ? s[0] : s[1];
    *mag = 0; /* exact */
    return v;
}
double ref_max(const double *s, const double *k, double old, double *mag) {
    UNUSED;
    double v = s[0] > s[1] ? s[0] : s[1];
    *mag = 0;
    return v;
}
double ref_abs(const double *s, const double *k, double old, double *mag) {
    UNUSED;
    *mag = 0;
    return fabs(s[0]);
}
double ref_scale(const double *s, const double *k, double old, double *mag) {
    UNUSED;
    *mag = fabs(k[0] * s[0]);
    return k[0] * s[0];
}
double ref_axpy(const double *s, const double *k, double old, double *mag) {
    UNUSED;
    *mag = fabs(s[0]) + fabs(k[0] * s[1]);
    return s[0] + k[0] * s[1];
}
double ref_madad(const double *s, const double *k, double old, double *mag) {
    UNUSED;
    *mag = fabs(s[0]) + (fabs(s[1]) + fabs(s[2])) * fabs(s[3]);
    return s[0] + (s[1] + s[2]) * s[3];
}
double ref_clamp_min(const double *s, const double *k, double old, double *mag) {
    UNUSED;
    *mag = 0;
    return s[0] > k[0] ? s[0] : k[0];
}
double ref_clamp(const double *s, const double *k, double old, double *mag) {
    UNUSED;
    *mag = 0;
    return s[0] < k[0] ? k[0] : s[0] > k[1] ? k[1] : s[0];
}
double ref_recip(const double *s, const double *k, double old, double *mag) {
    UNUSED;
    *mag = fabs(k[0] / s[0]);
    return k[0] / s[0];
}
double ref_acc(const double *s, const double *k, double old, double *mag) {
    UNUSED;
    *mag = fabs(old) + fabs(k[0] * s[0]);
    return old + k[0] * s[0];
}
double ref_acc_mul(const double *s, const double *k, double old, double *mag) {
    UNUSED;
    *mag = fabs(old) + fabs(s[0] * s[1]);
    return old + s[0] * s[1];
}
double ref_rescale(const double *s, const double *k, double old, double *mag) {
    UNUSED;
    *mag = fabs(old * k[0]);
    return old * k[0];
}
