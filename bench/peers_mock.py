"""peers_mock.py -- numpy/scipy stand-ins for the parts of torch, cupy and cupyx that peers.py uses, so that
`PEERS_SMOKE=1 python3 peers.py` runs its whole control flow on a machine without a GPU, torch or cupy.

peers.py installs these only when PEERS_SMOKE is set and `import torch, cupy` fails.  Arrays are one
ndarray subclass (MockArr) carrying the torch methods (.cuda() .cpu() .numpy() .t() .add_() .copy_() ...)
and the cupy ones (.get(), .data.copy_from_device_async); sparse matrices are scipy matrices.  Events time
with the host clock.  Every result is computed for real, so peers.py's correctness checks run too.
Nothing here measures anything about a GPU.
"""
import sys
import time
import types
import contextlib

import numpy as np
import scipy.sparse as sp

_RNG = np.random.default_rng(12345)


class _Data:
    def __init__(self, arr):
        self.arr = arr

    def copy_from_device_async(self, src, nbytes):
        d = self.arr.reshape(-1).view(np.uint8)
        s = src.arr.reshape(-1).view(np.uint8)
        d[:nbytes] = s[:nbytes]


class MockArr(np.ndarray):
    """ndarray with the torch.Tensor / cupy.ndarray methods peers.py calls."""

    # torch
    def cuda(self):
        return np.array(self).view(MockArr)

    def cpu(self):
        return self

    def numpy(self):
        return np.asarray(self)

    def t(self):
        return self.T

    def add_(self, other, alpha=1):
        self += alpha * other
        return self

    def copy_(self, src):
        self[...] = src
        return self

    def fill_(self, v):
        self.fill(v)
        return self

    def abs(self):
        return np.abs(self)

    def unsqueeze(self, d):
        return np.expand_dims(self, d)

    def contiguous(self):
        return np.ascontiguousarray(self).view(MockArr)

    def to_sparse_csr(self):
        return MockSparse(sp.csr_matrix(np.asarray(self)))

    @property
    def is_cuda(self):
        return True

    # cupy
    def get(self):
        return np.array(self)

    @property
    def data(self):
        return _Data(self)


def _wrap(x):
    if isinstance(x, np.ndarray) and not isinstance(x, MockArr):
        return x.view(MockArr)
    if isinstance(x, np.generic):
        return np.asarray(x).view(MockArr)
    if isinstance(x, tuple):
        return tuple(_wrap(v) for v in x)
    return x


def _wrapf(f):
    def g(*a, **k):
        return _wrap(f(*a, **k))
    g.__name__ = getattr(f, "__name__", "f")
    return g


def _dt(dtype):
    if dtype is None:
        return np.float32
    return dtype


class MockSparse:
    """torch sparse CSR/CSC/BSR tensor over a scipy matrix."""

    def __init__(self, S, layout="csr"):
        self.S, self.layout = S, layout
        self.shape = S.shape

    def t(self):
        return MockSparse(self.S.T, "csc" if self.layout == "csr" else "csr")

    def to_sparse_bsr(self, blocksize):
        return MockSparse(sp.bsr_matrix(self.S, blocksize=tuple(blocksize)), "bsr")

    def to_sparse_csr(self):
        return MockSparse(self.S.tocsr(), "csr")

    def __matmul__(self, x):
        return _wrap(np.asarray(self.S @ np.asarray(x)))

    def values(self):
        return _wrap(self.S.data)


# ----------------------------------------------------------------------------- torch
def _make_torch():
    t = types.ModuleType("torch")
    t.__version__ = "mock"
    t.float32, t.float64, t.complex64, t.int32, t.int64 = (np.float32, np.float64, np.complex64,
                                                            np.int32, np.int64)
    t.version = types.SimpleNamespace(cuda=None)
    st = dict(prec="highest")
    t.set_float32_matmul_precision = lambda p: st.__setitem__("prec", p)
    t.get_float32_matmul_precision = lambda: st["prec"]
    t.backends = types.SimpleNamespace(cuda=types.SimpleNamespace(matmul=types.SimpleNamespace(allow_tf32=True)),
                                       cudnn=types.SimpleNamespace(allow_tf32=True))

    class Event:
        def __init__(self, enable_timing=False):
            self.t = None

        def record(self, stream=None):
            self.t = time.perf_counter()

        def synchronize(self):
            pass

        def elapsed_time(self, end):
            return (end.t - self.t) * 1e3

    class Stream:
        def wait_stream(self, s):
            pass

    class CUDAGraph:
        def replay(self):
            pass

    cuda = types.SimpleNamespace(
        Event=Event, Stream=Stream, CUDAGraph=CUDAGraph, synchronize=lambda: None, _sleep=lambda c: None,
        empty_cache=lambda: None, get_device_name=lambda i=0: "MOCK (numpy on the CPU: PEERS_SMOKE)",
        get_device_properties=lambda i=0: types.SimpleNamespace(multi_processor_count=0, total_memory=0,
                                                                L2_cache_size=0, major=0, minor=0),
        current_stream=lambda: Stream(), stream=lambda s: contextlib.nullcontext(),
        graph=lambda g: contextlib.nullcontext(), is_available=lambda: True)
    t.cuda = cuda

    def randn(*shape, device=None, dtype=None):
        return _wrap(_RNG.standard_normal(shape, dtype=np.float32).astype(_dt(dtype)))

    def rand(*shape, device=None, dtype=None):
        return _wrap(_RNG.random(shape, dtype=np.float32).astype(_dt(dtype)))

    def _shape(shape):
        return shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape

    t.randn, t.rand = randn, rand
    t.empty = lambda *s, device=None, dtype=None: _wrap(np.empty(_shape(s), dtype=_dt(dtype)))
    t.zeros = lambda *s, device=None, dtype=None: _wrap(np.zeros(_shape(s), dtype=_dt(dtype)))
    t.full = lambda shape, v, device=None, dtype=None: _wrap(np.full(shape, v, dtype=_dt(dtype)))
    t.full_like = lambda x, v: _wrap(np.full_like(x, v))
    t.empty_like = lambda x: _wrap(np.empty_like(x))
    t.from_numpy = lambda a: _wrap(a)
    t.from_dlpack = lambda a: _wrap(a)
    t.as_tensor = lambda a, device=None, dtype=None: _wrap(np.asarray(a, dtype=dtype))
    t.equal = lambda a, b: bool(np.array_equal(a, b))
    t.dot = lambda a, b: _wrap(np.dot(a, b))
    t.sum = lambda a: _wrap(np.sum(a))
    t.max = lambda a: _wrap(np.max(a))
    t.min = lambda a: _wrap(np.min(a))
    t.abs = lambda a: _wrap(np.abs(a))
    t.linalg = types.SimpleNamespace(vector_norm=lambda a, ord=2: _wrap(np.linalg.norm(np.ravel(a), ord)))

    def mm(a, b, out=None):
        r = np.matmul(a, b)
        if out is None:
            return _wrap(r)
        out[...] = r
        return out

    def mv(A, x, out=None):
        r = (A @ x) if isinstance(A, MockSparse) else np.matmul(A, x)
        if out is None:
            return _wrap(np.asarray(r))
        out[...] = r
        return out

    def add(a, b, out=None):
        return _wrap(np.add(a, b, out=out))
    t.mm, t.mv, t.matmul, t.add = mm, mv, mm, add

    def sparse_csr_tensor(crow, col, val, size=None, **kw):
        return MockSparse(sp.csr_matrix((np.asarray(val), np.asarray(col), np.asarray(crow)), shape=tuple(size)))

    def sparse_bsr_tensor(crow, col, val, size=None, **kw):
        return MockSparse(sp.bsr_matrix((np.asarray(val), np.asarray(col), np.asarray(crow)),
                                        shape=tuple(size)), "bsr")
    t.sparse_csr_tensor, t.sparse_bsr_tensor = sparse_csr_tensor, sparse_bsr_tensor
    return t


# ----------------------------------------------------------------------------- cupy
class _CupyModule(types.ModuleType):
    def __getattr__(self, name):
        f = getattr(np, name)
        if callable(f) and not isinstance(f, type):
            return _wrapf(f)
        return f


def _ew_kernel(in_params, out_params, operation, name=None, **kw):
    """cupy.ElementwiseKernel stand-in: runs the C body as numpy statements (covers peers.py's kernels)."""
    ins = [p.split()[-1] for p in in_params.split(",")]
    outs = [p.split()[-1] for p in out_params.split(",")]
    stmts = []
    for s in operation.split(";"):
        s = s.strip()
        if not s:
            continue
        for ty in ("float ", "double ", "int ", "T "):
            if s.startswith(ty):
                s = s[len(ty):]
        lhs = s.split("=")[0].rstrip("+-*/ ").strip()
        if lhs in outs:
            s = s.replace(lhs, lhs + "[...]", 1)
        stmts.append(s)
    code = compile("\n".join(stmts), name or "ew", "exec")

    def run(*args):
        env = dict(zip(ins + outs, args))
        exec(code, {}, env)  # noqa: S102
        return args[-1]
    return run


def _make_cupy():
    cp = _CupyModule("cupy")
    cp.__version__ = "mock"
    cp.nan = np.nan
    cp.ndarray = MockArr
    cp.asarray = lambda a, dtype=None: _wrap(np.array(a, dtype=dtype))
    cp.asnumpy = lambda a: np.array(a)
    cp.get_default_memory_pool = lambda: types.SimpleNamespace(free_all_blocks=lambda: None)
    cp.RawKernel = lambda code, name, **kw: (lambda grid, block, args: None)
    cp.ElementwiseKernel = _ew_kernel
    cp.linalg = types.SimpleNamespace(norm=lambda a, *r, **k: _wrap(np.linalg.norm(np.asarray(a), *r, **k)))

    class Event:
        def __init__(self, *a, **k):
            self.t = None

        def record(self, stream=None):
            self.t = time.perf_counter()

        def synchronize(self):
            pass
    cuda = types.ModuleType("cupy.cuda")
    cuda.Event = Event
    cuda.get_elapsed_time = lambda s, e: (e.t - s.t) * 1e3
    cuda.Device = lambda i=0: types.SimpleNamespace(synchronize=lambda: None)
    cp.cuda = cuda
    rnd = types.ModuleType("cupy.random")
    rnd.standard_normal = lambda size=None, dtype=np.float64: _wrap(
        _RNG.standard_normal(size, dtype=np.float32 if dtype == np.float32 else np.float64))
    rnd.randint = lambda lo, hi=None, size=None, dtype=np.int64: _wrap(_RNG.integers(lo, hi, size=size, dtype=dtype))
    rnd.uniform = lambda lo=0.0, hi=1.0, size=None, dtype=np.float64: _wrap(_RNG.uniform(lo, hi, size).astype(dtype))
    rnd.random = lambda size=None, dtype=np.float64: _wrap(_RNG.random(size).astype(dtype))
    cp.random = rnd
    cublas = types.ModuleType("cupy.cublas")

    def axpy(a, x, y):
        y += a * x

    def dot(x, y, out=None):
        r = np.dot(x, y)
        if out is None:
            return _wrap(r)
        out[...] = r
        return out
    cublas.axpy, cublas.dot = axpy, dot
    cublas.nrm2 = lambda x, out=None: _wrap(np.linalg.norm(x))
    cp.cublas = cublas
    return cp, cuda, rnd, cublas


# ----------------------------------------------------------------------------- cupyx
def _fix(cls):
    """scipy sparse subclass whose arrays are MockArr (so .get() works) and whose products return MockArr."""
    def prop(nm):
        def getter(self):
            return self.__dict__["_m_" + nm]

        def setter(self, v):
            self.__dict__["_m_" + nm] = _wrap(np.asarray(v))
        return property(getter, setter)

    class C(cls):
        data = prop("data")
        indices = prop("indices")
        indptr = prop("indptr")

        def __matmul__(self, x):
            return _wrap(np.asarray(cls.__matmul__(self, np.asarray(x))))

        @property
        def T(self):
            return _CSC(self.transpose()) if cls is sp.csr_matrix else _CSR(self.transpose())

        def get(self):
            return cls(self)
    C.__name__ = "mock_" + cls.__name__
    return C


_CSR = _fix(sp.csr_matrix)
_CSC = _fix(sp.csc_matrix)


def _make_cupyx():
    cx = types.ModuleType("cupyx")
    sci = types.ModuleType("cupyx.scipy")
    sps = types.ModuleType("cupyx.scipy.sparse")
    spl = types.ModuleType("cupyx.scipy.sparse.linalg")
    cus = types.ModuleType("cupyx.cusparse")
    sps.csr_matrix, sps.csc_matrix = _CSR, _CSC
    sps.issparse = sp.issparse

    def cg(A, b, x0=None, *, rtol=1e-5, atol=0.0, maxiter=None, M=None, callback=None):
        import inspect
        import scipy.sparse.linalg as sl
        kw = dict(atol=atol, maxiter=maxiter, M=M, callback=callback)
        kw["rtol" if "rtol" in inspect.signature(sl.cg).parameters else "tol"] = rtol
        x, info = sl.cg(A, np.asarray(b), x0=x0, **kw)
        return _wrap(np.asarray(x, dtype=b.dtype)), info
    spl.cg = cg

    def spmv(a, x, y=None, alpha=1, beta=0, transa=False):
        r = (a.T if transa else a) @ np.asarray(x)
        r = alpha * np.asarray(r)
        if y is not None:
            y[...] = r + beta * y
            return y
        return _wrap(r.astype(x.dtype, copy=False))
    cus.spmv = spmv
    cx.scipy, sci.sparse, sps.linalg, cx.cusparse = sci, sps, spl, cus
    return cx, sci, sps, spl, cus


def install():
    """Put the stand-ins into sys.modules (torch, cupy, cupyx and the submodules peers.py imports)."""
    t = _make_torch()
    cp, cuda, rnd, cublas = _make_cupy()
    cx, sci, sps, spl, cus = _make_cupyx()
    sys.modules.update({"torch": t, "cupy": cp, "cupy.cuda": cuda, "cupy.random": rnd, "cupy.cublas": cublas,
                        "cupyx": cx, "cupyx.scipy": sci, "cupyx.scipy.sparse": sps,
                        "cupyx.scipy.sparse.linalg": spl, "cupyx.cusparse": cus})
