/* operator.c - linear operators (texla_op): any matrix kind behind one matrix-vector product,
 * for the solvers. */
#include "core/core.h"

static const texla__kind op_kinds[] = {[TEXLA_OP_DENSE] = TEXLA__KIND_MAT,
                                       [TEXLA_OP_BANDED] = TEXLA__KIND_BANDED,
                                       [TEXLA_OP_SPARSE] = TEXLA__KIND_SPARSE};

static texla_result bad_kind(texla_ctx *ctx, const char *fn, texla_op a) {
    return texla__fail(ctx, TEXLA_ERR_ARGUMENT,
                       "%s: operator kind %d is none of TEXLA_OP_DENSE, _BANDED, _SPARSE", fn,
                       (int)a.kind);
}

texla_result texla_op_matvec(texla_ctx *ctx, texla_op a, texla_vec x, texla_vec y) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    switch (a.kind) {
    case TEXLA_OP_DENSE: return texla_mat_matvec(ctx, (texla_mat){a.id}, x, y);
    case TEXLA_OP_BANDED: return texla_banded_matvec(ctx, (texla_banded){a.id}, x, y);
    case TEXLA_OP_SPARSE: return texla_sparse_matvec(ctx, (texla_sparse){a.id}, x, y);
    }
    return bad_kind(ctx, "texla_op_matvec", a);
}

texla_result texla_op_shape(texla_ctx *ctx, texla_op a, int *rows, int *cols) {
    if (!ctx) return TEXLA_ERR_ARGUMENT;
    const char *fn = "texla_op_shape";
    if (!rows || !cols) return texla__fail(ctx, TEXLA_ERR_ARGUMENT, "%s: rows or cols is NULL", fn);
    if (a.kind < TEXLA_OP_DENSE || a.kind > TEXLA_OP_SPARSE) return bad_kind(ctx, fn, a);
    texla__obj *o = texla__obj_get(ctx, a.id, op_kinds[a.kind]);
    if (!o) return texla__bad_handle(ctx, fn, "a", op_kinds[a.kind], a.id);
    *rows = o->rows;
    *cols = o->cols;
    return TEXLA_OK;
}
