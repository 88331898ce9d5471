#!/usr/bin/env python3
"""tsp.py -- the .tsp sparse-matrix file format (texla sparse), shared by spgen.py and peers.py.

Layout (little-endian, no padding anywhere):
  offset 0   char[8]  magic "TXSP0001"
  offset 8   int32    rows      (entry rows: BLOCK rows for kind 9, quaternion rows for kind 4)
  offset 12  int32    cols      (entry columns, same units as rows)
  offset 16  int32    kind      1 real, 2 complex, 4 quaternion, 9 real 3x3 block
  offset 20  int32    reserved  0
  offset 24  int64    nnz       number of ENTRIES (each entry is `kind` float32s)
  offset 32  int32    row_ptr[rows + 1]   row_ptr[0] = 0, row_ptr[rows] = nnz, non-decreasing
             int32    col[nnz]            in [0, cols), strictly increasing within a row
             float32  val[nnz * kind]     entry-major: real v; complex (re, im);
                                          quaternion (w, x, y, z); 3x3 block row-major (b00 b01 b02 b10 ...)
File size = 32 + 4 (rows + 1) + 4 nnz + 4 kind nnz bytes exactly.

Products.  y = A x with y_i = sum_j A_ij x_j.  Vectors have the entry type of the matrix, except for
kind 9 where x and y are real vectors of 3*cols and 3*rows scalars (block j of x = x[3j:3j+3]).
Quaternion vectors are stored as 4 float32 per element (w, x, y, z) and the product is the Hamilton
product with the MATRIX ENTRY ON THE LEFT: y_i = sum_j A_ij * x_j.  Left multiplication by
q = w + xi + yj + zk is the linear map p -> q*p on R^4 = (w, x, y, z), whose matrix is

        L(q) = | w  -x  -y  -z |
               | x   w  -z   y |
               | y   z   w  -x |
               | z  -y   x   w |      (Mueller-Roemer et al., eq. 1)

so the real expansion of a quaternion matrix is the 4x4-block matrix with blocks L(A_ij), acting on the
real vector (w0, x0, y0, z0, w1, ...) -- the quaternion vector's own memory layout.  to_scipy() builds it.

Command line:  python3 tsp.py --selftest [DIR]   (built-in round trips; then checks every DIR/*.tsp)
               python3 tsp.py --info FILE...      (prints the header and statistics)
"""
import os
import sys
import glob
import struct
import time

import numpy as np

MAGIC = b"TXSP0001"
HEADER = struct.Struct("<8siiiiq")   # 32 bytes
assert HEADER.size == 32
KIND_REAL, KIND_COMPLEX, KIND_QUAT, KIND_BLOCK3 = 1, 2, 4, 9
KIND_NAMES = {1: "real", 2: "complex", 4: "quaternion", 9: "real3x3"}
# per kind: (floats per vector element, block size of the real/complex scalar expansion)
VEC_FLOATS = {1: 1, 2: 2, 4: 4, 9: 3}
EXPAND_B = {1: 1, 2: 1, 4: 4, 9: 3}


class TSP:
    """One matrix: rows, cols, kind, nnz (entries), row_ptr int32[rows+1], col int32[nnz],
    val float32 of shape (nnz,), (nnz, 2), (nnz, 4) or (nnz, 3, 3)."""

    def __init__(self, rows, cols, kind, row_ptr, col, val, name=""):
        self.rows, self.cols, self.kind = int(rows), int(cols), int(kind)
        self.row_ptr, self.col, self.val = row_ptr, col, val
        self.nnz = int(col.shape[0])
        self.name = name

    @property
    def kind_name(self):
        return KIND_NAMES[self.kind]

    @property
    def scalar_shape(self):
        """Shape of the scalar (real, or complex for kind 2) expansion that cuSPARSE sees."""
        b = EXPAND_B[self.kind]
        return self.rows * b, self.cols * b

    @property
    def scalar_nnz(self):
        """Nonzeros of the scalar expansion: entries x 1 (real, complex), x 16 (quaternion), x 9 (3x3)."""
        return self.nnz * EXPAND_B[self.kind] ** 2

    def native_bytes(self):
        """Bytes an SpMV must move in this format: row_ptr + col + val + x + y (float32 everywhere)."""
        vf = VEC_FLOATS[self.kind]
        return 4 * (self.rows + 1) + 4 * self.nnz + 4 * self.kind * self.nnz + 4 * vf * (self.rows + self.cols)

    def file_bytes(self):
        return HEADER.size + 4 * (self.rows + 1) + 4 * self.nnz + 4 * self.kind * self.nnz

    def flops(self):
        """Real flops of y = A x: 2 per real multiply-add of the real expansion (complex: 8 per entry)."""
        return 2 * self.nnz * {1: 1, 2: 4, 4: 16, 9: 9}[self.kind]

    def row_lengths(self):
        return np.diff(self.row_ptr.astype(np.int64))

    def stats(self):
        ln = self.row_lengths()
        return dict(name=self.name, kind=self.kind, kind_name=self.kind_name, rows=self.rows, cols=self.cols,
                    entries=self.nnz, floats=self.nnz * self.kind, scalar_rows=self.scalar_shape[0],
                    scalar_cols=self.scalar_shape[1], scalar_nnz=self.scalar_nnz,
                    max_row=int(ln.max()) if ln.size else 0, mean_row=float(ln.mean()) if ln.size else 0.0,
                    empty_rows=int((ln == 0).sum()), file_bytes=self.file_bytes(),
                    spmv_bytes=self.native_bytes())


def _as_val(kind, nnz, val):
    v = np.asarray(val)
    if np.iscomplexobj(v):
        if kind != KIND_COMPLEX:
            raise ValueError("complex values given for kind %d" % kind)
        v = np.ascontiguousarray(v.astype(np.complex64)).view(np.float32)
    v = np.ascontiguousarray(v, dtype=np.float32)
    if v.size != nnz * kind:
        raise ValueError(f"val has {v.size} floats, expected nnz*kind = {nnz * kind}")
    return v.reshape(-1)


def _shape_val(kind, nnz, flat):
    if kind == KIND_REAL:
        return flat.reshape(nnz)
    if kind == KIND_BLOCK3:
        return flat.reshape(nnz, 3, 3)
    return flat.reshape(nnz, kind)


def validate(rows, cols, kind, row_ptr, col, nnz=None):
    """Returns a list of problems (empty when the arrays are a valid .tsp matrix)."""
    p = []
    if kind not in KIND_NAMES:
        p.append(f"kind {kind} not in {sorted(KIND_NAMES)}")
    if rows < 0 or cols < 0:
        p.append(f"negative shape {rows} x {cols}")
    if row_ptr.dtype != np.int32 or col.dtype != np.int32:
        p.append(f"index dtypes {row_ptr.dtype}, {col.dtype} (need int32)")
    if row_ptr.shape != (rows + 1,):
        p.append(f"row_ptr has {row_ptr.shape[0]} entries, expected rows+1 = {rows + 1}")
        return p
    n = col.shape[0]
    if nnz is not None and n != nnz:
        p.append(f"col has {n} entries, header nnz {nnz}")
    if rows + 1 and row_ptr[0] != 0:
        p.append(f"row_ptr[0] = {row_ptr[0]}")
    if row_ptr[-1] != n:
        p.append(f"row_ptr[rows] = {row_ptr[-1]} != nnz {n}")
    d = np.diff(row_ptr.astype(np.int64))
    if d.size and d.min() < 0:
        p.append(f"row_ptr decreases at row {int(np.argmin(d))}")
        return p
    if n:
        if col.min() < 0 or col.max() >= cols:
            p.append(f"col out of range [{col.min()}, {col.max()}] for cols {cols}")
        # strictly increasing inside each row: every diff except across a row boundary must be > 0
        inc = np.diff(col.astype(np.int64)) > 0
        starts = row_ptr[1:-1][(row_ptr[1:-1] > 0) & (row_ptr[1:-1] < n)].astype(np.int64)
        inc[starts - 1] = True
        if not inc.all():
            i = int(np.argmin(inc))
            r = int(np.searchsorted(row_ptr, i, side="right") - 1)
            p.append(f"columns not strictly increasing in row {r} (entries {i}, {i + 1}: "
                     f"{col[i]}, {col[i + 1]})")
    return p


def write_tsp(path, rows, cols, kind, row_ptr, col, val, check=True):
    """Writes one matrix. val: nnz*kind float32s in entry order (any shape), or complex for kind 2."""
    row_ptr = np.ascontiguousarray(row_ptr, dtype=np.int32)
    col = np.ascontiguousarray(col, dtype=np.int32)
    nnz = int(col.shape[0])
    v = _as_val(kind, nnz, val)
    if check:
        prob = validate(rows, cols, kind, row_ptr, col)
        if prob:
            raise ValueError(f"{path}: " + "; ".join(prob))
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(HEADER.pack(MAGIC, int(rows), int(cols), int(kind), 0, nnz))
        row_ptr.astype("<i4", copy=False).tofile(f)
        col.astype("<i4", copy=False).tofile(f)
        v.astype("<f4", copy=False).tofile(f)
    os.replace(tmp, path)
    return HEADER.size + 4 * (rows + 1) + 4 * nnz + 4 * kind * nnz


def read_header(path):
    with open(path, "rb") as f:
        h = f.read(HEADER.size)
    if len(h) != HEADER.size:
        raise ValueError(f"{path}: short header")
    magic, rows, cols, kind, res, nnz = HEADER.unpack(h)
    if magic != MAGIC:
        raise ValueError(f"{path}: bad magic {magic!r}")
    if kind not in KIND_NAMES or res != 0 or rows < 0 or cols < 0 or nnz < 0:
        raise ValueError(f"{path}: bad header rows={rows} cols={cols} kind={kind} reserved={res} nnz={nnz}")
    return rows, cols, kind, nnz


def read_tsp(path, check=True):
    rows, cols, kind, nnz = read_header(path)
    size = os.path.getsize(path)
    want = HEADER.size + 4 * (rows + 1) + 4 * nnz + 4 * kind * nnz
    if size != want:
        raise ValueError(f"{path}: {size} bytes, header says {want}")
    with open(path, "rb") as f:
        f.seek(HEADER.size)
        row_ptr = np.fromfile(f, dtype="<i4", count=rows + 1).astype(np.int32, copy=False)
        col = np.fromfile(f, dtype="<i4", count=nnz).astype(np.int32, copy=False)
        val = np.fromfile(f, dtype="<f4", count=nnz * kind).astype(np.float32, copy=False)
    if check:
        prob = validate(rows, cols, kind, row_ptr, col, nnz)
        if prob:
            raise ValueError(f"{path}: " + "; ".join(prob))
    name = os.path.splitext(os.path.basename(path))[0]
    return TSP(rows, cols, kind, row_ptr, col, _shape_val(kind, nnz, val), name=name)


# ----------------------------------------------------------------------------- quaternions
def quat_left_matrix(q):
    """q (..., 4) as (w, x, y, z) -> (..., 4, 4) real matrix of p -> q*p (see the module doc)."""
    q = np.asarray(q)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack([np.stack([w, -x, -y, -z], -1),
                     np.stack([x, w, -z, y], -1),
                     np.stack([y, z, w, -x], -1),
                     np.stack([z, -y, x, w], -1)], -2)


def quat_mul(a, b):
    """Hamilton product a*b of (..., 4) arrays (w, x, y, z)."""
    a, b = np.asarray(a), np.asarray(b)
    aw, ax, ay, az = (a[..., i] for i in range(4))
    bw, bx, by, bz = (b[..., i] for i in range(4))
    return np.stack([aw * bw - ax * bx - ay * by - az * bz,
                     aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw], -1)


# ----------------------------------------------------------------------------- expansions
def block_values(m):
    """(b, blocks) for kinds 4 and 9: blocks (nnz, b, b) float32 of the real expansion; None otherwise."""
    if m.kind == KIND_QUAT:
        return 4, np.ascontiguousarray(quat_left_matrix(m.val), dtype=np.float32)
    if m.kind == KIND_BLOCK3:
        return 3, np.ascontiguousarray(m.val, dtype=np.float32)
    return None


def to_scipy(m):
    """scipy.sparse.csr_matrix of the scalar expansion, int32 indices, explicit zeros kept, columns sorted:
    real -> float32 csr; complex -> complex64 csr; quaternion -> float32 csr of 4x4 blocks L(q) (4 rows x
    4 cols per entry); 3x3 block -> float32 csr (3 rows x 3 cols per entry)."""
    import scipy.sparse as sp
    if m.kind == KIND_REAL:
        A = sp.csr_matrix((m.val, m.col, m.row_ptr), shape=(m.rows, m.cols))
    elif m.kind == KIND_COMPLEX:
        A = sp.csr_matrix((np.ascontiguousarray(m.val).view(np.complex64).reshape(m.nnz), m.col, m.row_ptr),
                          shape=(m.rows, m.cols))
    else:
        b, blocks = block_values(m)
        B = sp.bsr_matrix((blocks, m.col, m.row_ptr), shape=(m.rows * b, m.cols * b))
        A = B.tocsr()
        A.has_sorted_indices = True
    if A.indices.dtype != np.int32 and A.nnz < 2 ** 31:
        A.indices = A.indices.astype(np.int32)
        A.indptr = A.indptr.astype(np.int32)
    return A


def vec_to_scalar(m, x):
    """A vector of the matrix's entry type (quaternion (n, 4), complex (n,) or (n, 2)) -> the vector the
    scalar expansion multiplies (a view where possible)."""
    x = np.asarray(x)
    if m.kind == KIND_COMPLEX and not np.iscomplexobj(x):
        return np.ascontiguousarray(x, dtype=np.float32).view(np.complex64).reshape(-1)
    return x.reshape(-1)


# ----------------------------------------------------------------------------- self-test
def _small_cases(rng):
    """A few small matrices of every kind, with empty rows and a full row."""
    out = []
    for kind in (1, 2, 4, 9):
        rows, cols = 7, 5
        lens = np.array([0, 3, 1, 0, 5, 2, 0])
        cols_l = [np.sort(rng.choice(cols, k, replace=False)) for k in lens]
        rp = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
        col = np.concatenate(cols_l).astype(np.int32)
        val = rng.uniform(-1, 1, col.size * kind).astype(np.float32)
        out.append((rows, cols, kind, rp, col, val))
    return out


def _dense_expand(m):
    """Dense scalar expansion built element by element (independent of to_scipy)."""
    b = EXPAND_B[m.kind]
    dt = np.complex128 if m.kind == KIND_COMPLEX else np.float64
    D = np.zeros((m.rows * b, m.cols * b), dtype=dt)
    for i in range(m.rows):
        for e in range(m.row_ptr[i], m.row_ptr[i + 1]):
            j = m.col[e]
            v = m.val[e]
            if m.kind == KIND_REAL:
                D[i, j] = v
            elif m.kind == KIND_COMPLEX:
                D[i, j] = complex(v[0], v[1])
            elif m.kind == KIND_BLOCK3:
                D[3 * i:3 * i + 3, 3 * j:3 * j + 3] = v
            else:
                for c in range(4):      # column c of L(q) = q * e_c
                    ec = np.zeros(4)
                    ec[c] = 1.0
                    D[4 * i:4 * i + 4, 4 * j + c] = quat_mul(v.astype(np.float64), ec)
    return D


def selftest(dirpath=None):
    import tempfile
    rng = np.random.default_rng(1)
    fails = 0

    def ok(cond, msg):
        nonlocal fails
        print(("  ok    " if cond else "  FAIL  ") + msg)
        if not cond:
            fails += 1
    print("tsp built-in tests")
    q, p = rng.standard_normal((50, 4)), rng.standard_normal((50, 4))
    ok(np.allclose(np.einsum("nij,nj->ni", quat_left_matrix(q), p), quat_mul(q, p)),
       "L(q) p == q*p (Hamilton, entry on the left)")
    ok(np.allclose(quat_mul([0, 1, 0, 0], [0, 0, 1, 0]), [0, 0, 0, 1]), "i*j == k")
    with tempfile.TemporaryDirectory() as td:
        for (rows, cols, kind, rp, col, val) in _small_cases(rng):
            path = os.path.join(td, f"k{kind}.tsp")
            nb = write_tsp(path, rows, cols, kind, rp, col, val)
            m = read_tsp(path)
            ok(nb == os.path.getsize(path) == m.file_bytes(), f"kind {kind}: file size {nb}")
            ok(m.rows == rows and m.cols == cols and m.kind == kind and m.nnz == col.size
               and np.array_equal(m.row_ptr, rp) and np.array_equal(m.col, col)
               and np.array_equal(m.val.reshape(-1), val), f"kind {kind}: round trip")
            A = to_scipy(m)
            D = _dense_expand(m)
            ok(A.shape == D.shape and np.allclose(A.toarray(), D) and A.nnz == m.scalar_nnz
               and A.has_sorted_indices, f"kind {kind}: to_scipy == element-wise expansion, nnz {A.nnz}")
            xq = rng.standard_normal(m.cols * VEC_FLOATS[m.kind]).astype(np.float32)
            y = A @ vec_to_scalar(m, xq)
            if kind == KIND_QUAT:   # y_i = sum_j A_ij * x_j with the Hamilton product
                yq = np.zeros((rows, 4))
                xx = xq.reshape(cols, 4).astype(np.float64)
                for i in range(rows):
                    for e in range(rp[i], rp[i + 1]):
                        yq[i] += quat_mul(m.val[e].astype(np.float64), xx[col[e]])
                ok(np.allclose(y.reshape(rows, 4), yq, atol=1e-5), "quaternion expansion = Hamilton SpMV")
        bad = [("unsorted", np.array([0, 2], np.int32), np.array([1, 0], np.int32)),
               ("duplicate", np.array([0, 2], np.int32), np.array([1, 1], np.int32)),
               ("range", np.array([0, 1], np.int32), np.array([5], np.int32))]
        for nm, rp, col in bad:
            try:
                write_tsp(os.path.join(td, "bad.tsp"), 1, 5, 1, rp, col, np.ones(col.size))
                ok(False, f"rejects {nm} columns")
            except ValueError:
                ok(True, f"rejects {nm} columns")
    if dirpath:
        files = sorted(glob.glob(os.path.join(dirpath, "*.tsp")))
        ok(bool(files), f"{dirpath}: {len(files)} .tsp files")
        print(f"{'file':14s} {'kind':>10s} {'rows':>9s} {'cols':>9s} {'entries':>10s} {'scalar nnz':>11s} "
              f"{'max row':>8s} {'empty':>8s} {'MB':>8s}  checks")
        for f in files:
            t0 = time.perf_counter()
            try:
                m = read_tsp(f, check=False)
                prob = validate(m.rows, m.cols, m.kind, m.row_ptr, m.col, m.nnz)
                prob += [] if np.all(np.isfinite(m.val)) else ["non-finite values"]
                A = to_scipy(m)
                if A.nnz != m.scalar_nnz:
                    prob.append(f"expansion nnz {A.nnz} != {m.scalar_nnz}")
                s = m.stats()
                print(f"{m.name[:14]:14s} {m.kind_name:>10s} {m.rows:9d} {m.cols:9d} {m.nnz:10d} "
                      f"{m.scalar_nnz:11d} {s['max_row']:8d} {s['empty_rows']:8d} {m.file_bytes() / 1e6:8.2f}  "
                      f"{'ok' if not prob else 'FAIL: ' + '; '.join(prob)} ({time.perf_counter() - t0:.2f} s)")
                fails += bool(prob)
            except Exception as e:  # noqa: BLE001
                print(f"{os.path.basename(f)}: FAIL {e!r}")
                fails += 1
    print(f"selftest: {'PASS' if not fails else f'{fails} FAILED'}")
    return 1 if fails else 0


def main(argv):
    if argv and argv[0] == "--selftest":
        return selftest(argv[1] if len(argv) > 1 else None)
    if argv and argv[0] == "--info":
        for f in argv[1:]:
            m = read_tsp(f)
            print(m.stats())
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
