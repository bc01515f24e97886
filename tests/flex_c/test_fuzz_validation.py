"""Random parameters thrown at every flex_c kernel: each call returns OK or an error status
and never reads or writes outside the buffers it was given. Every buffer is exactly as long
as the length passed with it, so under the ASan+UBSan build (test_sanitized.py) any stray
access or undefined behaviour aborts the run."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from burn.host.flex.binding import Struct, host

STATUSES = {0, -1, -2, -3, -4, -5, -6}
SMALL = st.integers(-2, 9)
ANY_INT = st.one_of(SMALL, st.integers(-(2 ** 31), 2 ** 31 - 1),
                    st.sampled_from([0, 1, 127, 128, -128, 255, 2 ** 24, 2 ** 31 - 1]))


class Draw:
    """Argument factories over one hypothesis `data` object."""

    def __init__(self, data):
        self.data = data
        self.rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1)))

    def int(self, small=True):
        return self.data.draw(SMALL if small else ANY_INT)

    def dims(self):
        return Struct("flex_dims4", [self.data.draw(st.integers(-1, 6)) for _ in range(4)])

    def window(self):
        return Struct("flex_window", [self.data.draw(st.integers(-1, 4)) for _ in range(10)])

    def struct(self, ctype, n):
        return Struct(ctype, [self.int(small=False) for _ in range(n)])

    def count(self, struct):
        v = struct.values
        return max(0, v[0]) * max(0, v[1]) * max(0, v[2]) * max(0, v[3])

    def buf(self, dtype, like=None):
        """(array, its length): length matches `like` half the time, else random."""
        n = min(max(like, 0), 4000) if like is not None and self.data.draw(st.booleans()) \
            else self.data.draw(st.integers(0, 200))
        if dtype == np.float32:
            return self.rng.standard_normal(n).astype(np.float32), n
        info = np.iinfo(dtype)
        lo, hi = (-40, 40) if dtype == np.int32 else (info.min, info.max)
        return self.rng.integers(lo, hi + 1, n).astype(dtype), n


def _conv_args(d, depthwise):
    ind, outd, win = d.dims(), d.dims(), d.window()
    x, nx = d.buf(np.int8, d.count(ind))
    w, nw = d.buf(np.int8)
    b, nb = d.buf(np.int32, outd.values[3])
    m, nm = d.buf(np.int32, outd.values[3])
    s = np.clip(d.rng.integers(-33, 33, nm), -40, 40).astype(np.int32)
    y, ny = d.buf(np.int8, d.count(outd))
    q = Struct("flex_s8_quant", [d.int(False), d.int(False), d.int(False), d.int(False)])
    return [ind, x, nx, w, nw, b, nb, m, s, nm, win, d.int(), q, outd, y, ny]


def _fc_args(d):
    bt, fi, fo = d.int(), d.int(), d.int()
    x, nx = d.buf(np.int8, bt * fi)
    w, nw = d.buf(np.int8, fi * fo)
    b, nb = d.buf(np.int32, fo)
    m, nm = d.buf(np.int32, fo)
    s = d.rng.integers(-33, 33, nm).astype(np.int32)
    y, ny = d.buf(np.int8, bt * fo)
    q = Struct("flex_s8_quant", [d.int(False) for _ in range(4)])
    return [bt, fi, fo, x, nx, w, nw, d.int(False), b, nb, m, s, nm, q, y, ny]


def _binary_args(d, params):
    d1, d2, do = d.dims(), d.dims(), d.dims()
    a, na = d.buf(np.int8, d.count(d1))
    b, nb = d.buf(np.int8, d.count(d2))
    y, ny = d.buf(np.int8, d.count(do))
    return [d1, a, na, d2, b, nb, params, do, y, ny]


def _pool_args(d):
    ind, outd = d.dims(), d.dims()
    x, nx = d.buf(np.int8, d.count(ind))
    y, ny = d.buf(np.int8, d.count(outd))
    return [ind, x, nx, d.window(), d.int(False), d.int(False), outd, y, ny]


def _elementwise(d, in_dtype, out_dtype, extra):
    x, nx = d.buf(in_dtype)
    y, ny = d.buf(out_dtype, nx)
    return [min(nx, ny), x] + extra + [y]


def _f32_pool_args(d, avg, grad):
    ind, outd, win = d.dims(), d.dims(), d.window()
    x, nx = d.buf(np.float32, d.count(ind))
    y, ny = d.buf(np.float32, d.count(outd))
    inc = [d.int()] if avg else []
    if not grad:
        return [ind, x, nx, win] + inc + [outd, y, ny]
    dx, ndx = d.buf(np.float32, d.count(ind))
    if avg:
        return [ind, win] + inc + [outd, y, ny, dx, ndx]
    return [ind, x, nx, win, outd, y, ny, dx, ndx]


def _f32_conv_args(d, which):
    ind, outd, win = d.dims(), d.dims(), d.window()
    x, nx = d.buf(np.float32, d.count(ind))
    w, nw = d.buf(np.float32)
    y, ny = d.buf(np.float32, d.count(outd))
    b, nb = d.buf(np.float32, outd.values[3])
    if which == "forward":
        return [ind, x, nx, w, nw, b, nb, win, d.int(), outd, y, ny]
    if which == "input":
        return [ind, x, nx, w, nw, win, d.int(), outd, y, ny]
    return [ind, x, nx, win, d.int(), outd, y, ny, w, nw, b, nb]


def _f32_3d(d, op):
    o, a, i = d.int(), d.int(), d.int()
    x, nx = d.buf(np.float32, o * a * i)
    y, ny = d.buf(np.float32, o * i if op is not None else o * a * i)
    return ([op] if op is not None else []) + [o, a, i, x, nx, y, ny]


def _f32_binary_args(d):
    rank = d.data.draw(st.integers(-1, 7))
    r = max(rank, 0)
    dims = np.array([d.data.draw(st.integers(-1, 4)) for _ in range(r)] or [0], np.int32)
    sa = np.array([d.data.draw(st.integers(-1, 12)) for _ in range(r)] or [0], np.int32)
    sb = np.array([d.data.draw(st.integers(-1, 12)) for _ in range(r)] or [0], np.int32)
    a, na = d.buf(np.float32)
    b, nb = d.buf(np.float32)
    y, ny = d.buf(np.float32, int(np.prod(np.maximum(dims, 0))))
    return [d.int(), rank, dims, a, na, sa, b, nb, sb, y, ny]


def _f32_norm_args(d, which):
    """batch_norm_stats / batch_norm / batch_norm_grad: the per-channel vectors hold c floats
    (their length is implied by c) or are NULL where the kernel allows it."""
    o, c, i = d.int(), d.int(), d.int()
    x, nx = d.buf(np.float32, o * c * i)
    y, ny = d.buf(np.float32, o * c * i)

    def vec(optional=False):
        if optional and d.data.draw(st.booleans()):
            return None
        return d.rng.standard_normal(max(c, 0)).astype(np.float32)

    if which == "stats":
        return [o, c, i, x, nx, vec(), vec()]
    if which == "apply":
        return [o, c, i, x, nx, vec(), vec(), vec(True), vec(True), y, ny]
    dx, ndx = d.buf(np.float32, o * c * i)
    return [o, c, i, x, nx, y, ny, vec(), vec(), vec(True), d.int(), dx, ndx, vec(), vec()]


def _f32_adam_args(d):
    """Every buffer holds the n floats the kernel reads (their length is implied by n)."""
    n = max(d.int(), 0)
    bufs = [d.rng.standard_normal(n).astype(np.float32) for _ in range(5)]
    floats = [d.data.draw(st.floats(width=32)) for _ in range(7)]
    return [n] + bufs[:4] + floats[:5] + [d.int()] + floats[5:] + [bufs[4]]


def _pad_args(d):
    ind = d.dims()
    size = d.data.draw(st.sampled_from([0, 1, 2, 3, 4]))
    x, nx = d.buf(np.int8, d.count(ind))
    pads = np.array([d.data.draw(st.integers(-1, 3)) for _ in range(8)], np.int32)
    out = Struct("flex_dims4", [ind.values[i] + pads[2 * i] + pads[2 * i + 1]
                                for i in range(4)])
    y, ny = d.buf(np.int8, d.count(out))
    elems = max(size, 1)
    return [size, ind, x[:nx - nx % elems].view(np.uint8), nx // elems, pads,
            np.zeros(4, np.uint8), y[:ny - ny % elems].view(np.uint8), ny // elems]


KERNELS = {
    "flex_s8_conv2d": lambda d: _conv_args(d, False),
    "flex_s8_depthwise_conv2d": lambda d: _conv_args(d, True),
    "flex_s8_fully_connected": _fc_args,
    "flex_s8_add": lambda d: _binary_args(d, d.struct("flex_s8_add_params", 12)),
    "flex_s8_mul": lambda d: _binary_args(d, d.struct("flex_s8_mul_params", 7)),
    "flex_s8_avg_pool2d": _pool_args,
    "flex_s8_max_pool2d": _pool_args,
    "flex_s8_mean": lambda d: _f32_3d_s8_mean(d),
    "flex_s8_softmax": lambda d: _softmax_args(d),
    "flex_s8_logistic": lambda d: _elementwise(d, np.int8, np.int8, [d.int(False)] * 4),
    "flex_s8_tanh": lambda d: _elementwise(d, np.int8, np.int8, [d.int(False)] * 4),
    "flex_s8_quantize": lambda d: _elementwise(d, np.float32, np.int8,
                                               [d.data.draw(st.floats(width=32)), d.int()]),
    "flex_s8_dequantize": lambda d: _elementwise(d, np.int8, np.float32,
                                                 [d.data.draw(st.floats(width=32)), d.int()]),
    "flex_s8_requantize": lambda d: _elementwise(d, np.int8, np.int8, [d.int(False)] * 4),
    "flex_pad": _pad_args,
    "flex_f32_conv2d": lambda d: _f32_conv_args(d, "forward"),
    "flex_f32_conv2d_input_grad": lambda d: _f32_conv_args(d, "input"),
    "flex_f32_conv2d_weight_grad": lambda d: _f32_conv_args(d, "weight"),
    "flex_f32_max_pool2d": lambda d: _f32_pool_args(d, False, False),
    "flex_f32_avg_pool2d": lambda d: _f32_pool_args(d, True, False),
    "flex_f32_max_pool2d_grad": lambda d: _f32_pool_args(d, False, True),
    "flex_f32_avg_pool2d_grad": lambda d: _f32_pool_args(d, True, True),
    "flex_f32_unary": lambda d: [d.int()] + _elementwise(d, np.float32, np.float32, []),
    "flex_f32_clamp": lambda d: _elementwise(d, np.float32, np.float32, [
        d.data.draw(st.floats(width=32)), d.data.draw(st.floats(width=32))]),
    "flex_f32_binary": _f32_binary_args,
    "flex_f32_reduce": lambda d: _f32_3d(d, d.int()),
    "flex_f32_softmax": lambda d: _f32_3d(d, None),
    "flex_f32_log_softmax": lambda d: _f32_3d(d, None),
    "flex_f32_gemm": lambda d: _gemm_args(d),
    "flex_f32_batch_norm_stats": lambda d: _f32_norm_args(d, "stats"),
    "flex_f32_batch_norm": lambda d: _f32_norm_args(d, "apply"),
    "flex_f32_batch_norm_grad": lambda d: _f32_norm_args(d, "grad"),
    "flex_f32_adam": _f32_adam_args,
    "flex_s8_reduce_axes": lambda d: _reduce_axes_args(d, np.int8),
    "flex_f32_reduce_axes": lambda d: _reduce_axes_args(d, np.float32),
    "flex_s8_resize": lambda d: _resize_args(d, np.int8),
    "flex_f32_resize": lambda d: _resize_args(d, np.float32),
    "flex_s8_arg": lambda d: _arg_args(d, np.int8),
    "flex_f32_arg": lambda d: _arg_args(d, np.float32),
    "flex_s8_l2norm": lambda d: _l2norm_args(d, np.int8),
    "flex_f32_l2norm": lambda d: _l2norm_args(d, np.float32),
    "flex_s8_batch_matmul": lambda d: _matmul_args(d, np.int8),
    "flex_f32_batch_matmul": lambda d: _matmul_args(d, np.float32),
}


def _reduce_axes_args(d, dtype):
    dims = np.array([d.data.draw(st.integers(-1, 5)) for _ in range(5)], np.int32)
    k = np.maximum(dims, 0)
    x, nx = d.buf(dtype, int(np.prod(k)))
    y, ny = d.buf(dtype, int(k[0] * k[2] * k[4]))
    if dtype == np.float32:
        return [dims, d.int(), x, nx, y, ny]
    return [dims, d.int(), x, nx, d.int(False), d.int(False), d.int(False), d.int(False), y,
            ny]


def _resize_args(d, dtype):
    """The sampling tables hold values around the input's size (their lengths are passed);
    the float fractions hold the out_dims->h and ->w values the kernel reads."""
    ind, outd = d.dims(), d.dims()
    outd.values[0], outd.values[3] = ind.values[0], ind.values[3]
    x, nx = d.buf(dtype, d.count(ind))
    y, ny = d.buf(dtype, d.count(outd))
    ys, nys = d.buf(np.int32, 3 * outd.values[1])
    xs, nxs = d.buf(np.int32, 3 * outd.values[2])
    ys %= 8
    xs %= 8
    if dtype == np.int8:
        return [ind, x, nx, ys, nys, xs, nxs, outd, y, ny]
    fy = d.rng.random(max(outd.values[1], 0)).astype(np.float32)
    fx = d.rng.random(max(outd.values[2], 0)).astype(np.float32)
    return [ind, x, nx, ys, nys, xs, nxs, fy, fx, outd, y, ny]


def _arg_args(d, dtype):
    o, r, i = d.int(), d.int(), d.int()
    x, nx = d.buf(dtype, o * r * i)
    y, ny = d.buf(np.float32, o * i)
    return [o, r, i, d.int(), x, nx, y, ny]


def _l2norm_args(d, dtype):
    rows, depth = d.int(), d.int()
    x, nx = d.buf(dtype, rows * depth)
    y, ny = d.buf(dtype, rows * depth)
    if dtype == np.float32:
        return [rows, depth, x, nx, y, ny]
    return [rows, depth, x, nx, d.int(False), y, ny]


def _matmul_args(d, dtype):
    batches, m, k, n = (d.data.draw(st.integers(-1, 4)) for _ in range(4))
    a_step = d.data.draw(st.sampled_from([0, m * k, d.int()]))
    b_step = d.data.draw(st.sampled_from([0, k * n, d.int()]))
    dims = Struct("flex_matmul_dims", [batches, m, k, n, a_step, b_step, d.int(), d.int()])
    a, na = d.buf(dtype, (batches - 1) * a_step + m * k)
    b, nb = d.buf(dtype, (batches - 1) * b_step + k * n)
    y, ny = d.buf(dtype, batches * m * n)
    if dtype == np.float32:
        return [dims, a, na, b, nb, y, ny]
    return [dims, a, na, b, nb] + [d.int(False) for _ in range(5)] + [y, ny]


def _f32_3d_s8_mean(d):
    o, r, i = d.int(), d.int(), d.int()
    x, nx = d.buf(np.int8, o * r * i)
    y, ny = d.buf(np.int8, o * i)
    return [o, r, i, x, nx, d.int(False), d.int(False), d.int(False), d.int(False), y, ny]


def _softmax_args(d):
    o, n = d.int(), d.int()
    x, nx = d.buf(np.int8, o * n)
    y, ny = d.buf(np.int8, o * n)
    return [o, n, x, nx, d.int(False), d.int(), d.int(False), y, ny]


def _gemm_args(d):
    m, n, k = d.int(), d.int(), d.int()
    a, na = d.buf(np.float32, m * k)
    b, nb = d.buf(np.float32, k * n)
    c, nc = d.buf(np.float32, m * n)
    return [d.int(), d.int(), m, n, k, a, na, b, nb, 0.5, c, nc]


@settings(max_examples=800, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(sorted(KERNELS)), st.data())
def test_random_parameters_give_a_status_never_a_fault(name, data):
    args = KERNELS[name](Draw(data))
    status = host().call(name, args)
    assert status in STATUSES, (name, status)


def test_fuzzing_reaches_both_accepting_and_rejecting_paths():
    """The generators are not all-reject: consistent shapes do get computed."""
    seen = {}

    @settings(max_examples=400, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(["flex_s8_conv2d", "flex_s8_add", "flex_f32_gemm"]), st.data())
    def run(name, data):
        seen.setdefault(name, set()).add(host().call(name, KERNELS[name](Draw(data))))

    run()
    for name, statuses in seen.items():
        assert len(statuses) >= 2, (name, statuses)
