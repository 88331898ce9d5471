#!/usr/bin/env python3
"""spgen.py -- writes texla's sparse SpMV benchmark suite as .tsp files (format: tsp.py, README.md).

    python3 bench/spgen.py OUTDIR [--scale S] [--seed N] [--only name1,name2] [--list]

S = 1.0 is the full suite for an 80 GB GPU (10-35 M scalar nonzeros per matrix); --scale 0.01 makes small
versions of the same classes for a CPU test.  Each matrix comes from its own generator seeded by (seed,
crc32(name)), so a matrix is the same whether made alone (--only) or with the others.  Everything is
vectorised numpy (no Python loop over nonzeros).  OUTDIR/suite.json lists what was written (shape, kind,
nonzeros, bytes, generation time, the class description).
"""
import os
import sys
import json
import time
import zlib
import argparse

try:
    import numpy as np
except ImportError:
    sys.exit("spgen.py needs numpy: on Debian, apt-get install python3-numpy (then run it with "
             "/usr/bin/python3)")

sys.dont_write_bytecode = True     # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tsp  # noqa: E402

F32 = np.float32


# ----------------------------------------------------------------------------- helpers
def uni(rng, n, lo=-1.0, hi=1.0):
    """n float32 uniform in [lo, hi)."""
    return (rng.random(n, dtype=F32) * F32(hi - lo) + F32(lo)).astype(F32, copy=False)


def seg_arange(lens):
    """For segment lengths L: concatenation of arange(L_i) (vectorised)."""
    lens = np.asarray(lens, dtype=np.int64)
    tot = int(lens.sum())
    starts = np.cumsum(lens) - lens
    return np.arange(tot, dtype=np.int64) - np.repeat(starts, lens)


def coo_to_csr(rows, cols, r, c, v, sum_dups=True):
    """COO (any order, duplicates allowed) -> CSR with sorted, unique columns; duplicates summed.
    v: (nnz,) or (nnz, k) values."""
    key = r.astype(np.int64) * cols + c.astype(np.int64)
    order = np.argsort(key, kind="stable")
    key = key[order]
    v = v[order]
    if key.size:
        first = np.empty(key.size, dtype=bool)
        first[0] = True
        np.not_equal(key[1:], key[:-1], out=first[1:])
        starts = np.flatnonzero(first)
        if starts.size != key.size:
            if not sum_dups:
                raise ValueError("duplicates")
            v = np.add.reduceat(v, starts, axis=0).astype(F32, copy=False)
            key = key[starts]
    rr = (key // cols).astype(np.int64)
    cc = (key - rr * cols).astype(np.int32)
    row_ptr = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(rr, minlength=rows), out=row_ptr[1:])
    return row_ptr.astype(np.int32), cc, v


def distinct_sorted(nrows, k, sampler, rng, fixed=None, max_rounds=200):
    """(nrows, k) int64 column indices, each row sorted and free of duplicates.
    sampler(rows_idx, k_draw, rng) -> (len(rows_idx), k_draw) candidate columns for those rows;
    fixed (nrows,) if given is one column every row must contain (the diagonal): k-1 are drawn.
    Rows with a repeated column are drawn again (vectorised over those rows) until none is left."""
    idx = np.arange(nrows)
    out = np.empty((nrows, k), dtype=np.int64)
    kd = k - (fixed is not None)
    for _ in range(max_rounds):
        c = sampler(idx, kd, rng).astype(np.int64)
        if fixed is not None:
            c = np.concatenate([c, fixed[idx, None].astype(np.int64)], axis=1)
        c.sort(axis=1)
        dup = (c[:, 1:] == c[:, :-1]).any(axis=1) if k > 1 else np.zeros(len(idx), bool)
        out[idx[~dup]] = c[~dup]
        idx = idx[dup]
        if idx.size == 0:
            return out
    raise RuntimeError(f"distinct_sorted: {idx.size} rows still have duplicates (window too small?)")


def rows_with_k(rows, ks, sampler, rng, fixed_diag=False):
    """Rows with a variable number ks[i] of distinct sorted columns; rows grouped by k, each group drawn
    by distinct_sorted.  Returns row_ptr, col."""
    ks = np.asarray(ks, dtype=np.int64)
    row_ptr = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(ks, out=row_ptr[1:])
    col = np.empty(int(row_ptr[-1]), dtype=np.int32)
    for k in np.unique(ks):
        if k == 0:
            continue
        ridx = np.flatnonzero(ks == k)

        def samp(i, kd, g, ridx=ridx):
            return sampler(ridx[i], kd, g)
        c = distinct_sorted(ridx.size, int(k), samp, rng, fixed=ridx if fixed_diag else None)
        pos = row_ptr[ridx][:, None] + np.arange(k)
        col[pos.ravel()] = c.ravel()
    return row_ptr.astype(np.int32), col


def expand_block_pattern(rp, cb, b):
    """Scalar CSR pattern of a b x b block pattern (block row_ptr rp, block cols cb): row b*i+a holds
    columns b*cb[k]+t for the blocks k of block row i and t = 0..b-1, in order.  Returns (row_ptr, col,
    blk, a, t): for each scalar entry the block index it comes from and its (row, col) inside the block."""
    R = rp.size - 1
    lens = np.diff(rp.astype(np.int64))
    srow_len = np.repeat(lens * b, b)                       # scalar row lengths
    row_ptr = np.zeros(R * b + 1, dtype=np.int64)
    np.cumsum(srow_len, out=row_ptr[1:])
    nb = np.repeat(lens, b)                                 # blocks per scalar row
    blk = np.repeat(np.repeat(rp[:-1].astype(np.int64), b) + 0, nb) + seg_arange(nb)   # block per (row, k)
    a = np.repeat(np.tile(np.arange(b), R), nb)             # row inside the block
    blk = np.repeat(blk, b)
    a = np.repeat(a, b)
    t = np.tile(np.arange(b), blk.size // b)
    col = (b * cb[blk].astype(np.int64) + t).astype(np.int32)
    return row_ptr.astype(np.int32), col, blk, a, t


def splitmix_uniform(key, salt):
    """Deterministic uniform [-1, 1) float32 from uint64 keys (splitmix64 finaliser), vectorised."""
    with np.errstate(over="ignore"):
        z = key.astype(np.uint64) + np.uint64(salt) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return ((z >> np.uint64(40)).astype(np.float64) * (2.0 / 2 ** 24) - 1.0).astype(F32)


def grid27(n):
    """Block pattern of a 27-point stencil on an n^3 node grid (node = (z*n + y)*n + x): rp, cb (sorted)."""
    N = n ** 3
    i = np.arange(N, dtype=np.int64)
    x, y, z = i % n, (i // n) % n, i // (n * n)
    offs = [(dz, dy, dx) for dz in (-1, 0, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1)]  # increasing offset
    cols = np.empty((N, 27), dtype=np.int64)
    valid = np.empty((N, 27), dtype=bool)
    for k, (dz, dy, dx) in enumerate(offs):
        cols[:, k] = i + (dz * n + dy) * n + dx
        valid[:, k] = ((x + dx >= 0) & (x + dx < n) & (y + dy >= 0) & (y + dy < n)
                       & (z + dz >= 0) & (z + dz < n))
    rp = np.zeros(N + 1, dtype=np.int64)
    np.cumsum(valid.sum(axis=1), out=rp[1:])
    return rp.astype(np.int32), cols[valid].astype(np.int32)


# ----------------------------------------------------------------------------- the classes
def rand_rows(n, k, rng, kind=1):
    """n x n, k distinct uniform random columns a row (entries of kind floats)."""
    c = distinct_sorted(n, k, lambda i, kd, g: g.integers(0, n, size=(i.size, kd), dtype=np.int64), rng)
    rp = np.arange(0, n * k + 1, k, dtype=np.int32)
    return n, n, kind, rp, c.astype(np.int32).ravel(), uni(rng, n * k * kind)


def rand_len_rows(R, C, lo, hi, rng):
    """R x C, lo..hi distinct uniform random columns a row."""
    ks = rng.integers(lo, hi + 1, size=R)
    rp, col = rows_with_k(R, ks, lambda i, kd, g: g.integers(0, C, size=(i.size, kd)), rng)
    return R, C, 1, rp, col, uni(rng, col.size)


def g_rand_1m_16(S, rng):
    return rand_rows(max(64, int(round(2 ** 20 * S))), 16, rng)


def g_poisson3d(S, rng):
    n = max(4, int(round(128 * S ** (1 / 3))))
    N = n ** 3
    i = np.arange(N, dtype=np.int64)
    x, y, z = i % n, (i // n) % n, i // (n * n)
    cols = np.stack([i - n * n, i - n, i - 1, i, i + 1, i + n, i + n * n], axis=1)
    valid = np.stack([z > 0, y > 0, x > 0, np.ones(N, bool), x < n - 1, y < n - 1, z < n - 1], axis=1)
    vals = np.full((N, 7), -1.0, dtype=F32)
    vals[:, 3] = 6.0
    rp = np.zeros(N + 1, dtype=np.int64)
    np.cumsum(valid.sum(axis=1), out=rp[1:])
    return N, N, 1, rp.astype(np.int32), cols[valid].astype(np.int32), vals[valid]


def fem_values(rp, cb, salt):
    """3x3 blocks, symmetric (block (j,i) = block (i,j)^T) and strictly diagonally dominant with a positive
    diagonal, so SPD.  Entry (a, b) of block (i, j) is a hash of the unordered pair, hence symmetric
    without any sorting."""
    R = rp.size - 1
    rows = np.repeat(np.arange(R, dtype=np.int64), np.diff(rp.astype(np.int64)))
    cols = cb.astype(np.int64)
    lo, hi = np.minimum(rows, cols), np.maximum(rows, cols)
    swap = rows > cols
    a = np.arange(3)[None, :, None]
    b = np.arange(3)[None, None, :]
    aa = np.where(swap[:, None, None], b, a)
    bb = np.where(swap[:, None, None], a, b)
    diag = (rows == cols)[:, None, None]
    aa, bb = np.where(diag, np.minimum(aa, bb), aa), np.where(diag, np.maximum(aa, bb), bb)
    key = (((lo * R + hi)[:, None, None] * 3 + aa) * 3 + bb).astype(np.uint64)
    v = splitmix_uniform(key, salt)
    # dominance: a scalar row has at most 27*3 = 81 entries, 80 off the diagonal with |v| <= 1
    eye = np.eye(3, dtype=bool)[None]
    v[np.broadcast_to(diag & eye, v.shape)] += F32(82.0)
    return v


def g_fem3x3(S, rng):
    n = max(3, int(round(40 * S ** (1 / 3))))
    rp, cb = grid27(n)
    salt = int(rng.integers(1, 2 ** 62))
    return n ** 3, n ** 3, 9, rp, cb, fem_values(rp, cb, salt).reshape(-1, 9)


def g_complex3x3(S, rng):
    n = max(3, int(round(35 * S ** (1 / 3))))
    rp, cb = grid27(n)
    srp, scol, blk, a, t = expand_block_pattern(rp, cb, 3)
    nnz = scol.size
    val = np.empty((nnz, 2), dtype=F32)
    val[:, 0] = uni(rng, nnz)
    val[:, 1] = uni(rng, nnz)
    srows = np.repeat(np.arange(3 * n ** 3), np.diff(srp.astype(np.int64)))
    d = srows == scol
    val[d, 0] += F32(82.0)                       # diagonally dominant (not Hermitian)
    return 3 * n ** 3, 3 * n ** 3, 2, srp, scol, val


def g_herm3x3(S, rng):
    """complex3x3's pattern, Hermitian: entry (i, j) and (j, i) conjugates (a hash of the unordered
    pair, the imaginary part's sign by the side), the diagonal real and dominant."""
    n = max(3, int(round(35 * S ** (1 / 3))))
    rp, cb = grid27(n)
    srp, scol, blk, a, t = expand_block_pattern(rp, cb, 3)
    N = 3 * n ** 3
    srows = np.repeat(np.arange(N, dtype=np.int64), np.diff(srp.astype(np.int64)))
    cols = scol.astype(np.int64)
    lo, hi = np.minimum(srows, cols), np.maximum(srows, cols)
    key = ((lo * N + hi) * 2).astype(np.uint64)
    salt = int(rng.integers(1, 2 ** 62))
    val = np.empty((scol.size, 2), dtype=F32)
    val[:, 0] = splitmix_uniform(key, salt)
    val[:, 1] = splitmix_uniform(key + np.uint64(1), salt) * np.where(srows < cols, F32(1), F32(-1))
    d = srows == cols
    val[d, 0] += F32(82.0)
    val[d, 1] = 0
    return N, N, 2, srp, scol, val


def g_rmat(S, rng):
    return rmat(S, rng, 0.57, 0.19, 0.19)


def rmat(S, rng, a, b, c):
    levels = max(8, int(round(21 + np.log2(S))))
    N = 2 ** levels
    E = 8 * N                                    # 2^24 edges at S = 1
    r = np.zeros(E, dtype=np.int64)
    cc = np.zeros(E, dtype=np.int64)
    for _ in range(levels):
        u = rng.random(E, dtype=F32)
        rb = u >= F32(a + b)                     # quadrants c, d: lower half
        cbit = ((u >= F32(a)) & (u < F32(a + b))) | (u >= F32(a + b + c))   # quadrants b, d: right half
        r = (r << 1) | rb
        cc = (cc << 1) | cbit
    perm = rng.permutation(N)                    # relabel vertices (Graph500 style): hubs spread out
    r, cc = perm[r], perm[cc]
    rp, col, val = coo_to_csr(N, N, r, cc, uni(rng, E))
    return N, N, 1, rp, col, val


def g_circuit(S, rng):
    N = max(1000, int(round(2_000_000 * S)))
    ks = rng.integers(2, 9, size=N)              # 2..8 per row, diagonal included
    band = 2000

    def near(i, kd, g):                          # log-uniform distance 1..band, random side, reflected
        d = np.exp(g.random((i.size, kd)) * np.log(band)).astype(np.int64)
        s = np.where(g.random((i.size, kd)) < 0.5, -1, 1)
        c = i[:, None] + s * d
        c = np.where(c < 0, -c, c)
        c = np.where(c >= N, 2 * (N - 1) - c, c)
        return np.clip(c, 0, N - 1)
    rp, col = rows_with_k(N, ks, near, rng, fixed_diag=True)
    r = np.repeat(np.arange(N, dtype=np.int64), np.diff(rp.astype(np.int64)))
    v = uni(rng, col.size)
    d = r == col
    v[d] = uni(rng, int(d.sum()), 1.0, 2.0)
    # a handful of very long rows and columns (power rails, clock nets): 10^4..10^6 entries each at S = 1
    nlong = int(rng.integers(10, 31))
    nrow_long = nlong // 2
    lens = np.exp(rng.uniform(np.log(1e4), np.log(1e6), nlong)) * S
    lens = np.clip(np.round(lens), min(10, N), N).astype(np.int64)
    who = rng.choice(N, nlong, replace=False)
    extra_r, extra_c = [], []
    for j in range(nlong):
        other = rng.choice(N, int(lens[j]), replace=False)
        fixed = np.full(other.size, who[j])
        if j < nrow_long:
            extra_r.append(fixed)
            extra_c.append(other)
        else:
            extra_r.append(other)
            extra_c.append(fixed)
    er, ec = np.concatenate(extra_r), np.concatenate(extra_c)
    rp, col, val = coo_to_csr(N, N, np.concatenate([r, er]), np.concatenate([col, ec]),
                              np.concatenate([v, uni(rng, er.size)]))
    return N, N, 1, rp, col, val


def band_rows(N, w, p, chunk, rng):
    """N rows of a band |i-j| <= w, each position filled with probability p, the diagonal always;
    drawn chunk rows at a time (the same chunk, the same matrix)."""
    offs = np.arange(-w, w + 1)
    lens = np.empty(N, dtype=np.int64)
    cols = []
    for s in range(0, N, chunk):
        e = min(N, s + chunk)
        i = np.arange(s, e, dtype=np.int64)[:, None]
        c = i + offs
        m = rng.random((e - s, 2 * w + 1), dtype=F32) < F32(p)
        m[:, w] = True
        m &= (c >= 0) & (c < N)
        lens[s:e] = m.sum(axis=1)
        cols.append(c[m].astype(np.int32))
    rp = np.zeros(N + 1, dtype=np.int64)
    np.cumsum(lens, out=rp[1:])
    col = np.concatenate(cols)
    return N, N, 1, rp.astype(np.int32), col, uni(rng, col.size)


def g_band(S, rng):
    N = max(1000, int(round(1_000_000 * S)))
    w = 64
    p = (0.15 * (2 * w + 1) - 1) / (2 * w)      # 15% of the 129 band positions, the diagonal always
    return band_rows(N, w, p, 1 << 17, rng)


def g_quat(S, rng):
    n = max(64, int(round(2 ** 19 * S)))
    k = 16
    W = min(2048, (n - 1) // 2)                  # columns within a window of 2W+1 around the diagonal

    def win(i, kd, g):
        lo = np.clip(i - W, 0, n - 1 - 2 * W)
        return lo[:, None] + g.integers(0, 2 * W + 1, size=(i.size, kd))
    c = distinct_sorted(n, k, win, rng, fixed=np.arange(n))
    rp = np.arange(0, n * k + 1, k, dtype=np.int32)
    return n, n, 4, rp, c.astype(np.int32).ravel(), uni(rng, n * k * 4)


def g_rect_tall(S, rng):
    R = max(256, int(round(2 ** 22 * S)))
    C = max(64, int(round(2 ** 18 * S)))
    return rand_len_rows(R, C, 4, 12, rng)      # 4..12, mean 8


def g_hypersparse(S, rng):
    N = max(1000, int(round(2 ** 22 * S)))
    E = N // 2                                   # 0.5 per row on average: ~61% of rows empty
    r = rng.integers(0, N, size=E)
    c = rng.integers(0, N, size=E)
    rp, col, val = coo_to_csr(N, N, r, c, uni(rng, E))
    return N, N, 1, rp, col, val


# ----------------------------------------------------------------------------- held-out-like classes
# Not in the default suite (made only when named with --only): shapes a reviewer's matrices may take
# that the suite's eleven do not, to check that the tuner's choice holds beyond the suite.
def coo_rows(rng, lens, sampler):
    """Rows of the given lengths, columns from sampler(rows) (duplicates summed by coo_to_csr)."""
    lens = np.asarray(lens, dtype=np.int64)
    r = np.repeat(np.arange(lens.size, dtype=np.int64), lens)
    return r, sampler(r)


def g_poisson2d(S, rng):
    return poisson2d_n(max(8, int(round(2048 * S ** 0.5))))


def g_rect_wide(S, rng):
    R = max(64, int(round(2 ** 16 * S)))
    C = max(256, int(round(2 ** 22 * S)))
    lens = rng.integers(64, 321, size=R)         # 64..320, mean 192
    r, c = coo_rows(rng, lens, lambda r: rng.integers(0, C, size=r.size))
    rp, col, val = coo_to_csr(R, C, r, c, uni(rng, r.size))
    return R, C, 1, rp, col, val


def dense_pattern(n):
    """Row pointers and columns of an n x n matrix with every entry stored."""
    return (np.arange(n + 1, dtype=np.int64) * n).astype(np.int32), np.tile(np.arange(n, dtype=np.int32), n)


def g_dense4k(S, rng):
    n = max(16, int(round(4096 * S ** 0.5)))
    rp, col = dense_pattern(n)
    return n, n, 1, rp, col, uni(rng, n * n)


def g_lowtri(S, rng):
    n = max(16, int(round(5792 * S ** 0.5)))
    lens = np.arange(1, n + 1, dtype=np.int64)            # row i: columns 0..i (a dense triangle)
    rp = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    c = np.arange(lens.sum(), dtype=np.int64) - np.repeat(rp[:-1].astype(np.int64), lens)
    return n, n, 1, rp, c.astype(np.int32), uni(rng, c.size)


def g_blocks6(S, rng):
    return scalar_blocks(S, rng, 6, 25)


def g_loglen(S, rng):
    R = max(64, int(round(2 ** 15 * S)))
    C = 2 ** 20
    lens = 2 ** rng.integers(0, 13, size=R)               # 1, 2, 4 .. 4096 entries, as many of each
    r, c = coo_rows(rng, lens, lambda r: rng.integers(0, C, size=r.size))
    rp, col, val = coo_to_csr(R, C, r, c, uni(rng, r.size))
    return R, C, 1, rp, col, val


def g_road2d(S, rng):
    n = max(8, int(round(2048 * S ** 0.5)))
    N = n * n
    i = np.arange(N, dtype=np.int64)
    x, y = i % n, i // n
    right = (x < n - 1) & (rng.random(N) < 0.6)  # edge (i, i + 1), both ways
    down = (y < n - 1) & (rng.random(N) < 0.6)   # edge (i, i + n)
    a, b = i[right], i[down]
    r = np.concatenate([i, a, a + 1, b, b + n])
    c = np.concatenate([i, a + 1, a, b + n, b])
    rp, col, val = coo_to_csr(N, N, r, c, uni(rng, r.size))
    return N, N, 1, rp, col, val


def g_cdense2k(S, rng):
    n = max(16, int(round(2048 * S ** 0.5)))
    rp, col = dense_pattern(n)
    return n, n, 2, rp, col, np.stack([uni(rng, n * n), uni(rng, n * n)], axis=1)


def g_wideband(S, rng):
    return band_rows(max(1024, int(round(2 ** 14 * S))), 2048, 0.25, 1 << 10, rng)


def g_randlen(S, rng):
    n = max(256, int(round(2 ** 20 * S)))
    r, c = coo_rows(rng, rng.integers(0, 33, size=n), lambda r: rng.integers(0, n, size=r.size))
    rp, col, val = coo_to_csr(n, n, r, c, uni(rng, r.size))
    return n, n, 1, rp, col, val


def g_runs16(S, rng):
    n = max(256, int(round(2 ** 20 * S)))
    start = rng.integers(0, n - 16, size=n)                   # one run of 16 columns a row
    c = (start[:, None] + np.arange(16)[None, :]).ravel()
    rp = np.arange(0, 16 * n + 1, 16, dtype=np.int64).astype(np.int32)
    return n, n, 1, rp, c.astype(np.int32), uni(rng, c.size)


def scalar_blocks(S, rng, b, n1):
    """A real scalar matrix made of b x b blocks on a 27-point grid (the tuner may find BSR b)."""
    n = max(3, int(round(n1 * S ** (1 / 3))))
    rp, cb = grid27(n)
    srp, scol, blk, a, t = expand_block_pattern(rp, cb, b)
    N = b * n ** 3
    val = uni(rng, scol.size)
    srows = np.repeat(np.arange(N, dtype=np.int64), np.diff(srp.astype(np.int64)))
    val[srows == scol] += F32(27 * b + 1)
    return N, N, 1, srp, scol, val


def g_fem2x2s(S, rng):
    return scalar_blocks(S, rng, 2, 56)


def g_fem4x4s(S, rng):
    return scalar_blocks(S, rng, 4, 35)


def powerlaw(S, rng, alpha, xm):
    N = max(1000, int(round(2 ** 21 * S)))
    lens = np.minimum(np.floor((rng.pareto(alpha, N) + 1) * xm), N // 8).astype(np.int64)
    r, c = coo_rows(rng, lens, lambda r: rng.integers(0, N, size=r.size))
    rp, col, val = coo_to_csr(N, N, r, c, uni(rng, r.size))
    return N, N, 1, rp, col, val


def g_powerlaw_rows(S, rng):
    return powerlaw(S, rng, 1.5, 3)      # mean ~9, a heavy tail


def g_powerlaw_light(S, rng):
    return powerlaw(S, rng, 2.5, 5)      # mean ~8, a lighter tail (longest some thousands)


def g_powerlaw_mid(S, rng):
    return powerlaw(S, rng, 3.0, 5.5)    # mean ~8, the longest some hundreds (under the serial cap)


def g_rmat_mild(S, rng):
    return rmat(S, rng, 0.45, 0.22, 0.22)


def g_rmat_hot(S, rng):
    """rmat's matrix with its columns relabelled by falling count: the hot columns side by side
    in x (an experiment: what x's locality is worth to the gathers)."""
    N, _, k, rp, col, val = g_rmat(S, np.random.default_rng([1, zlib.crc32(b"rmat")]))
    order = np.argsort(-np.bincount(col, minlength=N), kind="stable")
    rank = np.empty(N, dtype=np.int64)
    rank[order] = np.arange(N)
    r = np.repeat(np.arange(N, dtype=np.int64), np.diff(rp.astype(np.int64)))
    rp, col, val = coo_to_csr(N, N, r, rank[col], val)
    return N, N, k, rp, col, val


def g_small_rand(S, rng):
    return rand_rows(max(64, int(round(2 ** 15 * S))), 16, rng)


def g_rows128(S, rng):
    n = max(256, int(round(2 ** 17 * S)))
    r, c = coo_rows(rng, np.full(n, 128), lambda r: rng.integers(0, n, size=r.size))   # ~128 (sums)
    rp, col, val = coo_to_csr(n, n, r, c, uni(rng, r.size))
    return n, n, 1, rp, col, val


def g_rows32(S, rng):
    n = max(256, int(round(2 ** 19 * S)))
    r, c = coo_rows(rng, np.full(n, 32), lambda r: rng.integers(0, n, size=r.size))
    rp, col, val = coo_to_csr(n, n, r, c, uni(rng, r.size))
    return n, n, 1, rp, col, val


def g_band_wide(S, rng):
    return band_rows(max(2048, int(round(2 ** 17 * S))), 512, 0.15, 1 << 13, rng)


def g_perm1(S, rng):
    n = max(64, int(round(2 ** 23 * S)))
    rp = np.arange(n + 1, dtype=np.int32)
    return n, n, 1, rp, rng.permutation(n).astype(np.int32), uni(rng, n)


def g_tiny(S, rng):
    n = 1000
    r, c = coo_rows(rng, np.full(n, 10), lambda r: rng.integers(0, n, size=r.size))
    rp, col, val = coo_to_csr(n, n, r, c, uni(rng, r.size))
    return n, n, 1, rp, col, val


def g_complex_rand(S, rng):
    n = max(64, int(round(2 ** 20 * S)))
    k = 8
    c = distinct_sorted(n, k, lambda i, kd, g: g.integers(0, n, size=(i.size, kd), dtype=np.int64), rng)
    rp = np.arange(0, n * k + 1, k, dtype=np.int32)
    val = np.stack([uni(rng, n * k), uni(rng, n * k)], axis=1)
    return n, n, 2, rp, c.astype(np.int32).ravel(), val


def g_diag(S, rng):
    n = max(64, int(round(2 ** 22 * S)))
    return n, n, 1, np.arange(n + 1, dtype=np.int32), np.arange(n, dtype=np.int32), uni(rng, n, 1.0, 2.0)


def g_tridiag(S, rng):
    n = max(64, int(round(2 ** 22 * S)))
    i = np.arange(n, dtype=np.int64)
    r = np.concatenate([i, i[1:], i[:-1]])
    c = np.concatenate([i, i[1:] - 1, i[:-1] + 1])
    rp, col, val = coo_to_csr(n, n, r, c, uni(rng, r.size))
    return n, n, 1, rp, col, val


def g_rand5(S, rng):
    """Short rows of random columns (a road network's lengths, none of its locality)."""
    n = max(64, int(round(2 ** 22 * S)))
    return rand_len_rows(n, n, 2, 6, rng)       # 2..6, mean 4


def g_dense_rows(S, rng):
    """2^20 rows of 8 random columns and 64 rows of 2^17 (rows past 65536, more than circuit's)."""
    n = max(1024, int(round(2 ** 20 * S)))
    lens = np.full(n, 8, dtype=np.int64)
    lens[rng.choice(n, 64, replace=False)] = max(16, n // 8)
    r, c = coo_rows(rng, lens, lambda r: rng.integers(0, n, size=r.size))
    rp, col, val = coo_to_csr(n, n, r, c, uni(rng, r.size))
    return n, n, 1, rp, col, val


def dense_rows_part(S, rng, keep):
    n = max(1024, int(round(2 ** 20 * S)))
    lens = np.full(n, 8, dtype=np.int64)
    lng = rng.choice(n, 64, replace=False)
    lens[lng] = max(16, n // 8)
    mask = np.zeros(n, bool); mask[lng] = True
    lens[mask if keep == "short" else ~mask] = 0
    r, c = coo_rows(rng, lens, lambda r: rng.integers(0, n, size=r.size))
    rp, col, val = coo_to_csr(n, n, r, c, uni(rng, r.size))
    return n, n, 1, rp, col, val


def g_dr_short(S, rng):
    return dense_rows_part(S, rng, "short")


def g_dr_long(S, rng):
    return dense_rows_part(S, rng, "long")


def g_short_wide(S, rng):
    """4096 x 2^22, 4096 random columns a row: few rows, each long."""
    R = max(16, int(round(4096 * S)))
    C = max(4096, int(round(2 ** 22 * S)))
    r, c = coo_rows(rng, np.full(R, min(4096, C // 2)), lambda r: rng.integers(0, C, size=r.size))
    rp, col, val = coo_to_csr(R, C, r, c, uni(rng, r.size))
    return R, C, 1, rp, col, val


def g_tall_skinny(S, rng):
    """2^22 x 256, 8 random columns a row: x of 1 KB."""
    R = max(256, int(round(2 ** 22 * S)))
    C = 256
    c = distinct_sorted(R, 8, lambda i, kd, g: g.integers(0, C, size=(i.size, kd), dtype=np.int64), rng)
    rp = np.arange(0, R * 8 + 1, 8, dtype=np.int32)
    return R, C, 1, rp, c.astype(np.int32).ravel(), uni(rng, R * 8)


def g_rows1k(S, rng):
    n = max(64, int(round(2 ** 14 * S)))
    C = max(4096, int(round(2 ** 20 * S)))
    r, c = coo_rows(rng, np.full(n, 1024), lambda r: rng.integers(0, C, size=r.size))
    rp, col, val = coo_to_csr(n, C, r, c, uni(rng, r.size))
    return n, C, 1, rp, col, val


def g_half_empty(S, rng):
    """Half the rows empty (every other pair of texels), the others 16 random columns."""
    n = max(64, int(round(2 ** 21 * S)))
    lens = np.where((np.arange(n) // 8) % 2 == 0, 16, 0)
    lens[rng.random(n) < 0.05] = 0
    r, c = coo_rows(rng, lens, lambda r: rng.integers(0, n, size=r.size))
    rp, col, val = coo_to_csr(n, n, r, c, uni(rng, r.size))
    return n, n, 1, rp, col, val


def g_quat_rand(S, rng):
    return rand_rows(max(64, int(round(2 ** 19 * S))), 8, rng, 4)


def g_blocks3_2d(S, rng):
    """Real scalars of 3x3 blocks on a 9-point 2D grid (9 blocks a block row), not symmetric."""
    n = max(4, int(round(450 * S ** 0.5)))
    N = n * n
    i = np.arange(N, dtype=np.int64)
    x, y = i % n, i // n
    cols, valid = [], []
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            cols.append(i + dy * n + dx)
            valid.append((x + dx >= 0) & (x + dx < n) & (y + dy >= 0) & (y + dy < n))
    cols, valid = np.stack(cols, axis=1), np.stack(valid, axis=1)
    rp = np.zeros(N + 1, dtype=np.int64)
    np.cumsum(valid.sum(axis=1), out=rp[1:])
    srp, scol, blk, a, t = expand_block_pattern(rp.astype(np.int32), cols[valid].astype(np.int32), 3)
    val = uni(rng, scol.size)
    srows = np.repeat(np.arange(3 * N, dtype=np.int64), np.diff(srp.astype(np.int64)))
    val[srows == scol] += F32(28)
    return 3 * N, 3 * N, 1, srp, scol, val


def g_mesh_perm(S, rng):
    """poisson3d with its unknowns numbered at random (a mesh never reordered): the same rows,
    scattered columns."""
    N, _, _, rp, c, v = g_poisson3d(S, rng)
    p = rng.permutation(N)                       # new number of unknown i
    lens = np.diff(rp.astype(np.int64))
    r = np.repeat(p, lens)
    return (N, N, 1) + coo_to_csr(N, N, r, p[c], v)


def g_blockdiag32(S, rng):
    n = max(64, int(round(2 ** 20 * S)) // 32 * 32)
    i = np.arange(n, dtype=np.int64)
    c = ((i // 32) * 32)[:, None] + np.arange(32)[None, :]   # each row its block's 32 columns
    rp = np.arange(0, 32 * n + 1, 32, dtype=np.int64).astype(np.int32)
    return n, n, 1, rp, c.ravel().astype(np.int32), uni(rng, c.size)


def g_antiband(S, rng):
    n = max(64, int(round(2 ** 21 * S)))
    i = np.arange(n, dtype=np.int64)
    lo = np.clip(n - 1 - i - 8, 0, n - 17)       # 17 columns around the anti-diagonal
    c = lo[:, None] + np.arange(17)[None, :]
    rp = np.arange(0, 17 * n + 1, 17, dtype=np.int64).astype(np.int32)
    return n, n, 1, rp, c.ravel().astype(np.int32), uni(rng, c.size)


def g_restrict8(S, rng):
    """A multigrid restriction's shape: row i reads the 17 columns around 8i (90% kept), far from
    the diagonal (columns 8x the rows)."""
    R = max(64, int(round(2 ** 20 * S)))
    C = 8 * R
    i = np.arange(R, dtype=np.int64)
    c = 8 * i[:, None] + np.arange(-8, 9)[None, :]
    keep = (rng.random(c.shape) < 0.9) & (c >= 0) & (c < C)
    keep[:, 8] = True                                      # column 8i always
    lens = keep.sum(axis=1)
    rp = np.zeros(R + 1, dtype=np.int64)
    np.cumsum(lens, out=rp[1:])
    return R, C, 1, rp.astype(np.int32), c[keep].astype(np.int32), uni(rng, int(rp[-1]))


def with_entries(m, k, rng):
    """m's pattern with k-part entries (complex k = 2, quaternion k = 4), uniform parts."""
    N, C, _, rp, col, _ = m
    return N, C, k, rp, col, np.stack([uni(rng, col.size) for _ in range(k)], axis=1)


def g_crmat(S, rng):
    """rmat's pattern (its seed) with complex entries: power-law rows of compound entries."""
    return with_entries(g_rmat(S, np.random.default_rng([1, zlib.crc32(b"rmat")])), 2, rng)


def g_ccircuit(S, rng):
    """circuit's pattern (its seed) with complex entries: a few very long rows of compound entries."""
    return with_entries(g_circuit(S, np.random.default_rng([1, zlib.crc32(b"circuit")])), 2, rng)


def g_qpower(S, rng):
    """quaternion entries, 2^19 rows of Pareto(1.5) lengths (mean ~9, up to 2^16), random columns."""
    return with_entries(powerlaw(S / 4, rng, 1.5, 3), 4, rng)


def g_arrow(S, rng):
    """2^21 x 2^21: the diagonal, a full first row and a full first column (one hot column)."""
    n = max(64, int(round(2 ** 21 * S)))
    i = np.arange(n, dtype=np.int64)
    r = np.concatenate([i, np.zeros(n - 1, np.int64), i[1:]])
    c = np.concatenate([i, i[1:], np.zeros(n - 1, np.int64)])
    rp, col, val = coo_to_csr(n, n, r, c, uni(rng, r.size))
    return n, n, 1, rp, col, val


def g_zipf_cols(S, rng):
    """2^21 rows of exactly 8 entries whose columns follow R-MAT's skew (even rows, hot columns)."""
    n = 2 ** max(8, int(round(21 + np.log2(S))))
    lev = int(np.log2(n))

    def cols(i, kd, g):
        c = np.zeros((i.size, kd), dtype=np.int64)
        for _ in range(lev):
            c = (c << 1) | (g.random((i.size, kd), dtype=F32) >= F32(0.76))
        return c
    c = distinct_sorted(n, 8, cols, rng)
    perm = rng.permutation(n)
    r = np.repeat(np.arange(n, dtype=np.int64), 8)
    rp, col, val = coo_to_csr(n, n, r, perm[c.ravel()], uni(rng, r.size))
    return n, n, 1, rp, col, val


def g_bimodal(S, rng):
    """2^21 rows: 95% of 4 random columns, 5% of 128 (mean ~10; no row past the serial cap)."""
    n = max(64, int(round(2 ** 21 * S)))
    lens = np.where(rng.random(n) < 0.05, 128, 4)
    r, c = coo_rows(rng, lens, lambda r: rng.integers(0, n, size=r.size))
    rp, col, val = coo_to_csr(n, n, r, c, uni(rng, r.size))
    return n, n, 1, rp, col, val


def g_stencil27(S, rng):
    """27-point 3D stencil on a 90^3 grid (rows of 27 inside; near the diagonal, columns within
    n^2 + n + 1 of their row)."""
    n = max(4, int(round(90 * S ** (1 / 3))))
    rp, c = grid27(n)
    N = n ** 3
    val = uni(rng, c.size)
    srows = np.repeat(np.arange(N, dtype=np.int64), np.diff(rp.astype(np.int64)))
    val[srows == c] += F32(27)
    return N, N, 1, rp, c, val


def g_blockrand8(S, rng):
    """2^20 rows in block rows of 8, each two dense 8 x 8 blocks at random block columns (rows of
    16 in two runs of 8, far from the diagonal: BSR's fill 1 with scattered blocks)."""
    nb = max(8, int(round(2 ** 17 * S)))
    n = 8 * nb
    J = distinct_sorted(nb, 2, lambda i, kd, g: g.integers(0, nb, size=(i.size, kd), dtype=np.int64), rng)
    c = (8 * J)[:, :, None] + np.arange(8)[None, None, :]          # (nb, 2, 8): a block row's columns
    c = np.repeat(c.reshape(nb, 16), 8, axis=0)                      # its 8 rows share them
    rp = np.arange(0, 16 * n + 1, 16, dtype=np.int64).astype(np.int32)
    return n, n, 1, rp, c.ravel().astype(np.int32), uni(rng, c.size)


def g_kkt(S, rng):
    """A saddle point system [[H, B'], [B, 0]]: H poisson2d's 5-point on a 1448^2 grid, B n^2 / 4
    constraint rows of 8 random columns of H's (KKT-like: near-diagonal rows, then scattered ones,
    and B' spread over H's rows)."""
    n = max(8, int(round(1448 * S ** 0.5)))
    N = n * n
    _, _, _, hp, hc, hv = poisson2d_n(n)
    m = max(1, N // 4)
    br, bc = coo_rows(rng, np.full(m, 8), lambda r: rng.integers(0, N, size=r.size))
    bv = uni(rng, br.size)
    hr = np.repeat(np.arange(N, dtype=np.int64), np.diff(hp.astype(np.int64)))
    r = np.concatenate([hr, N + br, bc])
    c = np.concatenate([hc.astype(np.int64), bc, N + br])
    v = np.concatenate([hv, bv, bv])
    rp, col, val = coo_to_csr(N + m, N + m, r, c, v)
    return N + m, N + m, 1, rp, col, val


def poisson2d_n(n):
    """poisson2d's 5-point Laplacian on an n^2 grid: N, N, 1, rp, cols, vals."""
    N = n * n
    i = np.arange(N, dtype=np.int64)
    x, y = i % n, i // n
    cols = np.stack([i - n, i - 1, i, i + 1, i + n], axis=1)
    valid = np.stack([y > 0, x > 0, np.ones(N, bool), x < n - 1, y < n - 1], axis=1)
    vals = np.full((N, 5), -1.0, dtype=F32)
    vals[:, 2] = 4.0
    rp = np.zeros(N + 1, dtype=np.int64)
    np.cumsum(valid.sum(axis=1), out=rp[1:])
    return N, N, 1, rp.astype(np.int32), cols[valid].astype(np.int32), vals[valid]


HELD = [
    ("poisson2d", g_poisson2d, "5-point 2D Laplacian (4, -1) on a 2048^2 grid"),
    ("rect_wide", g_rect_wide, "rectangular 2^16 x 2^22, 64..320 (mean 192) random columns per row"),
    ("fem2x2s", g_fem2x2s, "real scalar matrix of 2x2 blocks (56^3 nodes, 27-point): BSR 2 found by the tuner"),
    ("fem4x4s", g_fem4x4s, "real scalar matrix of 4x4 blocks (35^3 nodes, 27-point): BSR 4 found by the tuner"),
    ("powerlaw_rows", g_powerlaw_rows, "2^21 rows, Pareto(1.5) lengths (mean ~9, up to 2^18), random columns"),
    ("powerlaw_light", g_powerlaw_light, "2^21 rows, Pareto(2.5) lengths (mean ~8), random columns"),
    ("powerlaw_mid", g_powerlaw_mid, "2^21 rows, Pareto(3) lengths (mean ~8, up to ~700), random columns"),
    ("rmat_mild", g_rmat_mild, "R-MAT (0.45, 0.22, 0.22, 0.11), 2^21 nodes, 2^24 edges drawn: a milder skew"),
    ("rmat_hot", g_rmat_hot, "rmat (seed 1) with its columns relabelled by falling count (x's locality)"),
    ("small_rand", g_small_rand, "2^15 x 2^15, 16 random columns per row (launch-bound)"),
    ("rows128", g_rows128, "2^17 x 2^17, 128 random columns per row (a repeat summed: ~0.05% fewer)"),
    ("rows32", g_rows32, "2^19 x 2^19, 32 random columns per row (a repeat summed)"),
    ("band_wide", g_band_wide, "2^17 rows, |i-j| <= 512, 15% of the band filled, diagonal always"),
    ("perm1", g_perm1, "2^23 x 2^23, one entry a row, in a random permutation's column"),
    ("tiny", g_tiny, "1000 x 1000, 10 random columns per row (whatever the scale)"),
    ("complex_rand", g_complex_rand, "complex entries, 2^20 x 2^20, 8 random columns per row"),
    ("diag", g_diag, "2^22 x 2^22 diagonal"),
    ("tridiag", g_tridiag, "2^22 x 2^22 tridiagonal"),
    ("rand5", g_rand5, "2^22 x 2^22, 2..6 (mean 4) random columns per row"),
    ("dense_rows", g_dense_rows, "2^20 x 2^20, 8 random columns per row, 64 rows of 2^17"),
    ("dr_short", g_dr_short, "dense_rows without its long rows (2^20 rows of 8, 64 empty)"),
    ("dr_long", g_dr_long, "dense_rows's 64 rows of 2^17 alone (the others empty)"),
    ("short_wide", g_short_wide, "4096 x 2^22, 4096 random columns per row"),
    ("tall_skinny", g_tall_skinny, "2^22 x 256, 8 random columns per row"),
    ("rows1k", g_rows1k, "2^14 x 2^20, 1024 random columns per row"),
    ("half_empty", g_half_empty, "2^21 x 2^21, half the rows (in runs of 8) empty, the others 16 random"),
    ("quat_rand", g_quat_rand, "quaternion entries, 2^19 x 2^19, 8 random columns per row"),
    ("crmat", g_crmat, "rmat's pattern with complex entries (power-law rows, compound entries)"),
    ("ccircuit", g_ccircuit, "circuit's pattern with complex entries (a few very long rows)"),
    ("qpower", g_qpower, "quaternion entries, 2^19 rows of Pareto(1.5) lengths, random columns"),
    ("arrow", g_arrow, "2^21: diagonal, a full first row and a full first column"),
    ("zipf_cols", g_zipf_cols, "2^21 rows of 8, columns with R-MAT's skew (hot columns, even rows)"),
    ("bimodal", g_bimodal, "2^21 rows: 95% of 4 random columns, 5% of 128"),
    ("dense4k", g_dense4k, "4096 x 4096, every entry stored (rows of 4096, x in cache)"),
    ("road2d", g_road2d, "2048^2 grid graph, 60% of its edges kept both ways, diagonal (rows of 1..5)"),
    ("cdense2k", g_cdense2k, "2048 x 2048 complex, every entry stored"),
    ("wideband", g_wideband, "2^14 rows, |i-j| <= 2048, 25% of the band filled (few rows of ~1000)"),
    ("randlen", g_randlen, "2^20 rows of 0..32 (uniform) random columns"),
    ("runs16", g_runs16, "2^20 rows, each one run of 16 consecutive columns at a random start"),
    ("mesh_perm", g_mesh_perm, "poisson3d's 128^3 grid with its unknowns numbered at random (scattered columns)"),
    ("blockdiag32", g_blockdiag32, "2^20 x 2^20, dense 32 x 32 blocks on the diagonal"),
    ("antiband", g_antiband, "2^21 rows of 17 consecutive columns around the anti-diagonal"),
    ("restrict8", g_restrict8, "2^20 x 2^23, row i: the 17 columns around 8i, 90% kept (a restriction)"),
    ("stencil27", g_stencil27, "27-point 3D stencil on a 90^3 grid (rows of 27, near the diagonal)"),
    ("blockrand8", g_blockrand8, "2^20 rows: block rows of 8, each two dense 8 x 8 blocks at random block columns"),
    ("kkt", g_kkt, "saddle point [[H, B'], [B, 0]]: H 5-point on 1448^2, B 1448^2 / 4 rows of 8 random columns"),
    ("lowtri", g_lowtri, "5792 x 5792 lower triangle, every entry stored (rows of 1..5792)"),
    ("loglen", g_loglen, "2^15 x 2^20, rows of 2^k random columns, k uniform in 0..12 (mean ~630)"),
    ("blocks6", g_blocks6, "real scalars of 6x6 blocks (no BSR size of texla's), 27-point 3D grid of 25^3 nodes"),
    ("blocks3_2d", g_blocks3_2d, "real scalars of 3x3 blocks, 9-point 2D grid of 450^2 nodes, not symmetric"),
]


CLASSES = [
    ("rand_1m_16", g_rand_1m_16, "uniform random, 2^20 x 2^20, exactly 16 distinct random columns per row"),
    ("poisson3d", g_poisson3d, "7-point 3D Laplacian (6, -1) on a 128^3 grid"),
    ("fem3x3", g_fem3x3, "FEM-like 3x3 blocks: 40^3 nodes, 27-point coupling, symmetric, diagonally "
                         "dominant (SPD)"),
    ("rmat", g_rmat, "R-MAT power-law graph (0.57, 0.19, 0.19, 0.05), 2^21 nodes, 2^24 edges drawn, "
                     "vertices relabelled randomly, duplicates summed"),
    ("circuit", g_circuit, "circuit-like: 2M rows, 2..8 entries near the diagonal (diagonal always), plus "
                           "10..30 long rows/columns of 10^4..10^6 entries"),
    ("band", g_band, "random band: 1M rows, |i-j| <= 64, 15% of the band filled, diagonal always"),
    ("complex3x3", g_complex3x3, "complex entries on the scalar pattern of 3x3 blocks (35^3 nodes, 27-point), "
                                 "diagonally dominant, not Hermitian"),
    ("herm3x3", g_herm3x3, "complex3x3's pattern with Hermitian values (a real, dominant diagonal)"),
    ("quat", g_quat, "quaternion entries, 2^19 rows x 16 (diagonal + 15 random within +-2048): uniform rows"),
    ("rect_tall", g_rect_tall, "rectangular 2^22 x 2^18, 4..12 (mean 8) random columns per row"),
    ("hypersparse", g_hypersparse, "2^22 x 2^22, 2^21 random entries (0.5 per row, ~61% rows empty)"),
]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", nargs="?")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="", help="comma-separated class names")
    ap.add_argument("--list", action="store_true", help="list the classes and exit")
    a = ap.parse_args(argv)
    names = [c[0] for c in CLASSES + HELD]
    if a.list or not a.outdir:
        for nm, _, desc in CLASSES:
            print(f"{nm:12s} {desc}")
        print("held-out-like (made only when named with --only):")
        for nm, _, desc in HELD:
            print(f"{nm:12s} {desc}")
        return 0 if a.list else 2
    only = [s for s in a.only.split(",") if s]
    bad = [s for s in only if s not in names]
    if bad:
        print(f"unknown class(es) {bad}; known: {names}", file=sys.stderr)
        return 2
    os.makedirs(a.outdir, exist_ok=True)
    man_path = os.path.join(a.outdir, "suite.json")
    man = {}
    if os.path.exists(man_path):
        try:
            with open(man_path) as f:
                man = json.load(f)
        except Exception:  # noqa: BLE001
            man = {}
    mats = man.get("matrices", {})
    if man.get("scale") not in (None, a.scale) or man.get("seed") not in (None, a.seed):
        mats = {}                                # another suite was here: start the manifest anew
    print(f"spgen: scale {a.scale} seed {a.seed} -> {a.outdir}")
    print(f"{'name':12s} {'kind':>10s} {'rows':>9s} {'cols':>9s} {'entries':>10s} {'scalar nnz':>11s} "
          f"{'max row':>8s} {'empty':>8s} {'MB':>8s} {'gen s':>6s}")
    t_all = time.perf_counter()
    for nm, fn, desc in CLASSES + HELD:
        if (only and nm not in only) or (not only and (nm, fn, desc) in HELD):
            continue
        t0 = time.perf_counter()
        rng = np.random.default_rng([a.seed, zlib.crc32(nm.encode())])
        rows, cols, kind, rp, col, val = fn(a.scale, rng)
        tg = time.perf_counter() - t0
        path = os.path.join(a.outdir, nm + ".tsp")
        nb = tsp.write_tsp(path, rows, cols, kind, rp, col, val)
        m = tsp.TSP(rows, cols, kind, rp, col, np.asarray(val), name=nm)
        s = m.stats()
        s.update(cls=nm, desc=desc, gen_s=round(tg, 3), write_s=round(time.perf_counter() - t0 - tg, 3),
                 file=os.path.basename(path))
        mats[nm] = s
        print(f"{nm:12s} {s['kind_name']:>10s} {rows:9d} {cols:9d} {m.nnz:10d} {m.scalar_nnz:11d} "
              f"{s['max_row']:8d} {s['empty_rows']:8d} {nb / 1e6:8.1f} {tg:6.2f}", flush=True)
        del rp, col, val, m
    order = {nm: i for i, nm in enumerate(names)}
    mats = dict(sorted(mats.items(), key=lambda kv: order.get(kv[0], 99)))
    with open(man_path, "w") as f:
        json.dump(dict(format="TXSP0001", scale=a.scale, seed=a.seed, matrices=mats), f, indent=1)
    print(f"spgen: done in {time.perf_counter() - t_all:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
