#!/usr/bin/env python3
"""split_circuit.py SRC.tsp OUTDIR -- circuit's parts as .tsp files of the same shape: c_short (all
rows of at most 256 entries), c_near (their entries within 32767 of the diagonal), c_long (only
the rows past 256 entries). bench/probe_circuit.sh times them beside the whole matrix."""
import sys, os, numpy as np
sys.path.insert(0, "bench")
import tsp
src, out = sys.argv[1], sys.argv[2]
m = tsp.read_tsp(src)
rp = m.row_ptr.astype(np.int64); col = m.col.astype(np.int64); val = m.val
R = m.rows
lens = np.diff(rp)
r = np.repeat(np.arange(R), lens)
long_row = lens[r] > 256
far = np.abs(col - r) > 32767
def keep(mask, name):
    nrp = np.zeros(R + 1, dtype=np.int64)
    np.add.at(nrp, r[mask] + 1, 1)
    nrp = np.cumsum(nrp)
    tsp.write_tsp(os.path.join(out, name + ".tsp"), R, m.cols, m.kind, nrp.astype(np.int32),
                  col[mask].astype(np.int32), val[mask])
    print(name, int(mask.sum()))
os.makedirs(out, exist_ok=True)
keep(~long_row, "c_short")          # no long rows
keep(~long_row & ~far, "c_near")    # short rows' near entries only
keep(long_row, "c_long")            # long rows only
