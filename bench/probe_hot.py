#!/usr/bin/env python3
"""probe_hot.py SRC.tsp OUTDIR -- which extra entry of a short row costs: from the near-diagonal
entries of SRC's rows of at most 256 entries (split_circuit.py's c_near), five matrices of the
same shape, each of their rows given one more entry (h_near: none): h_near1 at i +- 3000 (within
16-bit columns' reach), h_far at (i + n/2) mod n (far, but neighbouring rows' columns
neighbours), h_hot in one of 8 fixed columns, h_rand at a random column. bench/probe_hot.sh
times them beside cuSPARSE."""
import sys, os, numpy as np
sys.path.insert(0, "bench")
import tsp
from spgen import coo_to_csr
src, out = sys.argv[1], sys.argv[2]
m = tsp.read_tsp(src)
rp = m.row_ptr.astype(np.int64); col = m.col.astype(np.int64); val = m.val
R, C = m.rows, m.cols
lens = np.diff(rp)
r = np.repeat(np.arange(R), lens)
keep = (lens[r] <= 256) & (np.abs(col - r) <= 32767)
r, col, val = r[keep], col[keep], val[keep]
rng = np.random.default_rng(7)
i = np.arange(R, dtype=np.int64)
hot = rng.choice(C, 8, replace=False)
extra = {
    "h_near": None,
    "h_near1": np.where(i + 3000 < C, i + 3000, i - 3000),
    "h_far": (i + C // 2) % C,
    "h_hot": hot[rng.integers(0, 8, R)],
    "h_rand": rng.integers(0, C, R),
}
os.makedirs(out, exist_ok=True)
for name, ec in extra.items():
    if ec is None:
        rr, cc, vv = r, col, val
    else:
        rr = np.concatenate([r, i]); cc = np.concatenate([col, ec])
        vv = np.concatenate([val, rng.uniform(-1, 1, R).astype(val.dtype)])
    nrp, cc, vs = coo_to_csr(R, C, rr, cc, vv)     # duplicates summed
    tsp.write_tsp(os.path.join(out, name + ".tsp"), R, C, m.kind, nrp, cc, vs)
    print(name, cc.size)
