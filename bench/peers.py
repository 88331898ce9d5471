#!/usr/bin/env python3
"""peers.py -- CUDA library performance anchors (PyTorch + CuPy) to set beside texla's
own benchmark on the same GPU.  Runs on a CUDA machine with PyTorch and CuPy:

    python3 bench/peers.py [sections...] [--spdir DIR] [--json FILE]

sections: copy blas1 gemm gemv vadd reduce spmv cg tiny spsuite (none given: all; spsuite only with
--spdir, the .tsp files written by bench/spgen.py).  Full results go to $OUT/peers.json when OUT is set
(and to --json FILE); the compact table printed last is also written to $OUT/peers_table.txt.

Timing: CUDA events (the library's own), warm-up first, median over >= 20 timed
batches.  A batch is `inner` back-to-back calls between two events, preceded by a
GPU spin kernel ("pre-roll") long enough for the host to enqueue the whole batch,
so the number is GPU time per call, launch gaps excluded ([h] in the note marks
configs where the host could not keep ahead).  "cold" columns rotate over enough
independent input sets (>= 256 MB in all) that L2 (50 MB) holds nothing useful.
Fresh random float32 data every run; TF32 off (checked numerically: FP32 GEMM must
match float64 to < 1e-5, TF32 would give ~1e-4..3e-4).

PEERS_SMOKE=1 shrinks every size; on a machine without torch/cupy it also swaps in numpy stand-ins
(peers_mock.py) so the whole control flow, checks included, runs on a CPU.  Its timings mean nothing.
"""
import os
os.environ.setdefault("NVIDIA_TF32_OVERRIDE", "0")
os.environ.setdefault("CUPY_TF32", "0")
import sys
import time
import math
import json
import glob
import inspect
import argparse
import statistics
import subprocess
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True     # no __pycache__ beside the scripts
sys.path.insert(0, HERE)
import tsp  # noqa: E402

SECTIONS = ["copy", "blas1", "gemm", "gemv", "vadd", "reduce", "spmv", "cg", "tiny", "spsuite"]


def parse_args(argv):
    ap = argparse.ArgumentParser(description="CUDA peers (torch, CuPy) for texla's benchmarks; see the top of "
                                             "this file")
    ap.add_argument("sections", nargs="*", metavar="SECTION",
                    help="any of: " + " ".join(SECTIONS) + " (default: all; spsuite needs --spdir)")
    ap.add_argument("--spdir", default=os.environ.get("PEERS_SPDIR"),
                    help="folder of .tsp matrices from spgen.py (default: $PEERS_SPDIR)")
    ap.add_argument("--json", default=None, help="also write the full results to this file")
    a = ap.parse_intermixed_args(argv)
    bad = [x for x in a.sections if x not in SECTIONS]
    if bad:
        ap.error(f"unknown section(s) {bad}; known: {SECTIONS}")
    if a.spdir and not os.path.isdir(a.spdir):
        ap.error(f"--spdir {a.spdir}: not a directory")
    return a


ARGS = parse_args(sys.argv[1:]) if __name__ == "__main__" else parse_args([])
SPDIR = ARGS.spdir

SMOKE = bool(os.environ.get("PEERS_SMOKE"))
MOCK = False
if SMOKE:
    try:
        import torch  # noqa: F401
        import cupy  # noqa: F401
    except ImportError:
        import peers_mock
        peers_mock.install()
        MOCK = True

OUT = os.environ.get("OUT")
ROWS, CHECKS, ERRORS, SPSUITE = [], [], [], []
RNG = np.random.default_rng(int(time.time_ns() % (2**32)))
REPS = 25 if not MOCK else 5   # the mock (CPU smoke test) only exercises the control flow
COLD_BYTES = 256e6       # rotate over >= this many bytes of inputs
COLD_IF_BELOW = 128e6    # only rotate when one input set is smaller than this
F32 = np.float32
# sizes; PEERS_SMOKE=1 shrinks them all (a CPU smoke test of the control flow with mock modules)
CFG = dict(copy_n=64 * 1024 * 1024, blas1_p=(20, 22, 24, 26), gemm_n=(1024, 2048, 4096, 8192),
           gemv_n=(1024, 4096, 8192), vadd_w=(2048, 4096), spmv_m=(512, 1024, 2048, 4096),
           spmv_rand_n=1 << 20, cg_m=2048, chk_n=1024, reduce_n=(1024, 1 << 20, 1 << 24))
if SMOKE:
    CFG.update(copy_n=1 << 14, blas1_p=(10, 12), gemm_n=(64, 128), gemv_n=(64, 128), vadd_w=(16, 32),
               spmv_m=(16, 32), spmv_rand_n=1 << 12, cg_m=32, chk_n=64, reduce_n=(1024, 1 << 12, 1 << 14))


def log(*a):
    print(*a, flush=True)


def smi(tag):
    q = ("name,driver_version,pstate,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,"
         "power.draw,power.limit,temperature.gpu,memory.total")
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=" + q, "--format=csv"],
                             capture_output=True, text=True, timeout=30)
        txt = (out.stdout + out.stderr).strip()
    except Exception as e:  # noqa: BLE001
        txt = repr(e)
    log(f"[nvidia-smi {tag}]")
    for line in txt.splitlines():
        log("  " + line)
    return txt


SMI_BEFORE = smi("before")

import torch  # noqa: E402
TF32_NOTES = []
try:
    torch.backends.cuda.matmul.allow_tf32 = False
    TF32_NOTES.append("matmul.allow_tf32=False")
except Exception as e:  # noqa: BLE001
    TF32_NOTES.append(f"matmul.allow_tf32 failed: {e!r}")
try:
    torch.backends.cudnn.allow_tf32 = False
    TF32_NOTES.append("cudnn.allow_tf32=False")
except Exception as e:  # noqa: BLE001
    TF32_NOTES.append(f"cudnn.allow_tf32 failed: {e!r}")
try:
    torch.set_float32_matmul_precision("highest")
    TF32_NOTES.append("float32_matmul_precision=" + torch.get_float32_matmul_precision())
except Exception as e:  # noqa: BLE001
    TF32_NOTES.append(f"set_float32_matmul_precision failed: {e!r}")

import cupy as cp  # noqa: E402
try:
    from cupy import cublas  # noqa: E402
except Exception:  # noqa: BLE001
    cublas = None
import cupyx.scipy.sparse as csp  # noqa: E402
try:
    import cupyx.scipy.sparse.linalg as cspl  # noqa: E402
except Exception:  # noqa: BLE001
    cspl = None
try:
    import cupyx.cusparse as cusparse  # noqa: E402
except Exception:  # noqa: BLE001
    cusparse = None

DEV_NAME = torch.cuda.get_device_name(0)
PROPS = torch.cuda.get_device_properties(0)


def info():
    log("== device")
    log(f"torch.cuda.get_device_name(0): {DEV_NAME}")
    l2 = getattr(PROPS, "L2_cache_size", None)
    log(f"  SMs={PROPS.multi_processor_count} mem={PROPS.total_memory/2**30:.1f} GiB "
        f"L2={l2/2**20 if l2 else '?'} MiB cc={PROPS.major}.{PROPS.minor}")
    log(f"  torch {torch.__version__} (CUDA {torch.version.cuda}), cupy {cp.__version__}, "
        f"numpy {np.__version__}, python {sys.version.split()[0]}")
    try:
        log(f"  cupy CUDA runtime {cp.cuda.runtime.runtimeGetVersion()}, driver "
            f"{cp.cuda.runtime.driverGetVersion()}, cuBLAS {cp.cuda.cublas.getVersion(cp.cuda.device.get_cublas_handle())}"
            f", cuSPARSE {cp.cuda.cusparse.getVersion(cp.cuda.device.get_cusparse_handle())}")
    except Exception as e:  # noqa: BLE001
        log(f"  (library versions: {e!r})")
    try:
        from cupy._core import _accelerator
        log(f"  cupy routine accelerators: {_accelerator.get_routine_accelerators()}, "
            f"reduction accelerators: {_accelerator.get_reduction_accelerators()}")
    except Exception as e:  # noqa: BLE001
        log(f"  (cupy accelerators: {e!r})")
    log(f"  env NVIDIA_TF32_OVERRIDE={os.environ.get('NVIDIA_TF32_OVERRIDE')} "
        f"CUPY_TF32={os.environ.get('CUPY_TF32')}; torch: {'; '.join(TF32_NOTES)}")


# ----------------------------------------------------------------------------- timing
class TorchEv:
    def __init__(self):
        self.s = torch.cuda.Event(enable_timing=True)
        self.e = torch.cuda.Event(enable_timing=True)

    def start(self):
        self.s.record()

    def stop(self):
        self.e.record()

    def ms(self):
        self.e.synchronize()
        return self.s.elapsed_time(self.e)


class CupyEv:
    def __init__(self):
        self.s = cp.cuda.Event()
        self.e = cp.cuda.Event()

    def start(self):
        self.s.record()

    def stop(self):
        self.e.record()

    def ms(self):
        self.e.synchronize()
        return cp.cuda.get_elapsed_time(self.s, self.e)


_SPIN = cp.RawKernel(r'''
extern "C" __global__ void pk_spin(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) { }
}''', "pk_spin")
CYCLES_PER_MS = 2.0e6   # ~2 GHz SM clock; only sizes the pre-roll


def spin_cp(ms):
    _SPIN((1,), (1,), (np.int64(ms * CYCLES_PER_MS),))


def spin_torch(ms):
    if hasattr(torch.cuda, "_sleep"):
        torch.cuda._sleep(int(ms * CYCLES_PER_MS))
    else:
        spin_cp(ms)


def sync_torch():
    torch.cuda.synchronize()


def sync_cp():
    cp.cuda.Device().synchronize()


def bench(fn, lib, nsets=1, reps=REPS, warm=3, target_ms=2.0, max_inner=400, preroll=True):
    """fn(k) runs one call on input set k (0..nsets-1). Returns dict with median ms/call."""
    Ev, sync, spin = ((TorchEv, sync_torch, spin_torch) if lib == "torch"
                      else (CupyEv, sync_cp, spin_cp))
    for i in range(max(warm, nsets)):
        fn(i % nsets)
    sync()
    k = 0
    ev = Ev()
    t0 = time.perf_counter()
    ev.start()
    for _ in range(3):
        fn(k % nsets)
        k += 1
    ev.stop()
    host_ms = (time.perf_counter() - t0) * 1e3 / 3
    est = ev.ms() / 3
    inner = int(min(max_inner, max(1, math.ceil(target_ms / max(est, 1e-4)))))
    times, hosts, flagged = [], [], 0
    for _ in range(reps):
        sync()
        pre = min(60.0, 1.5 * host_ms * inner + 0.05) if preroll else 0.0
        if preroll:
            spin(pre)
        t0 = time.perf_counter()
        ev.start()
        for _ in range(inner):
            fn(k % nsets)
            k += 1
        ev.stop()
        tw = (time.perf_counter() - t0) * 1e3
        hosts.append(tw)
        if preroll and tw > pre:
            flagged += 1
        times.append(ev.ms() / inner)
    sync()
    return dict(ms=statistics.median(times), min=min(times), max=max(times), inner=inner,
                reps=reps, host_us=statistics.median(hosts) / inner * 1e3,
                hostbound=flagged / reps, nsets=nsets)


def fmt_rate(r):
    if r is None:
        return "-"
    if r >= 1e12:
        return f"{r/1e12:.2f}T"
    return f"{r/1e9:.1f}G"


def row(sec, op, size, res, nbytes=None, flops=None, cold=None, note=""):
    ms = res["ms"]
    gbs = nbytes / (ms * 1e-3) / 1e9 if nbytes else None
    rate = flops / (ms * 1e-3) if flops else None
    cgbs = nbytes / (cold["ms"] * 1e-3) / 1e9 if (cold and nbytes) else None
    cms = cold["ms"] if cold else None
    if res.get("hostbound", 0) > 0.2 or (cold and cold.get("hostbound", 0) > 0.2):
        note = (note + " [h]").strip()
    r = dict(sec=sec, op=op, size=size, ms=ms, gbs=gbs, rate=rate, cold_ms=cms, cold_gbs=cgbs,
             note=note, spread=(res["min"], res["max"]), inner=res["inner"], reps=res["reps"],
             host_us=res["host_us"])
    ROWS.append(r)
    log(f"  {sec:6s} {op:28s} {size:>12s} {ms:10.4f} ms  "
        f"{(f'{gbs:8.1f} GB/s' if gbs else ''):>13s} {fmt_rate(rate):>8s}"
        f"{(f'  cold {cms:.4f} ms {cgbs:.1f} GB/s' if (cold and cgbs) else '')}"
        f"  [min {res['min']:.4f} max {res['max']:.4f} inner {res['inner']} host {res['host_us']:.1f}us/call] {note}")


def check(name, got, ref, tol, scale=None):
    dt = np.complex128 if (np.iscomplexobj(got) or np.iscomplexobj(ref)) else np.float64
    got = np.asarray(got, dtype=dt)
    ref = np.asarray(ref, dtype=dt)
    den = scale if scale is not None else max(float(np.linalg.norm(ref)), 1e-300)
    err = float(np.linalg.norm((got - ref).ravel())) / den
    ok = bool(np.all(np.isfinite(got)) and np.isfinite(err) and err <= tol)
    CHECKS.append((name, err, tol, ok))
    log(f"  check {name:40s} rel err {err:.2e} (tol {tol:.0e}) {'PASS' if ok else 'FAIL'}")
    return ok


def attempt(label, fn):
    """Run one measurement/check group; on failure log it and carry on."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001
        ERRORS.append(f"{label}: {e!r}"[:300])
        log(f"  ERROR in {label}: {e!r}")
        traceback.print_exc()
        sys.stdout.flush()
        return None


def free():
    try:
        cp.get_default_memory_pool().free_all_blocks()
    except Exception:  # noqa: BLE001
        pass
    torch.cuda.empty_cache()


def nsets_for(set_bytes):
    return 1 if set_bytes >= COLD_IF_BELOW else int(math.ceil(COLD_BYTES / set_bytes))


def t_randn(*shape):
    return torch.randn(*shape, device="cuda", dtype=torch.float32)


def c_randn(*shape):
    return cp.random.standard_normal(shape, dtype=cp.float32)


def h_randn(*shape):
    return RNG.standard_normal(shape).astype(F32)


EW_COPY = cp.ElementwiseKernel("T x", "T y", "y = x", "pk_copy")
EW_SAXPY = cp.ElementwiseKernel("float32 x, float32 a", "float32 y", "y = a * x + y", "pk_saxpy")


# ----------------------------------------------------------------------------- 1. copy
def sec_copy():
    log("== 1. device-to-device copy")
    hx = h_randn(1000)

    def chk_torch():
        t_s = torch.from_numpy(hx).cuda()
        t_d = torch.full_like(t_s, float("nan"))
        t_d.copy_(t_s)
        check("copy torch copy_", t_d.cpu().numpy(), hx, 0.0)
    attempt("copy check torch", chk_torch)
    c_s = cp.asarray(hx)
    for nm, f in (("cupy copyto", lambda d, s: cp.copyto(d, s)),
                  ("cupy memcpyAsync", lambda d, s: d.data.copy_from_device_async(s.data, s.nbytes)),
                  ("cupy EW kernel", lambda d, s: EW_COPY(s, d))):
        def chk(nm=nm, f=f):
            c_d = cp.full_like(c_s, cp.nan)
            f(c_d, c_s)
            check("copy " + nm, c_d.get(), hx, 0.0)
        attempt("copy check " + nm, chk)

    N = CFG["copy_n"]  # 64 Mi floats = 256 MB
    nb = 2 * N * 4

    def t_part():
        ts, td = t_randn(N), torch.empty(N, device="cuda")
        r = bench(lambda k: td.copy_(ts), "torch")
        row("copy", "torch copy_", "256MB", r, nbytes=nb)
        log(f"  full-size torch copy exact: {bool(torch.equal(td, ts))}")
    attempt("copy torch", t_part)
    free()
    cs, cd = c_randn(N), cp.empty(N, dtype=cp.float32)

    def c1():
        r = bench(lambda k: cp.copyto(cd, cs), "cupy")
        row("copy", "cupy copyto", "256MB", r, nbytes=nb)

    def c2():
        r = bench(lambda k: cd.data.copy_from_device_async(cs.data, cs.nbytes), "cupy")
        row("copy", "cupy cudaMemcpyAsync D2D", "256MB", r, nbytes=nb)

    def c3():
        cd.fill(cp.nan)
        r = bench(lambda k: EW_COPY(cs, cd), "cupy")
        row("copy", "cupy EW kernel y=x", "256MB", r, nbytes=nb)
        log(f"  full-size cupy EW copy exact: {bool(cp.array_equal(cd, cs))}")
    attempt("copy cupy copyto", c1)
    attempt("copy cupy memcpy", c2)
    attempt("copy cupy EW", c3)
    cs = cd = None
    free()


# ----------------------------------------------------------------------------- 2. saxpy / dot
def sec_blas1():
    log("== 2. SAXPY y=a*x+y and dot(x,y)")
    n = 4097
    hx, hy = h_randn(n), h_randn(n)
    a = F32(RNG.uniform(0.5, 1.5))
    ref = np.float64(a) * hx.astype(np.float64) + hy

    def k1():
        ty = torch.from_numpy(hy.copy()).cuda()
        ty.add_(torch.from_numpy(hx).cuda(), alpha=float(a))
        check("saxpy torch add_(alpha)", ty.cpu().numpy(), ref, 1e-6)

    def k2():
        cy = cp.asarray(hy)
        cublas.axpy(a, cp.asarray(hx), cy)
        check("saxpy cupy cublas.axpy", cy.get(), ref, 1e-6)

    def k3():
        cy = cp.asarray(hy)
        EW_SAXPY(cp.asarray(hx), a, cy)
        check("saxpy cupy EW kernel", cy.get(), ref, 1e-6)
    attempt("saxpy check torch", k1)
    attempt("saxpy check cublas", k2)
    attempt("saxpy check EW", k3)
    n = 1 << 20
    dx, dy = h_randn(n), h_randn(n)
    dref = float(np.dot(dx.astype(np.float64), dy.astype(np.float64)))
    scale = float(np.linalg.norm(dx.astype(np.float64)) * np.linalg.norm(dy.astype(np.float64)))
    attempt("dot check torch", lambda: check(
        "dot torch.dot (err/(|x||y|))",
        torch.dot(torch.from_numpy(dx).cuda(), torch.from_numpy(dy).cuda()).item(), dref, 1e-6, scale=scale))
    attempt("dot check cublas", lambda: check(
        "dot cupy cublas.dot (err/(|x||y|))",
        float(cublas.dot(cp.asarray(dx), cp.asarray(dy))), dref, 1e-6, scale=scale))

    for p in CFG["blas1_p"]:
        N = 1 << p
        sz = f"2^{p}"
        ns = nsets_for(8 * N)
        a = float(RNG.uniform(0.5, 1.5)) * 1e-3
        a32 = F32(a)

        def tpart():
            txs = [t_randn(N) for _ in range(ns)]
            tys = [t_randn(N) for _ in range(ns)]
            hot = bench(lambda k: tys[0].add_(txs[0], alpha=a), "torch")
            cold = bench(lambda k: tys[k].add_(txs[k], alpha=a), "torch", nsets=ns) if ns > 1 else None
            row("saxpy", "torch add_(x,alpha)", sz, hot, nbytes=12 * N, flops=2 * N, cold=cold)
            hot = bench(lambda k: torch.dot(txs[0], tys[0]), "torch")
            cold = bench(lambda k: torch.dot(txs[k], tys[k]), "torch", nsets=ns) if ns > 1 else None
            row("dot", "torch.dot", sz, hot, nbytes=8 * N, flops=2 * N, cold=cold)
        attempt(f"saxpy/dot torch {sz}", tpart)
        free()
        cxs = [c_randn(N) for _ in range(ns)]
        cys = [c_randn(N) for _ in range(ns)]

        def cpart1():
            hot = bench(lambda k: cublas.axpy(a32, cxs[0], cys[0]), "cupy")
            cold = bench(lambda k: cublas.axpy(a32, cxs[k], cys[k]), "cupy", nsets=ns) if ns > 1 else None
            row("saxpy", "cupy cublas.axpy", sz, hot, nbytes=12 * N, flops=2 * N, cold=cold)

        def cpart2():
            hot = bench(lambda k: EW_SAXPY(cxs[0], a32, cys[0]), "cupy")
            cold = bench(lambda k: EW_SAXPY(cxs[k], a32, cys[k]), "cupy", nsets=ns) if ns > 1 else None
            row("saxpy", "cupy EW kernel", sz, hot, nbytes=12 * N, flops=2 * N, cold=cold)

        def cpart3():
            hot = bench(lambda k: cublas.dot(cxs[0], cys[0]), "cupy")
            cold = bench(lambda k: cublas.dot(cxs[k], cys[k]), "cupy", nsets=ns) if ns > 1 else None
            row("dot", "cupy cublas.dot", sz, hot, nbytes=8 * N, flops=2 * N, cold=cold)
        attempt(f"saxpy cublas {sz}", cpart1)
        attempt(f"saxpy EW {sz}", cpart2)
        attempt(f"dot cublas {sz}", cpart3)
        cxs = cys = None
        free()


# ----------------------------------------------------------------------------- 3. SGEMM
def sec_gemm():
    log("== 3. SGEMM FP32 (TF32 off): A*B, A^T*B, A*B^T")
    N = CFG["chk_n"]
    hA, hB = h_randn(N, N), h_randn(N, N)
    A64, B64 = hA.astype(np.float64), hB.astype(np.float64)
    refNN, refTN, refNT = A64 @ B64, A64.T @ B64, A64 @ B64.T

    def tchk():
        tA, tB = torch.from_numpy(hA).cuda(), torch.from_numpy(hB).cuda()
        tC = torch.full((N, N), float("nan"), device="cuda")
        torch.mm(tA, tB, out=tC)
        check("sgemm torch A*B   N=1024", tC.cpu().numpy(), refNN, 1e-5)
        tC.fill_(float("nan"))
        torch.mm(tA.t(), tB, out=tC)
        check("sgemm torch A^T*B N=1024", tC.cpu().numpy(), refTN, 1e-5)
        tC.fill_(float("nan"))
        torch.mm(tA, tB.t(), out=tC)
        check("sgemm torch A*B^T N=1024", tC.cpu().numpy(), refNT, 1e-5)

    def cchk():
        cA, cB = cp.asarray(hA), cp.asarray(hB)
        cC = cp.full((N, N), cp.nan, dtype=cp.float32)
        cp.matmul(cA, cB, out=cC)
        check("sgemm cupy A*B   N=1024", cC.get(), refNN, 1e-5)
        cC.fill(cp.nan)
        cp.matmul(cA.T, cB, out=cC)
        check("sgemm cupy A^T*B N=1024", cC.get(), refTN, 1e-5)
        cC.fill(cp.nan)
        cp.matmul(cA, cB.T, out=cC)
        check("sgemm cupy A*B^T N=1024", cC.get(), refNT, 1e-5)
    attempt("sgemm check torch", tchk)
    attempt("sgemm check cupy", cchk)
    s = 8
    for N in CFG["gemm_n"]:
        fl = 2 * N ** 3

        def tpart():
            tA, tB = t_randn(N, N), t_randn(N, N)
            tC = torch.empty(N, N, device="cuda")
            r = bench(lambda k: torch.mm(tA, tB, out=tC), "torch", target_ms=5.0)
            row("sgemm", "torch mm A*B", str(N), r, flops=fl)
            r = bench(lambda k: torch.mm(tA.t(), tB, out=tC), "torch", target_ms=5.0)
            row("sgemm", "torch mm A^T*B", str(N), r, flops=fl)
            r = bench(lambda k: torch.mm(tA, tB.t(), out=tC), "torch", target_ms=5.0)
            row("sgemm", "torch mm A*B^T", str(N), r, flops=fl)
            if N == CFG["gemm_n"][-1]:
                hA8 = tA.cpu().numpy().astype(np.float64)
                hB8 = tB.cpu().numpy().astype(np.float64)
                tC.fill_(float("nan"))
                torch.mm(tA, tB, out=tC)
                check("sgemm torch A*B   N=8192 (8 rows)", tC[:s].cpu().numpy(), hA8[:s] @ hB8, 1e-5)
                tC.fill_(float("nan"))
                torch.mm(tA.t(), tB, out=tC)
                check("sgemm torch A^T*B N=8192 (8 rows)", tC[:s].cpu().numpy(), hA8[:, :s].T @ hB8, 1e-5)
                tC.fill_(float("nan"))
                torch.mm(tA, tB.t(), out=tC)
                check("sgemm torch A*B^T N=8192 (8 rows)", tC[:s].cpu().numpy(), hA8[:s] @ hB8.T, 1e-5)

        def cpart():
            cA, cB = c_randn(N, N), c_randn(N, N)
            cC = cp.empty((N, N), dtype=cp.float32)
            r = bench(lambda k: cp.matmul(cA, cB, out=cC), "cupy", target_ms=5.0)
            row("sgemm", "cupy matmul A*B", str(N), r, flops=fl)
            r = bench(lambda k: cp.matmul(cA.T, cB, out=cC), "cupy", target_ms=5.0)
            row("sgemm", "cupy matmul A^T*B", str(N), r, flops=fl)
            r = bench(lambda k: cp.matmul(cA, cB.T, out=cC), "cupy", target_ms=5.0)
            row("sgemm", "cupy matmul A*B^T", str(N), r, flops=fl)
            if N == CFG["gemm_n"][-1]:
                hA8 = cA.get().astype(np.float64)
                hB8 = cB.get().astype(np.float64)
                cC.fill(cp.nan)
                cp.matmul(cA, cB, out=cC)
                check("sgemm cupy A*B   N=8192 (8 rows)", cC[:s].get(), hA8[:s] @ hB8, 1e-5)
                cC.fill(cp.nan)
                cp.matmul(cA.T, cB, out=cC)
                check("sgemm cupy A^T*B N=8192 (8 rows)", cC[:s].get(), hA8[:, :s].T @ hB8, 1e-5)
                cC.fill(cp.nan)
                cp.matmul(cA, cB.T, out=cC)
                check("sgemm cupy A*B^T N=8192 (8 rows)", cC[:s].get(), hA8[:s] @ hB8.T, 1e-5)
        attempt(f"sgemm torch {N}", tpart)
        free()
        attempt(f"sgemm cupy {N}", cpart)
        free()


# ----------------------------------------------------------------------------- 4. GEMV
def sec_gemv():
    log("== 4. dense matrix-vector y = A*x")
    N = CFG["chk_n"]
    hA, hx = h_randn(N, N), h_randn(N)
    ref = hA.astype(np.float64) @ hx.astype(np.float64)
    refT = hA.astype(np.float64).T @ hx.astype(np.float64)

    def tchk():
        ty = torch.full((N,), float("nan"), device="cuda")
        torch.mv(torch.from_numpy(hA).cuda(), torch.from_numpy(hx).cuda(), out=ty)
        check("gemv torch.mv N=1024", ty.cpu().numpy(), ref, 1e-5)
        ty.fill_(float("nan"))
        torch.mv(torch.from_numpy(hA).cuda().t(), torch.from_numpy(hx).cuda(), out=ty)
        check("gemv torch.mv A^T N=1024", ty.cpu().numpy(), refT, 1e-5)
    attempt("gemv check torch", tchk)
    attempt("gemv check cupy", lambda: check("gemv cupy A@x N=1024",
                                             (cp.asarray(hA) @ cp.asarray(hx)).get(), ref, 1e-5))
    for N in CFG["gemv_n"]:
        nb = 4 * N * N + 8 * N
        ns = nsets_for(4 * N * N)

        def tpart():
            tAs = [t_randn(N, N) for _ in range(ns)]
            txs = [t_randn(N) for _ in range(ns)]
            ty = torch.empty(N, device="cuda")
            hot = bench(lambda k: torch.mv(tAs[0], txs[0], out=ty), "torch")
            cold = bench(lambda k: torch.mv(tAs[k], txs[k], out=ty), "torch", nsets=ns) if ns > 1 else None
            row("gemv", "torch.mv", str(N), hot, nbytes=nb, flops=2 * N * N, cold=cold)
            hot = bench(lambda k: torch.mv(tAs[0].t(), txs[0], out=ty), "torch")
            cold = bench(lambda k: torch.mv(tAs[k].t(), txs[k], out=ty), "torch", nsets=ns) if ns > 1 else None
            row("gemv", "torch.mv A^T x", str(N), hot, nbytes=nb, flops=2 * N * N, cold=cold)

        def cpart():
            cAs = [c_randn(N, N) for _ in range(ns)]
            cxs = [c_randn(N) for _ in range(ns)]
            hot = bench(lambda k: cAs[0] @ cxs[0], "cupy")
            cold = bench(lambda k: cAs[k] @ cxs[k], "cupy", nsets=ns) if ns > 1 else None
            row("gemv", "cupy A@x", str(N), hot, nbytes=nb, flops=2 * N * N, cold=cold)
        attempt(f"gemv torch {N}", tpart)
        free()
        attempt(f"gemv cupy {N}", cpart)
        free()


# ----------------------------------------------------------------------------- 4b. vector add (peer of the GL texture add)
def sec_vadd():
    log("== 4b. c = a + b, same element counts as an RGBA32F texture add (W x W texels x 4)")
    hx, hy = h_randn(5000), h_randn(5000)
    ref = (hx + hy).astype(np.float64)

    def tchk():
        tc = torch.full((5000,), float("nan"), device="cuda")
        torch.add(torch.from_numpy(hx).cuda(), torch.from_numpy(hy).cuda(), out=tc)
        check("vadd torch.add", tc.cpu().numpy(), ref, 0.0)

    def cchk():
        cc = cp.full(5000, cp.nan, dtype=cp.float32)
        cp.add(cp.asarray(hx), cp.asarray(hy), out=cc)
        check("vadd cupy.add", cc.get(), ref, 0.0)
    attempt("vadd check torch", tchk)
    attempt("vadd check cupy", cchk)
    for w in CFG["vadd_w"]:
        N = w * w * 4
        sz = f"{w}^2x4"

        def tpart():
            ta, tb, tc = t_randn(N), t_randn(N), torch.empty(N, device="cuda")
            r = bench(lambda k: torch.add(ta, tb, out=tc), "torch")
            row("vadd", "torch.add(out=)", sz, r, nbytes=12 * N, flops=N)

        def cpart():
            ca, cb, cc = c_randn(N), c_randn(N), cp.empty(N, dtype=cp.float32)
            r = bench(lambda k: cp.add(ca, cb, out=cc), "cupy")
            row("vadd", "cupy.add(out=)", sz, r, nbytes=12 * N, flops=N)
        attempt(f"vadd torch {sz}", tpart)
        free()
        attempt(f"vadd cupy {sz}", cpart)
        free()


# ----------------------------------------------------------------------------- 4c. reductions to a GPU scalar
def sec_reduce():
    log("== 4c. reductions of float32 vectors to a GPU scalar (torch): sum, dot, vector_norm, max, min, "
        "abs().max")
    n = CFG["reduce_n"][1]
    hx, hy = h_randn(n), h_randn(n)
    x64, y64 = hx.astype(np.float64), hy.astype(np.float64)

    def chk():
        tx, ty = torch.from_numpy(hx).cuda(), torch.from_numpy(hy).cuda()
        sz = f"n={n}"
        check(f"reduce torch.sum {sz} (err/sum|x|)", torch.sum(tx).item(), x64.sum(), 1e-6,
              scale=float(np.abs(x64).sum()))
        check(f"reduce torch.dot {sz} (err/(|x||y|))", torch.dot(tx, ty).item(), x64 @ y64, 1e-6,
              scale=float(np.linalg.norm(x64) * np.linalg.norm(y64)))
        check(f"reduce torch.linalg.vector_norm {sz}", torch.linalg.vector_norm(tx).item(),
              np.linalg.norm(x64), 1e-6)
        check(f"reduce torch.max {sz}", torch.max(tx).item(), x64.max(), 0.0)
        check(f"reduce torch.min {sz}", torch.min(tx).item(), x64.min(), 0.0)
        check(f"reduce abs().max {sz}", tx.abs().max().item(), np.abs(x64).max(), 0.0)
    attempt("reduce checks", chk)
    ops = (("torch.sum(x)", lambda x, y: torch.sum(x), 4, 1, ""),
           ("torch.dot(x,y)", lambda x, y: torch.dot(x, y), 8, 2, ""),
           ("torch.linalg.vector_norm", lambda x, y: torch.linalg.vector_norm(x), 4, 2, ""),
           ("torch.max(x)", lambda x, y: torch.max(x), 4, 1, ""),
           ("torch.min(x)", lambda x, y: torch.min(x), 4, 1, ""),
           ("x.abs().max()", lambda x, y: x.abs().max(), 4, 2, "abs() writes a temporary: 12N bytes move"))
    for N in CFG["reduce_n"]:
        p = N.bit_length() - 1
        sz = f"2^{p}" if N == 1 << p and N > 4096 else str(N)
        # cold rotation only for the large sizes (a 1024-element vector is a latency test)
        ns = nsets_for(8 * N) if N >= CFG["reduce_n"][1] else 1

        def part(N=N, sz=sz, ns=ns):
            txs = [t_randn(N) for _ in range(ns)]
            tys = [t_randn(N) for _ in range(ns)]
            for nm, f, bpe, fpe, note in ops:
                def one(nm=nm, f=f, bpe=bpe, fpe=fpe, note=note):
                    hot = bench(lambda k: f(txs[0], tys[0]), "torch")
                    cold = bench(lambda k: f(txs[k], tys[k]), "torch", nsets=ns) if ns > 1 else None
                    row("reduce", nm, sz, hot, nbytes=bpe * N, flops=fpe * N, cold=cold, note=note)
                attempt(f"reduce {nm} {sz}", one)
        attempt(f"reduce {sz}", part)
        free()


# ----------------------------------------------------------------------------- sparse builders
def poisson_arrays(m, xp):
    """5-point 2D Poisson (4 on the diagonal, -1 to the 4 neighbours), m x m grid,
    row-major numbering; CSR arrays with sorted columns."""
    n = m * m
    i = xp.arange(n, dtype=xp.int32)
    r = i // m
    c = i - r * m
    cols = xp.stack([i - m, i - 1, i, i + 1, i + m], axis=1)
    valid = xp.stack([r > 0, c > 0, xp.ones(n, dtype=bool), c < m - 1, r < m - 1], axis=1)
    vals = xp.full((n, 5), -1.0, dtype=xp.float32)
    vals[:, 2] = 4.0
    indptr = xp.zeros(n + 1, dtype=xp.int32)
    indptr[1:] = xp.cumsum(valid.sum(axis=1), dtype=xp.int32)
    return vals[valid], cols[valid].astype(xp.int32), indptr


def random_arrays(n, k, xp, rng_int, rng_uni):
    cols = xp.sort(rng_int(n, k), axis=1).astype(xp.int32)
    vals = rng_uni(n, k).astype(xp.float32)
    indptr = xp.arange(0, n * k + 1, k, dtype=xp.int32)
    return vals.ravel(), cols.ravel(), indptr


def cp_rand_arrays(n, k):
    return random_arrays(n, k, cp,
                         lambda a, b: cp.random.randint(0, n, size=(a, b), dtype=cp.int32),
                         lambda a, b: cp.random.uniform(-1.0, 1.0, size=(a, b)))


def to_csr(arrs, n, canonical_known):
    vals, cols, indptr = arrs
    A = csp.csr_matrix((vals, cols, indptr), shape=(n, n))
    if canonical_known:
        try:
            A.has_canonical_format = True
        except Exception:  # noqa: BLE001
            A.sum_duplicates()
    else:
        A.sum_duplicates()
    return A


def torch_csr(A):
    return torch.sparse_csr_tensor(torch.from_dlpack(A.indptr), torch.from_dlpack(A.indices),
                                   torch.from_dlpack(A.data), size=A.shape)


# ----------------------------------------------------------------------------- 5. SpMV
def sec_spmv():
    log("== 5. CSR SpMV (cuSPARSE via cupyx, and torch sparse CSR)")
    import scipy.sparse as sp

    def chk_poisson():
        m = 40
        n = m * m
        A = to_csr(poisson_arrays(m, cp), n, True)
        T = sp.diags([-np.ones(m - 1), 2 * np.ones(m), -np.ones(m - 1)], [-1, 0, 1])
        I = sp.identity(m)
        Aref = (sp.kron(I, T) + sp.kron(T, I)).tocsr()
        Ah = sp.csr_matrix((A.data.get(), A.indices.get(), A.indptr.get()), shape=(n, n))
        log(f"  poisson builder: nnz {A.nnz} vs scipy kron {Aref.nnz}")
        check("poisson builder == scipy kron (m=40)", Ah.toarray(), Aref.toarray(), 0.0)
        hx = h_randn(n)
        ref = Aref @ hx.astype(np.float64)
        check("spmv cupyx poisson m=40", (A @ cp.asarray(hx)).get(), ref, 1e-6)
        attempt("spmv check torch poisson", lambda: check(
            "spmv torch csr poisson m=40",
            torch.mv(torch_csr(A), torch.from_dlpack(cp.asarray(hx))).cpu().numpy(), ref, 1e-6))

    def chk_random():
        nr = 3000
        arrs = cp_rand_arrays(nr, 16)
        Ah = sp.csr_matrix(tuple(a.get() for a in arrs), shape=(nr, nr))
        A = to_csr(arrs, nr, False)
        hx = h_randn(nr)
        ref = Ah.astype(np.float64) @ hx.astype(np.float64)
        check("spmv cupyx random n=3000 k=16", (A @ cp.asarray(hx)).get(), ref, 1e-6)
        attempt("spmv check torch random", lambda: check(
            "spmv torch csr random n=3000",
            torch.mv(torch_csr(A), torch.from_dlpack(cp.asarray(hx))).cpu().numpy(), ref, 1e-6))
    attempt("spmv check poisson", chk_poisson)
    attempt("spmv check random", chk_random)
    free()

    nr = CFG["spmv_rand_n"]
    cases = ([(f"poisson {m}^2", m, None) for m in CFG["spmv_m"]]
             + [(f"random 2^{nr.bit_length() - 1} k=16", None, nr)])
    for label, m, nrand in cases:
        st = {}

        def build():
            if m:
                n = m * m
                st["A"] = to_csr(poisson_arrays(m, cp), n, True)
            else:
                n = nrand
                st["A"] = to_csr(cp_rand_arrays(n, 16), n, False)
            st["n"] = n
        if attempt(f"spmv build {label}", build) is None and "A" not in st:
            continue
        A, n = st["A"], st["n"]
        nnz = int(A.nnz)
        nb = nnz * 8 + 2 * n * 4
        fl = 2 * nnz
        ns = nsets_for(nb)
        free()

        def cpart():
            As = [A] + [A.copy() for _ in range(ns - 1)]
            for B in As[1:]:
                try:
                    B.has_canonical_format = True
                except Exception:  # noqa: BLE001
                    pass
            xs = [c_randn(n) for _ in range(ns)]
            st["x"] = xs[0]
            hot = bench(lambda k: A @ xs[0], "cupy")
            cold = bench(lambda k: As[k] @ xs[k], "cupy", nsets=ns) if ns > 1 else None
            row("spmv", "cupyx csr @ x", label, hot, nbytes=nb, flops=fl, cold=cold, note=f"nnz={nnz}")

        def tpart():
            tA = torch_csr(A)
            tx = torch.from_dlpack(st["x"]) if "x" in st else t_randn(n)
            r = bench(lambda k: torch.mv(tA, tx), "torch")
            row("spmv", "torch csr mv", label, r, nbytes=nb, flops=fl, note=f"nnz={nnz}")
        attempt(f"spmv cupyx {label}", cpart)
        attempt(f"spmv torch {label}", tpart)
        A = None
        st.clear()
        free()


# ----------------------------------------------------------------------------- 6. CG
CG_XR = cp.ElementwiseKernel(
    "float32 p, float32 q, raw float32 rr, raw float32 pq", "float32 x, float32 r",
    "float a = rr[0] / pq[0]; x += a * p; r -= a * q;", "pk_cg_xr")
CG_P = cp.ElementwiseKernel(
    "float32 r, raw float32 rrn, raw float32 rro", "float32 p",
    "p = r + (rrn[0] / rro[0]) * p;", "pk_cg_p")


def dot_into(x, y, out):
    try:
        cublas.dot(x, y, out=out)
    except Exception:  # noqa: BLE001
        out[...] = cp.dot(x, y)


def cg_hand(A, b, iters):
    """Plain CG from x0=0, fixed iteration count, no host sync (scalars stay on the GPU)."""
    x = cp.zeros_like(b)
    r = b.copy()
    p = b.copy()
    rr = cp.empty(1, dtype=cp.float32)
    rrn = cp.empty(1, dtype=cp.float32)
    pq = cp.empty(1, dtype=cp.float32)
    dot_into(r, r, rr)
    for _ in range(iters):
        q = A @ p
        dot_into(p, q, pq)
        CG_XR(p, q, rr, pq, x, r)
        dot_into(r, r, rrn)
        CG_P(r, rrn, rr, p)
        rr, rrn = rrn, rr
    return x


def cg_np(A, b, iters):
    x = np.zeros_like(b)
    r = b.copy()
    p = b.copy()
    rr = r @ r
    for _ in range(iters):
        q = A @ p
        a = rr / (p @ q)
        x += a * p
        r -= a * q
        rrn = r @ r
        p = r + (rrn / rr) * p
        rr = rrn
    return x


def lib_cg_fn():
    if cspl is None or not hasattr(cspl, "cg"):
        return None, "missing"
    params = inspect.signature(cspl.cg).parameters
    kw = {}
    if "rtol" in params:
        kw["rtol"] = 1e-30
    elif "tol" in params:
        kw["tol"] = 1e-30
    if "atol" in params:
        kw["atol"] = 0.0
    return (lambda A, b, it, **extra: cspl.cg(A, b, maxiter=it, **kw, **extra)), str(kw)


def sec_cg():
    log("== 6. conjugate gradient, 5-point Poisson")
    import scipy.sparse as sp
    import scipy.sparse.linalg as spl
    lib_cg, kwdesc = lib_cg_fn()
    log(f"  cupyx.scipy.sparse.linalg.cg: {('present, ' + kwdesc) if lib_cg else 'MISSING'}")

    def small():  # correctness on a small grid vs scipy (float64)
        m = 24
        n = m * m
        arrs = poisson_arrays(m, cp)
        A = to_csr(arrs, n, True)
        Ah = sp.csr_matrix(tuple(a.get() for a in arrs), shape=(n, n)).astype(np.float64)
        hb = RNG.uniform(-1, 1, n).astype(F32)
        xstar = spl.spsolve(Ah.tocsc(), hb.astype(np.float64))
        b = cp.asarray(hb)
        x25 = cg_np(Ah, hb.astype(np.float64), 25)
        attempt("cg check hand", lambda: (
            check("cg hand 150 it vs spsolve (m=24)", cg_hand(A, b, 150).get(), xstar, 1e-4),
            check("cg hand 25 it vs float64 CG 25 it", cg_hand(A, b, 25).get(), x25, 1e-3)))
        if lib_cg:
            attempt("cg check cupyx", lambda: (
                check("cg cupyx 150 it vs spsolve (m=24)", lib_cg(A, b, 150)[0].get(), xstar, 1e-4),
                check("cg cupyx 25 it vs float64 CG 25 it", lib_cg(A, b, 25)[0].get(), x25, 1e-3)))
    attempt("cg small checks", small)
    free()

    m = CFG["cg_m"]
    n = m * m
    A = to_csr(poisson_arrays(m, cp), n, True)
    nnz = int(A.nnz)
    b = cp.random.uniform(-1.0, 1.0, n).astype(cp.float32)
    bnorm = float(cp.linalg.norm(b))
    it = 100
    nb_iter = 8 * nnz + 56 * n

    def timed(run):
        ts, ws = [], []
        ev = CupyEv()
        x = None
        for _ in range(20):
            sync_cp()
            t0 = time.perf_counter()
            ev.start()
            x = run()
            ev.stop()
            ms = ev.ms()
            ws.append((time.perf_counter() - t0) * 1e3)
            ts.append(ms)
        return ts, ws, x

    def emit(nm, ts, ws):
        res = dict(ms=statistics.median(ts) / it, min=min(ts) / it, max=max(ts) / it, inner=it,
                   reps=len(ts), host_us=statistics.median(ws) / it * 1e3, hostbound=0.0)
        row("cg", nm + " /iter", f"poisson {m}^2", res, nbytes=nb_iter, flops=2 * nnz + 10 * n,
            note=f"wall {statistics.median(ws)/it:.4f} ms/it; bytes=8nnz+56n")

    def libpart():
        cnt = [0]
        lib_cg(A, b, 3)
        x, info_ = lib_cg(A, b, it, callback=lambda xk: cnt.__setitem__(0, cnt[0] + 1))
        log(f"  cupyx cg ran {cnt[0]} iterations (info={info_}); rel residual "
            f"{float(cp.linalg.norm(b - A @ x)) / bnorm:.3e}")
        ts, ws, x = timed(lambda: lib_cg(A, b, it)[0])
        log(f"  cupyx cg (timed runs) rel residual {float(cp.linalg.norm(b - A @ x)) / bnorm:.3e}")
        emit("cupyx cg", ts, ws)

    def handpart():
        cg_hand(A, b, 3)
        ts, ws, x = timed(lambda: cg_hand(A, b, it))
        log(f"  hand CG {it} iterations: rel residual {float(cp.linalg.norm(b - A @ x)) / bnorm:.3e}")
        emit("hand CuPy CG (fused)", ts, ws)
    if lib_cg:
        attempt("cg cupyx 2048^2", libpart)
    attempt("cg hand 2048^2", handpart)
    A = b = None
    free()


# ----------------------------------------------------------------------------- 7. tiny kernels
def sec_tiny():
    log("== 7. many tiny kernels: one add of 16 floats")
    ha, hb = h_randn(16), h_randn(16)
    ca, cb, cc = cp.asarray(ha), cp.asarray(hb), cp.full(16, cp.nan, dtype=cp.float32)
    ta, tb = torch.from_numpy(ha).cuda(), torch.from_numpy(hb).cuda()
    tc = torch.full((16,), float("nan"), device="cuda")
    cp.add(ca, cb, out=cc)
    torch.add(ta, tb, out=tc)
    attempt("tiny check cupy", lambda: check("tiny cupy add 16", cc.get(), (ha + hb).astype(np.float64), 0.0))
    attempt("tiny check torch", lambda: check("tiny torch add 16", tc.cpu().numpy(), (ha + hb).astype(np.float64), 0.0))

    def probe(lib, f):
        Ev, sync = (TorchEv, sync_torch) if lib == "torch" else (CupyEv, sync_cp)
        for _ in range(50):
            f()
        sync()
        launch = []
        for _ in range(REPS):
            sync()
            t0 = time.perf_counter()
            for _ in range(1000):
                f()
            launch.append((time.perf_counter() - t0) / 1000 * 1e3)
            sync()
        single, rtt = [], []
        ev = Ev()
        for _ in range(200):
            sync()
            ev.start()
            f()
            ev.stop()
            single.append(ev.ms())
        for _ in range(200):
            sync()
            t0 = time.perf_counter()
            f()
            sync()
            rtt.append((time.perf_counter() - t0) * 1e3)
        gpu = bench(lambda k: f(), lib, target_ms=1.0, max_inner=400)
        return dict(launch=statistics.median(launch), single=statistics.median(single),
                    rtt=statistics.median(rtt), gpu=gpu)

    for lib, nm, f in (("cupy", "cupy add(out=) 16 f32", lambda: cp.add(ca, cb, out=cc)),
                       ("torch", "torch add(out=) 16 f32", lambda: torch.add(ta, tb, out=tc))):
        def part(lib=lib, nm=nm, f=f):
            r = probe(lib, f)

            def mk(ms):
                return dict(ms=ms, min=ms, max=ms, inner=1, reps=REPS, host_us=r["launch"] * 1e3,
                            hostbound=0.0)
            row("tiny", nm, "GPU b2b", r["gpu"], note="events, pre-rolled batch")
            row("tiny", nm, "host call", mk(r["launch"]), note="wall per call, 1000 back-to-back")
            row("tiny", nm, "1op events", mk(r["single"]), note="event pair around one call")
            row("tiny", nm, "call+sync", mk(r["rtt"]), note="wall, call + synchronize")
        attempt("tiny " + lib, part)
    try:
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                torch.add(ta, tb, out=tc)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(100):
                torch.add(ta, tb, out=tc)
        r = bench(lambda k: g.replay(), "torch", target_ms=1.0, max_inner=50)
        r = dict(r, ms=r["ms"] / 100, min=r["min"] / 100, max=r["max"] / 100)
        row("tiny", "torch add 16 f32 CUDAgraph", "per op", r, note="graph of 100 adds, replay/100")
    except Exception as e:  # noqa: BLE001
        log(f"  torch CUDA graph failed: {e!r}")


# ----------------------------------------------------------------------------- 8. sparse suite (.tsp files)
# short column names of the summary table, in order; forward products first, then y = A^T x
# (for quaternion and 3x3-block matrices the CSR peers run the expanded real CSR, see tsp.to_scipy)
SP_PEERS = (("torch csr mv", "t.csr"), ("cupyx csr @ x", "c.csr"), ("cupyx cusparse.spmv", "c.spmv"),
            ("torch bsr mv", "t.bsr"))
SP_PEERS_T = (("torch csr.t() mv", "t.T"), ("cupyx csr.T @ x", "c.T"), ("cupyx cusparse.spmv transa", "c.spmvT"))


def sp_manifest(d):
    try:
        with open(os.path.join(d, "suite.json")) as f:
            return json.load(f).get("matrices", {})
    except Exception:  # noqa: BLE001
        return {}


def to_host(y):
    if hasattr(y, "get") and not hasattr(y, "cpu"):
        return y.get()
    if hasattr(y, "cpu"):
        return y.cpu().numpy()
    return np.asarray(y)


def relerr(got, ref):
    got = np.asarray(got).astype(np.complex128 if np.iscomplexobj(got) else np.float64)
    den = max(float(np.linalg.norm(ref)), 1e-300)
    return float(np.linalg.norm((got.reshape(-1) - ref.reshape(-1)))) / den


def spsuite_one(path, meta):
    import scipy.sparse as sp  # noqa: F401
    t0 = time.perf_counter()
    m = tsp.read_tsp(path)
    name = m.name
    st = m.stats()
    A = tsp.to_scipy(m)                   # scalar expansion: float32 / complex64 CSR, int32 indices
    cplx = m.kind == tsp.KIND_COMPLEX
    R, C = A.shape

    def hvec(n):
        v = RNG.uniform(-1.0, 1.0, n).astype(F32)
        if cplx:
            v = (v + 1j * RNG.uniform(-1.0, 1.0, n).astype(F32)).astype(np.complex64)
        return v
    hx, hxt = hvec(C), hvec(R)
    d64 = np.complex128 if cplx else np.float64
    A64 = A.astype(d64)
    ref = A64 @ hx.astype(d64)
    refT = A64.T @ hxt.astype(d64)
    del A64
    lens = np.diff(A.indptr.astype(np.int64))
    maxlen = int(lens.max()) if lens.size else 0
    # float32 sums of very long rows round more; the check is normwise against float64
    tol = 1e-5 if maxlen <= 4096 else 1e-4
    nb, fl = m.native_bytes(), m.flops()
    esz = A.data.itemsize
    vb = esz * (R + C)
    csr_bytes = 4 * (R + 1) + (4 + esz) * A.nnz + vb
    host_s = time.perf_counter() - t0
    log(f"  -- {name}: {m.kind_name} {m.rows} x {m.cols} entries, {m.nnz} entries, scalar {R} x {C} "
        f"nnz {A.nnz}, max row {maxlen}, {nb / 1e6:.1f} MB native; host prep {host_s:.1f} s, tol {tol:.0e}")

    d_ptr = cp.asarray(A.indptr.astype(np.int32))
    d_ind = cp.asarray(A.indices.astype(np.int32))
    d_val = cp.asarray(A.data)
    cA = csp.csr_matrix((d_val, d_ind, d_ptr), shape=A.shape)
    try:
        cA.has_canonical_format = True
    except Exception:  # noqa: BLE001
        pass
    cx, cxt = cp.asarray(hx), cp.asarray(hxt)
    tA = torch.sparse_csr_tensor(torch.from_dlpack(d_ptr), torch.from_dlpack(d_ind), torch.from_dlpack(d_val),
                                 size=A.shape)
    tx, txt = torch.from_dlpack(cx), torch.from_dlpack(cxt)
    del A
    res_pre = {}
    # (label, lib, fn, transposed, bytes that peer's own format moves, cold-run factory or None, note)
    peers = [("torch csr mv", "torch", lambda: torch.mv(tA, tx), False, csr_bytes, None, ""),
             ("cupyx csr @ x", "cupy", lambda: cA @ cx, False, csr_bytes, "cold", "")]
    if cusparse is not None and hasattr(cusparse, "spmv"):
        peers.append(("cupyx cusparse.spmv", "cupy", lambda: cusparse.spmv(cA, cx), False, csr_bytes, None, ""))
    if m.kind in (tsp.KIND_QUAT, tsp.KIND_BLOCK3):
        b, blocks = tsp.block_values(m)
        bsr_bytes = 4 * (m.rows + 1) + 4 * m.nnz + 4 * b * b * m.nnz + 4 * (R + C)
        st_b = {}

        def mk_bsr():
            try:
                st_b["t"] = torch.sparse_bsr_tensor(torch.from_dlpack(cp.asarray(m.row_ptr)),
                                                    torch.from_dlpack(cp.asarray(m.col)),
                                                    torch.from_dlpack(cp.asarray(blocks)), size=(R, C))
                st_b["how"] = "sparse_bsr_tensor"
            except Exception as e:  # noqa: BLE001
                log(f"  torch.sparse_bsr_tensor failed ({e!r}); trying csr.to_sparse_bsr(({b},{b}))")
                st_b["t"] = tA.to_sparse_bsr((b, b))
                st_b["how"] = "to_sparse_bsr"
            tB = st_b["t"]
            try:
                torch.mv(tB, tx)
                sync_torch()
                st_b["fn"] = lambda: torch.mv(tB, tx)
                st_b["note"] = f"BSR {b}x{b} via {st_b['how']}, torch.mv"
            except Exception as e:  # noqa: BLE001
                log(f"  torch.mv(BSR) failed ({e!r}); trying BSR @ x[:, None]")
                (tB @ tx.unsqueeze(1))
                sync_torch()
                st_b["fn"] = lambda: (tB @ tx.unsqueeze(1))
                st_b["note"] = f"BSR {b}x{b} via {st_b['how']}, BSR @ X[n,1] (mv failed)"
            return True
        try:
            mk_bsr()
            peers.append(("torch bsr mv", "torch", st_b["fn"], False, bsr_bytes, None, st_b["note"]))
        except Exception as e:  # noqa: BLE001
            log(f"  torch BSR unsupported here: {e!r}")
            SPSUITE_FAILS.append(f"torch bsr mv: {e!r}"[:200])
            res_pre["torch bsr mv"] = dict(unsupported=repr(e)[:300], transposed=False)
    tAT = cAT = None
    try:
        tAT = tA.t()
        torch.mv(tAT, txt)
        sync_torch()
    except Exception as e:  # noqa: BLE001
        tAT = None
        log(f"  torch csr.t() mv unsupported here: {e!r}")
        SPSUITE_FAILS.append(f"torch csr.t() mv: {e!r}"[:200])
        res_pre["torch csr.t() mv"] = dict(unsupported=repr(e)[:300], transposed=True)
    try:
        cAT = cA.T
    except Exception as e:  # noqa: BLE001
        log(f"  cupyx csr.T failed: {e!r}")
    if tAT is not None:
        peers.append(("torch csr.t() mv", "torch", lambda: torch.mv(tAT, txt), True, csr_bytes, None,
                      "sparse CSC from csr.t()"))
    if cAT is not None:
        peers.append(("cupyx csr.T @ x", "cupy", lambda: cAT @ cxt, True, csr_bytes, None, "csc_matrix view"))
    if cusparse is not None and hasattr(cusparse, "spmv"):
        peers.append(("cupyx cusparse.spmv transa", "cupy", lambda: cusparse.spmv(cA, cxt, transa=True), True,
                      csr_bytes, None, ""))

    res = dict(res_pre)
    for label, lib, fn, tr, own, cold_kind, note in peers:
        def one(label=label, lib=lib, fn=fn, tr=tr, own=own, cold_kind=cold_kind, note=note):
            y = fn()
            (sync_torch if lib == "torch" else sync_cp)()
            got = to_host(y)
            want = refT if tr else ref
            if got.size != want.size:
                raise ValueError(f"result has {got.size} elements, expected {want.size}")
            err = relerr(got, want)
            ok = check(f"spsuite {name} {label}", got.reshape(-1), want, tol)
            r = bench(lambda k: fn(), lib)
            cold = None
            ns = nsets_for(nb)
            if cold_kind and ns > 1:
                ns = min(ns, 32)
                sets = [(csp.csr_matrix((d_val.copy(), d_ind.copy(), d_ptr.copy()), shape=cA.shape),
                         cp.asarray(hvec(C))) for _ in range(ns - 1)]
                for S, _ in sets:
                    try:
                        S.has_canonical_format = True
                    except Exception:  # noqa: BLE001
                        pass
                sets = [(cA, cx)] + sets
                cold = bench(lambda k: sets[k][0] @ sets[k][1], "cupy", nsets=ns)
            row("spsuite", label, name, r, nbytes=nb, flops=fl, cold=cold,
                note=(note + f" err {err:.1e}" + ("" if ok else " FAIL")).strip())
            res[label] = dict(ms=r["ms"], gbs=nb / (r["ms"] * 1e-3) / 1e9, own_gbs=own / (r["ms"] * 1e-3) / 1e9,
                              own_bytes=own, err=err, ok=ok, transposed=tr, note=note,
                              cold_ms=cold["ms"] if cold else None, hostbound=r["hostbound"])
        attempt(f"spsuite {name} {label}", one)
        free()

    def best(tr):
        c = [(v["ms"], k) for k, v in res.items() if v["transposed"] == tr and v.get("ok")]
        return min(c) if c else (None, None)
    bms, bname = best(False)
    tms, tname = best(True)
    rec = dict(name=name, cls=meta.get("cls", name), desc=meta.get("desc", ""), kind=m.kind, kind_name=m.kind_name,
               rows=m.rows, cols=m.cols, scalar_rows=R, scalar_cols=C, entries=m.nnz, scalar_nnz=m.scalar_nnz,
               max_row=st["max_row"], max_scalar_row=maxlen, empty_rows=st["empty_rows"], native_bytes=nb,
               flops=fl, tol=tol, host_prep_s=host_s, peers=res,
               best=bname, best_ms=bms, best_gbs=(nb / (bms * 1e-3) / 1e9) if bms else None,
               best_T=tname, best_T_ms=tms, best_T_gbs=(nb / (tms * 1e-3) / 1e9) if tms else None,
               bytes_note="GB/s = native .tsp arrays (row_ptr + col + val) + x + y, float32, over time")
    SPSUITE.append(rec)
    fwd = f"{bname} {bms:.4f} ms, {rec['best_gbs']:.0f} GB/s" if bms else "none passed"
    bwd = f"{tname} {tms:.4f} ms, {rec['best_T_gbs']:.0f} GB/s" if tms else "none passed"
    log(f"  => {name}: best y = A x: {fwd}; best y = A^T x: {bwd}")


SPSUITE_FAILS = []    # peers a library could not run (capability gaps, not errors): "label: error"
KIND_SHORT = {1: "real", 2: "cplx", 4: "quat", 9: "3x3"}


def sec_spsuite():
    log("== 8. sparse suite: y = A x and y = A^T x on every .tsp of --spdir (cuSPARSE through torch and CuPy)")
    if not SPDIR:
        log("  skipped: no --spdir given (make one with: python3 bench/spgen.py DIR)")
        return
    files = glob.glob(os.path.join(SPDIR, "*.tsp"))
    if not files:
        ERRORS.append(f"spsuite: no .tsp files in {SPDIR}")
        log(f"  no .tsp files in {SPDIR}")
        return
    man = sp_manifest(SPDIR)
    order = {nm: i for i, nm in enumerate(man)}
    files.sort(key=lambda f: (order.get(os.path.splitext(os.path.basename(f))[0], 1 << 30), f))
    log(f"  {len(files)} matrices in {SPDIR}; bytes for GB/s: native format (row_ptr + col + val) + x + y")
    for f in files:
        nm = os.path.splitext(os.path.basename(f))[0]
        t0 = time.perf_counter()
        attempt(f"spsuite {nm}", lambda f=f, nm=nm: spsuite_one(f, man.get(nm, {})))
        free()
        log(f"  [{nm} took {time.perf_counter() - t0:.1f} s]")


def sp_table():
    if not SPSUITE:
        return []
    cols = SP_PEERS + SP_PEERS_T
    hdr = (f"{'matrix':11s} {'kind':4s} {'rows':>8s} {'cols':>8s} {'sc.nnz':>9s} {'MB':>5s} "
           + " ".join(f"{s:>7s}" for _, s in SP_PEERS) + f" {'best':>6s} {'GB/s':>5s} |"
           + " ".join(f"{s:>7s}" for _, s in SP_PEERS_T) + f" {'bestT':>6s} {'GB/s':>5s} {'maxerr':>7s}")
    out = ["", "SPSUITE  ms per product (median; '!' failed its check vs scipy float64; n/a unsupported; "
           "- not run); rows, cols, nnz of the scalar expansion; GB/s = native .tsp bytes + x + y over the best "
           "time", hdr, "-" * len(hdr)]
    short = dict(cols)

    def cell(r, k):
        v = r["peers"].get(k)
        if not v:
            return f"{'-':>7s}"
        if "ms" not in v:
            return f"{'n/a':>7s}"
        s = f"{v['ms']:.4f}" if v["ms"] < 10 else f"{v['ms']:.2f}"
        return f"{s + ('' if v['ok'] else '!'):>7s}"
    for r in SPSUITE:
        errs = [v["err"] for v in r["peers"].values() if "err" in v]
        out.append(f"{r['name'][:11]:11s} {KIND_SHORT[r['kind']]:4s} {r['scalar_rows']:8d} {r['scalar_cols']:8d} "
                   f"{r['scalar_nnz']:9d} "
                   f"{r['native_bytes'] / 1e6:5.0f} " + " ".join(cell(r, k) for k, _ in SP_PEERS)
                   + f" {short.get(r['best'], '-'):>6s} {(r['best_gbs'] or 0):5.0f} |"
                   + " ".join(cell(r, k) for k, _ in SP_PEERS_T)
                   + f" {short.get(r['best_T'], '-'):>6s} {(r['best_T_gbs'] or 0):5.0f} "
                   f"{(max(errs) if errs else float('nan')):7.1e}")
    for u in sorted(set(SPSUITE_FAILS)):
        out.append(f"unsupported ({sum(1 for x in SPSUITE_FAILS if x == u)} matrices): {u}")
    return out


# ----------------------------------------------------------------------------- main
def table():
    hdr = (f"{'sec':5s} {'op':24s} {'size':>10s} {'ms':>10s} {'GB/s':>5s} {'FLOP/s':>6s} "
           f"{'cold ms':>8s} {'cGB/s':>5s}")
    lines = ["", "=" * len(hdr),
             f"PEERS on {DEV_NAME}  (median of >= 20 timed batches; GB/s = bytes read+written / time;",
             " cold = inputs rotated over >= 256 MB; h = host-bound batches; notes: peers.json)", hdr, "-" * len(hdr)]
    for r in ROWS:
        if r["sec"] == "spsuite":
            continue
        ms = r["ms"]
        mss = f"{ms:.4f}" if ms >= 0.01 else f"{ms * 1e3:.2f}us"
        mss += "h" if "[h]" in r["note"] else ""
        gbs = f"{r['gbs']:.0f}" if r["gbs"] else "-"
        cms = r["cold_ms"]
        cms = "-" if not cms else (f"{cms:.4f}" if cms >= 0.01 else f"{cms * 1e3:.2f}us")
        cgbs = f"{r['cold_gbs']:.0f}" if r["cold_gbs"] else "-"
        lines.append(f"{r['sec'][:5]:5s} {r['op'][:24]:24s} {r['size'][:10]:>10s} {mss:>10s} {gbs:>5s} "
                     f"{fmt_rate(r['rate']):>6s} {cms:>8s} {cgbs:>5s}")
    lines += sp_table()
    nfail = sum(1 for c in CHECKS if not c[3])
    lines.append("-" * len(hdr))
    fl = ", ".join(c[0] for c in CHECKS if not c[3])
    lines.append(f"checks vs numpy/scipy float64 on the host CPU: {len(CHECKS) - nfail} PASS, {nfail} FAIL"
                 + ("" if not nfail else ": " + (fl if len(fl) < 1200 else fl[:1200] + " ...")))
    if ERRORS:
        e = " ; ".join(x[:160] for x in ERRORS)
        lines.append("ERRORS: " + (e if len(e) < 1500 else e[:1500] + " ... (all in peers.json)"))
    if MOCK:
        lines.append("MOCK RUN (PEERS_SMOKE without torch/cupy): numpy stand-ins, timings are meaningless")
    return "\n".join(lines)


def main():
    secs = dict(copy=sec_copy, blas1=sec_blas1, gemm=sec_gemm, gemv=sec_gemv, vadd=sec_vadd, reduce=sec_reduce,
                spmv=sec_spmv, cg=sec_cg, tiny=sec_tiny, spsuite=sec_spsuite)
    assert list(secs) == SECTIONS
    info()
    want = ARGS.sections or list(secs)
    log(f"sections: {' '.join(want)}; spdir: {SPDIR}; smoke: {SMOKE}; mock: {MOCK}")
    t_all = time.perf_counter()
    for nm in want:
        t0 = time.perf_counter()
        try:
            secs[nm]()
        except Exception as e:  # noqa: BLE001
            ERRORS.append(f"{nm}: {e!r}")
            traceback.print_exc()
            sys.stdout.flush()
        free()
        log(f"  [{nm} took {time.perf_counter() - t0:.1f} s]")
    smi_after = smi("after")
    log(f"total {time.perf_counter() - t_all:.1f} s")
    txt = table()
    doc = dict(device=DEV_NAME, argv=sys.argv[1:], sections=want, spdir=SPDIR, smoke=SMOKE, mock=MOCK,
               smi_before=SMI_BEFORE, smi_after=smi_after, rows=ROWS, spsuite=SPSUITE, checks=CHECKS,
               errors=ERRORS, tf32=TF32_NOTES, table=txt)
    paths = ([os.path.join(OUT, "peers.json")] if OUT else []) + ([ARGS.json] if ARGS.json else [])
    for pth in paths:
        try:
            with open(pth, "w") as f:
                json.dump(doc, f, indent=1, default=float)
            log(f"wrote {pth}")
        except Exception as e:  # noqa: BLE001
            log(f"json {pth}: {e!r}")
    if OUT:
        try:
            with open(os.path.join(OUT, "peers_table.txt"), "w") as f:
                f.write(txt + "\n")
        except Exception as e:  # noqa: BLE001
            log(f"table: {e!r}")
    log(txt)
    log("nvidia-smi before: " + " || ".join(SMI_BEFORE.splitlines()))
    log("nvidia-smi after:  " + " || ".join(smi_after.splitlines()[1:]))
    log(f"torch device name: {DEV_NAME}")
    return 1 if (ERRORS or any(not c[3] for c in CHECKS)) else 0


if __name__ == "__main__":
    sys.exit(main())
