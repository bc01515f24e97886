"""Every primitive of the pure backend against numpy (and conv/pool against torch) on
random shapes and dtypes, including integer wraparound, negative-step slices and
broadcasting corner cases. CPython only."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from burn.backends.pure import PURE as B
from burn.dtype import bool_, float32, int8, int32, uint8

NP = {float32: np.float32, int8: np.int8, uint8: np.uint8, int32: np.int32, bool_: np.uint8}
INTS = (int8, uint8, int32)
RANGES = {int8: (-128, 128), uint8: (0, 256), int32: (-2 ** 31, 2 ** 31), bool_: (0, 2)}


def to_h(a, dtype):
    """Handle of a numpy array, passed through the backend's from_bytes."""
    return B.from_bytes(np.ascontiguousarray(a, dtype=NP[dtype]).tobytes(), dtype)


def to_np(h, shape, dtype):
    n = int(np.prod(shape))
    return np.frombuffer(B.to_bytes(h, n, dtype), dtype=NP[dtype]).reshape(shape)


def rand(rng, shape, dtype):
    if dtype is float32:
        return (rng.standard_normal(shape) * 3).astype(np.float32)
    lo, hi = RANGES[dtype]
    return rng.integers(lo, hi, size=shape, dtype=np.int64).astype(NP[dtype])


def rand_shape(rng, ndim=None, max_size=5):
    ndim = int(rng.integers(0, 5)) if ndim is None else ndim
    return tuple(int(s) for s in rng.integers(1, max_size + 1, size=ndim))


def assert_float(got, want, rtol=1e-6, atol=1e-6):
    np.testing.assert_allclose(got.astype(np.float64), np.asarray(want, np.float64),
                               rtol=rtol, atol=atol, equal_nan=True)


def broadcast_pair(rng):
    """Two shapes that broadcast, with size-1 and missing axes on either side."""
    out = rand_shape(rng, int(rng.integers(1, 5)))
    shapes = []
    for _ in range(2):
        keep = int(rng.integers(0, len(out) + 1))
        s = tuple(d if rng.random() < 0.6 else 1 for d in out[len(out) - keep:])
        shapes.append(s)
    return shapes[0], shapes[1], np.broadcast_shapes(shapes[0], shapes[1])


FLOAT_UNARY = {
    "neg": np.negative, "abs": np.abs, "exp": np.exp, "log": np.log, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x), "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "relu": lambda x: np.maximum(x, 0),
    "floor": np.floor, "ceil": np.ceil, "round": np.round, "sign": np.sign,
    "erf": lambda x: torch.erf(torch.from_numpy(x)).numpy(), "reciprocal": np.reciprocal,
    "not": lambda x: (x == 0).astype(np.float32),
}


@pytest.mark.parametrize("op", sorted(FLOAT_UNARY))
def test_float_unary(op):
    rng = np.random.default_rng(1)
    x = rand(rng, (40,), float32)
    x[:6] = [0.0, -0.0, 2.5, -2.5, np.inf, -np.inf]
    with np.errstate(all="ignore"):
        want = FLOAT_UNARY[op](x.astype(np.float64))
    got = to_np(B.unary(op, to_h(x, float32), 40, float32), (40,), float32)
    assert_float(got, want)


INT_UNARY = {"neg": np.negative, "abs": np.abs, "relu": lambda x: np.maximum(x, 0),
             "sign": np.sign, "not": np.invert, "floor": lambda x: x, "round": lambda x: x}


@pytest.mark.parametrize("dtype", INTS, ids=str)
@pytest.mark.parametrize("op", sorted(INT_UNARY))
def test_int_unary_wraps(op, dtype):
    rng = np.random.default_rng(2)
    x = rand(rng, (50,), dtype)
    x[0] = RANGES[dtype][0]
    with np.errstate(all="ignore"):
        want = INT_UNARY[op](x).astype(NP[dtype])
    got = to_np(B.unary(op, to_h(x, dtype), 50, dtype), (50,), dtype)
    np.testing.assert_array_equal(got, want)


def np_binary(op, a, b):
    if op == "div" and a.dtype.kind != "f":
        bb = np.where(b == 0, 1, b).astype(np.int64)
        return np.where(b == 0, 0, np.trunc(a.astype(np.float64) / bb)).astype(a.dtype)
    table = {
        "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
        "floordiv": np.floor_divide, "mod": np.mod, "pow": np.power,
        "maximum": np.maximum, "minimum": np.minimum, "eq": np.equal, "ne": np.not_equal,
        "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
        "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
    }
    return table[op](a, b)


COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")
FLOAT_BINARY = ("add", "sub", "mul", "div", "floordiv", "mod", "pow", "maximum", "minimum")
INT_BINARY = ("add", "sub", "mul", "div", "floordiv", "mod", "pow", "maximum", "minimum",
              "and", "or", "xor")


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("op", FLOAT_BINARY + COMPARE)
def test_float_binary_broadcasting(op, seed):
    rng = np.random.default_rng(seed)
    sa, sb, so = broadcast_pair(rng)
    a, b = rand(rng, sa, float32), rand(rng, sb, float32)
    if op == "pow":
        b = np.round(b).astype(np.float32) if seed % 2 else b
    if seed == 0 and b.size > 1:
        b.flat[0] = 0.0
    with np.errstate(all="ignore"):
        want = np_binary(op, a, b)
    out_dtype = bool_ if op in COMPARE else float32
    got = to_np(B.binary(op, to_h(a, float32), sa, to_h(b, float32), sb, so, float32),
                so, out_dtype)
    if op in COMPARE:
        np.testing.assert_array_equal(got, want.astype(np.uint8))
    else:
        assert_float(got, want, rtol=2e-6)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("dtype", INTS, ids=str)
@pytest.mark.parametrize("op", INT_BINARY + COMPARE)
def test_int_binary_wraps(op, dtype, seed):
    rng = np.random.default_rng(100 + seed)
    sa, sb, so = broadcast_pair(rng)
    a, b = rand(rng, sa, dtype), rand(rng, sb, dtype)
    if op == "pow":
        b = rng.integers(0, 12, size=sb).astype(NP[dtype])
    if b.size > 1:
        b.flat[0] = 0
    with np.errstate(all="ignore"):
        want = np_binary(op, a, b)
    out_dtype = bool_ if op in COMPARE else dtype
    got = to_np(B.binary(op, to_h(a, dtype), sa, to_h(b, dtype), sb, so, dtype), so,
                out_dtype)
    np.testing.assert_array_equal(got, np.asarray(want).astype(NP[out_dtype]))


@pytest.mark.parametrize("dtype", (float32, int8, int32), ids=str)
def test_binary_with_python_scalar(dtype):
    rng = np.random.default_rng(7)
    a = rand(rng, (3, 4), dtype)
    s = 2.5 if dtype is float32 else 100
    with np.errstate(all="ignore"):
        want = (a.astype(np.int64) * s).astype(NP[dtype]) if dtype is not float32 else a * s
    got = to_np(B.binary("mul", to_h(a, dtype), (3, 4), s, (), (3, 4), dtype), (3, 4),
                dtype)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(5))
def test_where_and_clamp(seed):
    rng = np.random.default_rng(200 + seed)
    sa, sb, so = broadcast_pair(rng)
    sc = so[int(rng.integers(0, len(so) + 1)):]
    c = rng.integers(0, 2, size=sc).astype(np.uint8)
    a, b = rand(rng, sa, float32), rand(rng, sb, float32)
    got = to_np(B.where(to_h(c, bool_), sc, to_h(a, float32), sa, to_h(b, float32), sb, so,
                        float32), so, float32)
    np.testing.assert_array_equal(got, np.where(c.astype(bool), a, b))
    x = rand(rng, (30,), int8)
    got = to_np(B.clamp(to_h(x, int8), 30, -20, 50, int8), (30,), int8)
    np.testing.assert_array_equal(got, np.clip(x, -20, 50))


REDUCE = {
    "sum": lambda x, d: np.sum(x, axis=d, keepdims=True, dtype=x.dtype),
    "prod": lambda x, d: np.prod(x, axis=d, keepdims=True, dtype=x.dtype),
    "max": lambda x, d: np.max(x, axis=d, keepdims=True),
    "min": lambda x, d: np.min(x, axis=d, keepdims=True),
    "argmax": lambda x, d: np.argmax(x, axis=d, keepdims=True).astype(np.int32),
    "argmin": lambda x, d: np.argmin(x, axis=d, keepdims=True).astype(np.int32),
}


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("dtype", (float32, int8, uint8, int32), ids=str)
@pytest.mark.parametrize("op", sorted(REDUCE))
def test_reduce(op, dtype, seed):
    rng = np.random.default_rng(300 + seed)
    shape = rand_shape(rng, int(rng.integers(1, 4)))
    dim = int(rng.integers(0, len(shape)))
    x = rand(rng, shape, dtype)
    if dtype is not float32:
        x = (x % 7).astype(NP[dtype]) if seed % 2 else x  # ties for the arg ops
    with np.errstate(all="ignore"):
        want = REDUCE[op](x, dim)
    out_shape = shape[:dim] + (1,) + shape[dim + 1:]
    out_dtype = int32 if op.startswith("arg") else dtype
    got = to_np(B.reduce(op, to_h(x, dtype), shape, dim, dtype), out_shape, out_dtype)
    if dtype is float32 and op in ("sum", "prod"):
        assert_float(got, want, rtol=1e-5, atol=1e-5)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(8))
def test_permute_expand(seed):
    rng = np.random.default_rng(400 + seed)
    shape = rand_shape(rng, int(rng.integers(1, 5)))
    x = rand(rng, shape, int32)
    perm = tuple(int(p) for p in rng.permutation(len(shape)))
    got = to_np(B.permute(to_h(x, int32), shape, perm, int32),
                tuple(shape[p] for p in perm), int32)
    np.testing.assert_array_equal(got, np.transpose(x, perm))
    small = tuple(1 if rng.random() < 0.5 else s for s in shape)
    y = rand(rng, small, int8)
    got = to_np(B.expand(to_h(y, int8), small, shape, int8), shape, int8)
    np.testing.assert_array_equal(got, np.broadcast_to(y, shape))


@pytest.mark.parametrize("seed", range(12))
def test_slice_with_any_steps(seed):
    rng = np.random.default_rng(500 + seed)
    shape = rand_shape(rng, int(rng.integers(1, 4)), max_size=7)
    x = rand(rng, shape, float32)
    slices, starts, steps, out_shape = [], [], [], []
    for n in shape:
        step = int(rng.choice([-3, -2, -1, 1, 2, 3]))
        sl = slice(int(rng.integers(-n, n)), int(rng.integers(-n - 1, n + 1)), step)
        r = range(*sl.indices(n))
        slices.append(sl)
        starts.append(r.start if len(r) else 0)
        steps.append(step)
        out_shape.append(len(r))
    got = to_np(B.slice(to_h(x, float32), shape, starts, steps, tuple(out_shape), float32),
                tuple(out_shape), float32)
    np.testing.assert_array_equal(got, x[tuple(slices)])


@pytest.mark.parametrize("seed", range(6))
def test_cat_pad_gather(seed):
    rng = np.random.default_rng(600 + seed)
    shape = rand_shape(rng, int(rng.integers(1, 4)))
    dim = int(rng.integers(0, len(shape)))
    parts = []
    for _ in range(3):
        s = list(shape)
        s[dim] = int(rng.integers(0, 4))
        parts.append(rand(rng, tuple(s), uint8))
    want = np.concatenate(parts, axis=dim)
    got = to_np(B.cat([to_h(p, uint8) for p in parts], [p.shape for p in parts], dim,
                      uint8), want.shape, uint8)
    np.testing.assert_array_equal(got, want)
    x = rand(rng, shape, float32)
    pads = [(int(rng.integers(0, 3)), int(rng.integers(0, 3))) for _ in shape]
    want = np.pad(x, pads, constant_values=-1.5)
    got = to_np(B.pad(to_h(x, float32), shape, pads, -1.5, float32), want.shape, float32)
    np.testing.assert_array_equal(got, want)
    idx = rng.integers(0, shape[dim], size=5).astype(np.int32)
    want = np.take(x, idx, axis=dim)
    got = to_np(B.gather(to_h(x, float32), shape, dim, to_h(idx, int32), 5, float32),
                want.shape, float32)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("src", (float32, int8, uint8, int32, bool_), ids=str)
@pytest.mark.parametrize("dst", (float32, int8, uint8, int32, bool_), ids=str)
def test_cast(src, dst):
    rng = np.random.default_rng(700)
    x = rand(rng, (60,), src)
    if src is float32:
        x = (x * 100).astype(np.float32)
    if dst is bool_:
        want = (x != 0).astype(np.uint8)
    elif src is float32 and dst is not float32:
        want = np.trunc(x).astype(np.int64).astype(NP[dst])
    else:
        want = x.astype(np.int64).astype(NP[dst]) if dst is not float32 else \
            x.astype(np.float32)
    got = to_np(B.cast(to_h(x, src), 60, src, dst), (60,), dst)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("dtype", (float32, int8, uint8, int32), ids=str)
def test_matmul(dtype, seed):
    rng = np.random.default_rng(800 + seed)
    batch, m, k, n = (int(v) for v in rng.integers(1, 6, size=4))
    ba = batch if seed % 3 != 1 else 1
    bb = batch if seed % 3 != 2 else 1
    a, b = rand(rng, (ba, m, k), dtype), rand(rng, (bb, k, n), dtype)
    got = to_np(B.matmul(to_h(a, dtype), a.shape, to_h(b, dtype), b.shape,
                         (batch, m, n), dtype), (batch, m, n), dtype)
    if dtype is float32:
        assert_float(got, np.matmul(a.astype(np.float64), b), rtol=1e-5, atol=1e-5)
    else:
        want = np.matmul(a.astype(np.int64), b.astype(np.int64))
        np.testing.assert_array_equal(got, want.astype(np.int32).astype(NP[dtype]))


CONV_CASES = [
    # (n, c, h, w, o, kh, kw, stride, padding (t, b, l, r), dilation, groups)
    (1, 1, 5, 5, 1, 3, 3, (1, 1), (0, 0, 0, 0), (1, 1), 1),
    (2, 3, 7, 6, 4, 3, 2, (2, 1), (1, 1, 2, 2), (1, 2), 1),
    (1, 4, 8, 8, 6, 3, 3, (1, 2), (2, 2, 1, 1), (2, 1), 2),
    (2, 4, 6, 6, 4, 3, 3, (2, 2), (1, 1, 1, 1), (1, 1), 4),
    (1, 2, 5, 4, 2, 2, 3, (1, 1), (0, 1, 2, 0), (1, 1), 1),
    (1, 6, 9, 9, 3, 5, 5, (3, 3), (2, 2, 2, 2), (1, 1), 3),
]


def torch_conv(x, w, bias, stride, padding, dilation, groups):
    t, b_, l_, r = padding
    xt = F.pad(torch.from_numpy(x.astype(np.float64)), (l_, r, t, b_))
    bt = None if bias is None else torch.from_numpy(bias.astype(np.float64))
    return F.conv2d(xt, torch.from_numpy(w.astype(np.float64)), bt, stride=stride,
                    dilation=dilation, groups=groups).numpy()


@pytest.mark.parametrize("dtype", (float32, int8, uint8), ids=str)
@pytest.mark.parametrize("case", range(len(CONV_CASES)))
def test_conv2d_vs_torch(case, dtype):
    n, c, h, wd, o, kh, kw, stride, padding, dilation, groups = CONV_CASES[case]
    rng = np.random.default_rng(900 + case)
    x = rand(rng, (n, c, h, wd), dtype)
    w = rand(rng, (o, c // groups, kh, kw), dtype)
    bias = rand(rng, (o,), dtype) if case % 2 else None
    want = torch_conv(x, w, bias, stride, padding, dilation, groups)
    got = to_np(B.conv2d(to_h(x, dtype), x.shape, to_h(w, dtype), w.shape,
                         None if bias is None else to_h(bias, dtype), stride, padding,
                         dilation, groups, want.shape, dtype), want.shape, dtype)
    if dtype is float32:
        assert_float(got, want, rtol=1e-5, atol=1e-4)
    else:
        np.testing.assert_array_equal(got, want.astype(np.int64).astype(np.int32)
                                      .astype(NP[dtype]))


def pool_out(size, k, s, p, d, ceil_mode):
    span = size + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


POOL_CASES = [
    # (n, c, h, w, kernel, stride, padding, dilation, ceil_mode)
    (1, 2, 6, 6, (2, 2), (2, 2), (0, 0), (1, 1), False),
    (2, 3, 7, 5, (3, 3), (2, 2), (1, 1), (1, 1), False),
    (1, 2, 7, 8, (3, 2), (2, 2), (1, 1), (1, 1), True),
    (1, 1, 9, 9, (3, 3), (3, 2), (1, 0), (1, 1), True),
    (1, 2, 8, 8, (2, 3), (1, 2), (1, 1), (2, 2), False),
]


# torch's avg_pool2d has no dilation: average pooling runs only the undilated cases.
POOL_RUNS = [(i, op) for i, case in enumerate(POOL_CASES) for op in ("max", "avg")
             if op == "max" or case[7] == (1, 1)]


@pytest.mark.parametrize("count_include_pad", (True, False))
@pytest.mark.parametrize(("case", "op"), POOL_RUNS)
def test_pool2d_vs_torch(case, op, count_include_pad):
    n, c, h, wd, k, s, p, d, ceil_mode = POOL_CASES[case]
    rng = np.random.default_rng(1000 + case)
    x = rand(rng, (n, c, h, wd), float32)
    xt = torch.from_numpy(x)
    if op == "max":
        want = F.max_pool2d(xt, k, s, p, d, ceil_mode=ceil_mode).numpy()
    else:
        want = F.avg_pool2d(xt, k, s, p, ceil_mode=ceil_mode,
                            count_include_pad=count_include_pad).numpy()
    oh = pool_out(h, k[0], s[0], p[0], d[0], ceil_mode)
    ow = pool_out(wd, k[1], s[1], p[1], d[1], ceil_mode)
    assert want.shape == (n, c, oh, ow)
    got = to_np(B.pool2d(op, to_h(x, float32), x.shape, k, s, (p[0], p[0], p[1], p[1]), d,
                         ceil_mode, count_include_pad, want.shape, float32), want.shape,
                float32)
    assert_float(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", (int8, uint8), ids=str)
def test_int_max_pool_vs_numpy_windows(dtype):
    rng = np.random.default_rng(1100)
    x = rand(rng, (1, 2, 6, 6), dtype)
    got = to_np(B.pool2d("max", to_h(x, dtype), x.shape, (2, 2), (2, 2), (0, 0, 0, 0),
                         (1, 1), False, True, (1, 2, 3, 3), dtype), (1, 2, 3, 3), dtype)
    np.testing.assert_array_equal(got, x.reshape(1, 2, 3, 2, 3, 2).max(axis=(3, 5)))


def test_float_storage_rounds_to_float32():
    vals = [0.1, 1 / 3, math.pi, 1e-40, 3.0e38]
    got = to_np(B.from_flat(vals, float32), (5,), float32)
    np.testing.assert_array_equal(got, np.array(vals, dtype=np.float64).astype(np.float32))
