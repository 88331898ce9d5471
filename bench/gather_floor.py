#!/usr/bin/env python3
"""gather_floor.py FILE.tsp... -- what a CSR product's loads cost in CUDA on this GPU, the twin of
texla-bench's `stream` section (its last table, "CSR's floor on R-MAT columns", plain GL): the
entries' columns and values streamed by neighbouring threads (K an invocation, 4-byte loads, or
16-byte loads of four entries), x gathered at the columns, no rows and no y -- what any CSR
schedule reads, without its row bookkeeping. Beside them cuSPARSE's whole product (torch CSR) on
the same matrix, so the three (GL floor, CUDA floor, cuSPARSE) compare in one call. Real
matrices only.

x is a linear float array here (CUDA's vectors are), gathered by __ldg (the read-only path,
cached in L1) or by __ldcg (L2 only); the GL table gathers x from texla's 2D RGBA32F texture or an
SSBO. Median of 15 batches of CUDA events (each >= 2 ms) after warm-up; each kernel's sum is
checked against numpy's float64 sum of val * x[col] (within 1e-4 of the sum of |val * x[col]|).

    python3 bench/gather_floor.py /tmp/sps/rmat.tsp /tmp/sps/powerlaw_mid.tsp
"""
import os
import sys
import statistics
import warnings

import numpy as np
import cupy as cp
import torch

sys.dont_write_bytecode = True
warnings.filterwarnings("ignore", message="Sparse")  # torch's beta and invariant-check notices
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tsp  # noqa: E402

SRC = r"""
template <int K, int MODE>  // MODE 0: x constant, 1: __ldg (L1 and L2), 2: __ldcg (L2 only)
__device__ float xat(const float* __restrict__ x, unsigned c) {
    if (MODE == 0) return (float)(c & 1u);
    if (MODE == 1) return __ldg(x + c);
    return __ldcg(x + c);
}
template <int K, int MODE>
__device__ void g4(const unsigned* __restrict__ col, const float* __restrict__ val,
                   const float* __restrict__ x, long long n, float* out) {
    long long b = (long long)blockIdx.x * 256 * K + threadIdx.x;
    unsigned c[K]; float v[K]; float s = 0.f;
#pragma unroll
    for (int k = 0; k < K; ++k) { long long i = b + k * 256; c[k] = i < n ? col[i] : 0u; v[k] = i < n ? val[i] : 0.f; }
#pragma unroll
    for (int k = 0; k < K; ++k) s += v[k] * xat<K, MODE>(x, c[k]);
    if (s == 1234.5678f) out[0] = s;
}
template <int K, int MODE>
__device__ void g16(const uint4* __restrict__ col4, const float4* __restrict__ val4,
                    const float* __restrict__ x, long long n, float* out) {
    long long b4 = (long long)blockIdx.x * 64 * K + threadIdx.x;
    uint4 c[K / 4]; float4 v[K / 4]; float s = 0.f;
#pragma unroll
    for (int k = 0; k < K / 4; ++k) {
        long long i = b4 + k * 256;
        c[k] = 4 * i < n ? col4[i] : make_uint4(0, 0, 0, 0);
        v[k] = 4 * i < n ? val4[i] : make_float4(0.f, 0.f, 0.f, 0.f);
    }
#pragma unroll
    for (int k = 0; k < K / 4; ++k)
        s += v[k].x * xat<K, MODE>(x, c[k].x) + v[k].y * xat<K, MODE>(x, c[k].y) +
             v[k].z * xat<K, MODE>(x, c[k].z) + v[k].w * xat<K, MODE>(x, c[k].w);
    if (s == 1234.5678f) out[0] = s;
}
#define INST(K, M) \
extern "C" __global__ void __launch_bounds__(256) g4_##K##_##M(const unsigned* col, const float* val, const float* x, long long n, float* out) { g4<K, M>(col, val, x, n, out); } \
extern "C" __global__ void __launch_bounds__(256) g16_##K##_##M(const uint4* col, const float4* val, const float* x, long long n, float* out) { g16<K, M>(col, val, x, n, out); }
INST(4, 0) INST(4, 1) INST(4, 2) INST(8, 0) INST(8, 1) INST(8, 2)
// the sum, checked once: every entry's product added into out[1] (atomics; not timed)
extern "C" __global__ void check(const unsigned* col, const float* val, const float* x, long long n, float* out) {
    long long i = (long long)blockIdx.x * 256 + threadIdx.x;
    if (i < n) atomicAdd(out + 1, val[i] * __ldg(x + col[i]));
}
"""


def timed(fn):
    for _ in range(5):
        fn()
    cp.cuda.Device().synchronize()
    a, b = cp.cuda.Event(), cp.cuda.Event()
    a.record()
    fn()
    b.record()
    b.synchronize()
    inner = max(1, int(2.0 / max(cp.cuda.get_elapsed_time(a, b), 1e-3)))
    ts = []
    for _ in range(15):
        a.record()
        for _ in range(inner):
            fn()
        b.record()
        b.synchronize()
        ts.append(cp.cuda.get_elapsed_time(a, b) / inner)
    return statistics.median(ts)


def main(paths):
    mod = cp.RawModule(code=SRC, options=("-std=c++14",))
    print(f"GPU: {torch.cuda.get_device_name(0)}; CuPy {cp.__version__}, torch {torch.__version__}")
    for path in paths:
        m = tsp.read_tsp(path)
        if m.kind != 1:
            print(f"{path}: kind {m.kind}, real matrices only; skipped")
            continue
        n = m.nnz
        pad = (-n) % 16
        col = cp.asarray(np.concatenate([m.col.astype(np.uint32), np.zeros(pad, np.uint32)]))
        val = cp.asarray(np.concatenate([m.val.astype(np.float32), np.zeros(pad, np.float32)]))
        xh = (np.arange(m.cols) % 7 * 0.25).astype(np.float32)
        x = cp.asarray(xh)
        out = cp.zeros(2, cp.float32)
        mod.get_function("check")(((n + 255) // 256,), (256,), (col, val, x, np.int64(n), out))
        terms = m.val.astype(np.float64) * xh[m.col].astype(np.float64)
        want, mag = float(terms.sum()), float(np.abs(terms).sum())
        got = float(out[1].get())
        ok = abs(got - want) <= 1e-4 * max(1.0, mag)  # float32 atomics: relative to the terms' size
        name = os.path.basename(path)[:-4]
        print(f"\n### {name}: {m.rows} x {m.cols}, {n} entries ({n * 8 / 1e6:.1f} MB of columns and "
              f"values), x {m.cols * 4 / 1e6:.1f} MB; sum check {'ok' if ok else 'FAILED'} "
              f"({got:.6g} against {want:.6g})\n")
        print("| x | loads | K | us |\n|---|---|---|---|")
        for mode, xn in ((0, "none (x constant)"), (1, "__ldg"), (2, "__ldcg (L2 only)")):
            for kind in ("g4", "g16"):
                for K in (4, 8):
                    f = mod.get_function(f"{kind}_{K}_{mode}")
                    grid = ((n + 256 * K - 1) // (256 * K),)
                    ms = timed(lambda: f(grid, (256,), (col, val, x, np.int64(n), out)))
                    print(f"| {xn} | {'16-byte (4 entries)' if kind == 'g16' else '4-byte'} | {K} | "
                          f"{ms * 1e3:.1f} |")
        A = torch.sparse_csr_tensor(torch.from_numpy(m.row_ptr.astype(np.int32)).cuda(),
                                    torch.from_numpy(m.col.astype(np.int32)).cuda(),
                                    torch.from_numpy(m.val.astype(np.float32)).cuda(),
                                    size=(m.rows, m.cols))
        xt = torch.from_numpy(xh).cuda()
        ms = timed(lambda: torch.mv(A, xt))
        print(f"| cuSPARSE's whole product (torch CSR mv) | | | {ms * 1e3:.1f} |")
        sys.stdout.flush()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
