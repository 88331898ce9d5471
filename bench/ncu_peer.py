#!/usr/bin/env python3
"""cuSPARSE's y = A x on spgen matrices under Nsight Compute: which kernels it launches, their
grids, times, DRAM bytes and cache hit rates (what texla's sparse kernels are measured against).

    ncu --clock-control none --profile-from-start off --metrics ... \\
        python3 bench/ncu_peer.py DIR name[,name...]

Each matrix: CuPy CSR (cuSPARSE SpMV) and torch.mv, warmed up outside the profiled range, then
each product once inside it (cudaProfilerStart / Stop)."""
import os
import sys

import cupy as cp
import cupyx.scipy.sparse as csp
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tsp  # noqa: E402


def main():
    d, names = sys.argv[1], sys.argv[2].split(",")
    rng = np.random.default_rng(1)
    for nm in names:
        m = tsp.read_tsp(os.path.join(d, nm + ".tsp"))
        A = tsp.to_scipy(m)
        d_ptr = cp.asarray(A.indptr.astype(np.int32))
        d_ind = cp.asarray(A.indices.astype(np.int32))
        d_val = cp.asarray(A.data)
        cA = csp.csr_matrix((d_val, d_ind, d_ptr), shape=A.shape)
        cx = cp.asarray(rng.uniform(-1, 1, A.shape[1]).astype(A.data.dtype))
        tA = torch.sparse_csr_tensor(torch.from_dlpack(d_ptr), torch.from_dlpack(d_ind),
                                     torch.from_dlpack(d_val), size=A.shape)
        tx = torch.from_dlpack(cx)
        for _ in range(3):
            cA @ cx
            torch.mv(tA, tx)
        cp.cuda.Device().synchronize()
        print(f"== {nm}: {A.shape[0]} x {A.shape[1]}, nnz {A.nnz}, max row "
              f"{int(np.diff(A.indptr).max())}", flush=True)
        cp.cuda.runtime.profilerStart()
        cA @ cx
        cp.cuda.Device().synchronize()
        torch.mv(tA, tx)
        torch.cuda.synchronize()
        cp.cuda.runtime.profilerStop()
        del cA, tA, d_ptr, d_ind, d_val, cx, tx
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
