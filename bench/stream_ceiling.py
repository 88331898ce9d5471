#!/usr/bin/env python3
"""stream_ceiling.py MB... -- how fast this GPU streams a buffer of MB megabytes (10^6 bytes) that
it only reads: the floor under any kernel that must read those bytes, such as a sparse product
that reads its matrix's values once.

For each size: torch.sum of a float32 tensor, and a CuPy raw kernel that reads float4s in a
grid-stride loop (a fixed grid of 8 workgroups of 256 an SM, one atomic add a workgroup) -- the
plainest read there is. Each is timed on the same buffer over and over ("hot", as a product is
timed) and rotating over buffers of 256 MB or more in all ("cold": nothing left in the 50 MB L2).
Median of 25 batches of CUDA events after warm-up, a batch long enough (>= 2 ms) that launch gaps
do not count. Checks each kernel's sum against numpy's float64 sum (relative 1e-4).

    python3 bench/stream_ceiling.py 84.8 90 118
"""
import sys
import statistics

import numpy as np
import cupy as cp
import torch

READ4 = cp.RawKernel(r"""
extern "C" __global__ void read4(const float4* __restrict__ a, long long n4, float* out) {
    float s = 0.f;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4;
         i += (long long)gridDim.x * blockDim.x) {
        float4 v = a[i];
        s += (v.x + v.y) + (v.z + v.w);
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    __shared__ float w[8];
    if ((threadIdx.x & 31) == 0) w[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.f;
        for (int k = 0; k < 8; ++k) t += w[k];
        atomicAdd(out, t);
    }
}
""", "read4")


def timed(fn, inner):
    """GPU ms per call: the median of 25 batches of `inner` calls between two events"""
    for _ in range(3):
        fn(0)
    cp.cuda.Device().synchronize()
    torch.cuda.synchronize()
    ts = []
    for _ in range(25):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        for k in range(inner):
            fn(k)
        b.record()
        b.synchronize()
        ts.append(cp.cuda.get_elapsed_time(a, b) / inner)
    return statistics.median(ts)


def main(argv):
    sms = cp.cuda.Device().attributes["MultiProcessorCount"]
    name = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"# {name}, {sms} SMs; hot = the same buffer each call, cold = rotating over >= 256 MB")
    print("| MB | torch.sum hot | torch.sum cold | float4 read hot | float4 read cold | best TB/s (hot) |")
    print("|---|---|---|---|---|---|")
    rng = np.random.default_rng(7)
    for mb in (float(a) for a in argv):
        n4 = int(mb * 1e6) // 16
        nb = n4 * 16
        nsets = max(1, -(-256_000_000 // nb))
        host = rng.uniform(-1.0, 1.0, 4 * n4).astype(np.float32)
        ref = float(host.astype(np.float64).sum())
        bufs = [cp.asarray(host)] + [cp.asarray(host[::-1].copy()) for _ in range(nsets - 1)]
        tens = [torch.as_tensor(b, device="cuda") for b in bufs]
        out = cp.zeros(1, dtype=cp.float32)
        grid = 8 * sms

        def rd(k, sets):
            READ4((grid,), (256,), (bufs[k % sets], np.int64(n4), out))
        out.fill(0)
        rd(0, 1)
        got_r = float(out.get()[0])
        got_t = float(torch.sum(tens[0]).item())
        for nm, got in (("float4 read", got_r), ("torch.sum", got_t)):
            if abs(got - ref) > 1e-4 * max(1.0, float(np.abs(host).sum())):
                print(f"# CHECK FAILED: {nm} {got} against {ref}")
        inner = max(4, int(2.0 / max(nb / 2.0e12 * 1e3, 1e-3)))
        t_hot = timed(lambda k: torch.sum(tens[0]), inner)
        t_cold = timed(lambda k: torch.sum(tens[k % nsets]), inner)
        r_hot = timed(lambda k: rd(k, 1), inner)
        r_cold = timed(lambda k: rd(k, nsets), inner)
        best = min(t_hot, r_hot)
        print(f"| {mb:g} | {t_hot * 1e3:.1f} us | {t_cold * 1e3:.1f} us | {r_hot * 1e3:.1f} us | "
              f"{r_cold * 1e3:.1f} us | {nb / (best * 1e-3) / 1e12:.2f} |")
        del bufs, tens
        cp.get_default_memory_pool().free_all_blocks()
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1:] or ["84.8", "90", "118"])
