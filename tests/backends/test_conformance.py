"""The backend conformance suite: every primitive of `burn.backend.Backend`, on every
backend here, against the reference backend `pure` (cases in cases.py).

float32 results must agree with pure within the case's stated tolerance (cases.ELEMENTWISE
or cases.ACCUMULATING); integer and bool results, layout moves and storage must be equal.
Each backend x primitive is one test. Backends that are not here (flex without its
compiled library, cupy without a GPU) are skipped with the reason. Also: the gradient fast
paths a backend may define agree with the generic ones, and tensors move between devices
with `.to(device)` but refuse to mix.
"""

import importlib.util
import math
import subprocess
import sys

import numpy as np
import pytest
from cases import CASES, DTYPES, INF, NAN, Arg, conv_shapes, pool_shapes, values

import burn
from burn import backend as _backend
from burn.dtype import float32
from burn.host.autodiff import autodiff_device
from burn.host.autodiff.helpers import Inner
from burn.host.backends.fusion import fusion_device
from burn.host.backends.window import pool_divisors

PRIMITIVES = tuple(sorted(name for name, v in vars(_backend.Backend).items()
                          if callable(v) and not name.startswith("_")))
BACKENDS = ("numpy", "flex", "cupy", "fusion<numpy>", "fusion<cupy>", "autodiff<pure>",
            "autodiff<numpy>", "autodiff<flex>", "autodiff<cupy>", "autodiff<fusion<numpy>>",
            "autodiff<fusion<cupy>>")
DEVICES = ("pure", "numpy", "flex", "cupy", "autodiff<pure>", "autodiff<numpy>")
GRAD_FAST_PATHS = ("conv2d_grad_input", "conv2d_grad_weight", "max_pool_grad",
                   "avg_pool_grad")

# numpy warns about IEEE results (1/0, log(-1), NaN casts) that the protocol defines.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def load(name):
    """The backend registered as `name` (registering it on first use), or skip the test
    with the reason it is not available here."""
    if name.startswith("autodiff<"):
        inner = name[len("autodiff<"):-1]
        load(inner)
        return autodiff_device(inner).backend
    if name.startswith("fusion<"):
        inner = name[len("fusion<"):-1]
        load(inner)
        return fusion_device(inner).backend
    if name == "pure":
        return burn.device("pure").backend
    if name == "numpy":
        from burn.host.backends import numpy_backend
        return numpy_backend.BACKEND
    if name == "flex":
        if importlib.util.find_spec("burn._flex") is None:
            pytest.skip("flex: the compiled flex_c library burn._flex is absent "
                        "(pip install -e . builds it)")
        try:
            from burn.host.backends import flex_backend
        except ImportError as e:
            pytest.skip("flex: burn.host.backends.flex_backend does not load: " + str(e))
        return flex_backend.BACKEND
    if name == "cupy":
        return _load_cupy()
    raise ValueError("unknown backend " + repr(name))


def _load_cupy():
    try:
        from burn.host.backends import cupy_backend
    except ImportError as e:  # no CuPy, or no GPU: the message says which
        pytest.skip("cupy: " + str(e))
    return cupy_backend.BACKEND


_REFERENCE = {}


def reference(case):
    """The result of `case` on pure (computed once)."""
    key = id(case)
    if key not in _REFERENCE:
        _REFERENCE[key] = case.run(load("pure"))
    return _REFERENCE[key]


def mismatch(case, got, want):
    """None when `got` conforms to pure's `want`, else a description of the difference."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return "gives %s %s, pure %s %s" % (got.dtype, got.shape, want.dtype, want.shape)
    if got.dtype.kind == "f":
        g, w = got.astype(np.float64), want.astype(np.float64)
        if case.tol is None:
            bad = (g != w) & ~(np.isnan(g) & np.isnan(w))
        else:
            bad = ~np.isclose(g, w, rtol=case.tol[0], atol=case.tol[1], equal_nan=True)
    else:
        bad = got != want
    if not bad.any():
        return None
    idx = tuple(int(i) for i in np.argwhere(bad)[0])
    tol = "exactly" if case.tol is None else "within rtol=%g atol=%g" % case.tol
    return "%d of %d elements differ (%s); first at %s: got %r, pure %r" % (
        int(bad.sum()), bad.size, tol, idx, got[idx].item(), want[idx].item())


def test_every_primitive_has_cases():
    assert set(CASES) == set(PRIMITIVES)
    for name in PRIMITIVES:
        assert len(CASES[name]) >= 3, name


@pytest.mark.parametrize("primitive", PRIMITIVES)
@pytest.mark.parametrize("name", BACKENDS)
def test_primitive_matches_pure(name, primitive):
    backend = load(name)
    track_grad = hasattr(backend, "set_requires_grad")
    problems = []
    for case in CASES[primitive]:
        want = reference(case)
        try:
            got = case.run(backend, track_grad)
        except Exception as e:  # report every failing case, not only the first
            problems.append("%r raised %s: %s" % (case, type(e).__name__, e))
            continue
        diff = mismatch(case, got, want)
        if diff:
            problems.append("%r %s" % (case, diff))
    assert not problems, "%s disagrees with pure on %d of %d cases:\n%s" % (
        name, len(problems), len(CASES[primitive]), "\n".join(problems))


# -- gradient fast paths ---------------------------------------------------------------
class PoolOutput:
    """Stands for the forward output of max pooling, computed on the backend under test."""

    def __init__(self, ceil_mode):
        self.ceil_mode = ceil_mode


def _grad_calls(rng, fast_path):
    """(label, args) calls of `fast_path` with Arg inputs, from the conv and pool cases."""
    from cases import CONVS, POOLS

    calls = []
    if fast_path.startswith("conv2d"):
        for spec in CONVS:
            xs, ws, ys = conv_shapes(spec)
            geometry = (spec[7], spec[8], spec[9], spec[10])
            g = Arg(values(rng, ys, float32), float32)
            if fast_path == "conv2d_grad_input":
                args = [g, ys, Arg(values(rng, ws, float32), float32), ws, xs] + list(geometry)
            else:
                args = [g, ys, Arg(values(rng, xs, float32), float32), xs, ws] + list(geometry)
            calls.append(("x%s w%s" % (xs, ws), args, xs if fast_path.endswith("input") else ws))
        return calls
    for i, spec in enumerate(POOLS):
        xs, ys = pool_shapes(spec)
        k, s, p, d, ceil_mode = spec[4:]
        g = Arg(values(rng, ys, float32), float32)
        if fast_path == "max_pool_grad":
            x = values(rng, xs, float32)
            if i % 2:
                x = np.floor(x / 4)  # ties: the gradient goes to the first maximum
            calls.append(("x%s k%s ties=%s" % (xs, k, bool(i % 2)),
                          [g, PoolOutput(ceil_mode), Arg(x, float32), xs, k, s, p, d, ys],
                          xs))
        else:
            for cip in (True, False):
                div = pool_divisors(xs, k, s, p, d, ys, cip)
                calls.append(("x%s k%s cip=%s" % (xs, k, cip),
                              [g, div, xs, k, s, p, d, ys], xs))
    return calls


def _run_grad(backend, fast, args):
    hs = [a.handle(backend, False) if isinstance(a, Arg) else a for a in args]
    if isinstance(hs[1], PoolOutput):  # max_pool_grad takes the forward output too
        _g, y, x, xs, k, s, p, d, ys = hs
        hs[1] = backend.pool2d("max", x, xs, k, s, p, d, y.ceil_mode, True, ys, float32)
    return fast(*hs)


@pytest.mark.parametrize("fast_path", GRAD_FAST_PATHS)
@pytest.mark.parametrize("name", ("numpy", "flex", "cupy", "fusion<numpy>", "fusion<cupy>"))
def test_gradient_fast_path_matches_generic(name, fast_path):
    backend = load(name)
    fast = getattr(backend, fast_path, None)
    if fast is None:
        pytest.skip(name + " has no " + fast_path + "; Autodiff uses the generic rule")
    pure = load("pure")
    generic = getattr(Inner(pure), fast_path)
    problems = []
    for label, args, out_shape in _grad_calls(np.random.default_rng(12), fast_path):
        want = _read(pure, _run_grad(pure, generic, args), out_shape)
        got = _read(backend, _run_grad(backend, fast, args), out_shape)
        if not np.allclose(got, want, rtol=1e-5, atol=1e-4):
            problems.append("%s: max abs difference %g" % (label, np.abs(got - want).max()))
    assert not problems, "\n".join(problems)


def _read(backend, h, shape):
    n = int(np.prod(shape))
    return np.frombuffer(bytes(backend.to_bytes(h, n, float32)), np.float32).reshape(shape)


# -- tensors across devices ------------------------------------------------------------
@pytest.mark.parametrize("name", DEVICES + ("autodiff<flex>",))
def test_device_name_finds_its_backend(name):
    load(name)  # skips when the backend cannot exist here
    # A fresh interpreter: the lookup must import and register the backend by itself.
    code = ("import sys, burn, burn.host; "
            "print(burn.device(sys.argv[1]).backend.name)")
    run = subprocess.run([sys.executable, "-c", code, name], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == [name]


PAIRS = [(a, b) for a in DEVICES for b in DEVICES if a != b]
TENSOR_DATA = {
    "float32": [[0.5, -0.0, 3e38], [INF, -INF, NAN]],
    "int8": [[-128, 127, 0], [1, -1, 5]],
    "uint8": [[0, 255, 128], [1, 2, 3]],
    "int32": [[-2 ** 31, 2 ** 31 - 1, 0], [7, -7, 65536]],
    "bool": [[True, False, True], [False, False, True]],
}


def _raw(t):
    return bytes(t.backend.to_bytes(t.handle, t.numel(), t.dtype))


def _same_values(a, b):
    if isinstance(a, list):
        return len(a) == len(b) and all(_same_values(x, y) for x, y in zip(a, b))
    both_nan = isinstance(a, float) and isinstance(b, float) and math.isnan(a) and \
        math.isnan(b)
    return both_nan or (a == b and type(a) is type(b))


@pytest.mark.parametrize(("src", "dst"), PAIRS)
def test_to_moves_values_and_dtype(src, dst):
    load(src)
    load(dst)
    for dt in DTYPES:
        for data in (TENSOR_DATA[dt.name], TENSOR_DATA[dt.name][1][0], []):
            t = burn.tensor(data, dtype=dt, device=src)
            moved = t.to(dst)
            assert moved.device == burn.device(dst)
            assert moved.dtype is dt and moved.shape == t.shape
            assert _raw(moved) == _raw(t), (dt, data)
            assert _same_values(moved.tolist(), t.tolist()), (dt, data)
            back = moved.to(src)
            assert back.device == burn.device(src) and _raw(back) == _raw(t)
    t = burn.tensor(TENSOR_DATA["float32"], device=src)
    both = t.to(dst, burn.int8)
    assert both.device == burn.device(dst) and both.dtype is burn.int8
    assert both.tolist() == t.to(burn.int8).tolist()


@pytest.mark.parametrize(("src", "dst"), PAIRS)
def test_mixing_devices_is_a_value_error(src, dst):
    load(src)
    load(dst)
    a = burn.tensor([[1.0, -2.0], [3.0, 4.0]], device=src)
    b = burn.tensor([[0.5, 2.0], [-1.0, 1.0]], device=dst)
    x = burn.ones((1, 2, 4, 4), device=src)
    w = burn.ones((3, 2, 3, 3), device=dst)
    attempts = {
        "add": lambda: a + b, "mul": lambda: a * b, "lt": lambda: a < b,
        "maximum": lambda: burn.maximum(a, b), "matmul": lambda: a @ b,
        "cat": lambda: burn.cat([a, b]), "stack": lambda: burn.stack([a, b]),
        "where": lambda: burn.where(a > 0, a, b), "conv2d": lambda: burn.conv2d(x, w),
        "linear": lambda: burn.linear(a, b),
    }
    for op, attempt in attempts.items():
        with pytest.raises(ValueError, match="different devices") as info:
            attempt()
        assert op in str(info.value) or op in ("stack", "linear", "maximum"), str(info.value)
