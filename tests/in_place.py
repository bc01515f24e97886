"""Helpers for int8 kernels run with their output over their input, as the .bst arena plans
it (docs/bst-format.md, "Arena and in-place execution"): the planned distance, one buffer
holding both views, random quantization, the comparison with an out-of-place run, and the
cases the host and the emulated Cortex-M0+ builds share."""

import numpy as np

from burn.host.arena_plan import overlap_delta
from burn.host.bst_writer import GraphOp, GraphTensor


def planned_delta(kind, params, x_shape, y_shape, consts=None):
    """Bytes by which the planner puts op `kind`'s int8 output below its input."""
    op = GraphOp(kind, [0], [1], params=params, consts=consts or {})
    return overlap_delta(op, 0, [GraphTensor("x", x_shape, "int8"),
                                 GraphTensor("y", y_shape, "int8")])


def overlapped(x, out_count, delta):
    """(input view, output view) of one buffer, the output `delta` bytes below the input."""
    buf = np.zeros(delta + max(x.size, out_count - delta), np.int8)
    xi = buf[delta:delta + x.size]
    xi[:] = x.ravel()
    return xi, buf[:out_count]


def random_quant(rng, oc):
    """(bias, multiplier, shift) per output channel, outputs spread over the int8 range."""
    bias = rng.integers(-5000, 5000, oc, dtype=np.int32)
    mult = rng.integers(1 << 29, 1 << 31, oc, dtype=np.int64).astype(np.int32)
    shift = rng.integers(-10, -6, oc, dtype=np.int32)
    return bias, mult, shift


def assert_same_in_place(lib, reference, run, x, out_count, delta):
    """run(lib, input, output) in place gives what run(reference, ...) gives out of place."""
    want = np.zeros(out_count, np.int8)
    run(reference, x, want)
    xi, yo = overlapped(x, out_count, delta)
    assert np.shares_memory(xi, yo)
    run(lib, xi, yo)
    assert np.array_equal(yo, want), "%d of %d outputs differ" % (
        np.count_nonzero(yo != want), want.size)


def conv_case(h, w, ic, oc, k, s, extra, w_min=-128):
    """(run, x, out_count, delta) of a k x k conv with 'same'-style padding, its output
    `extra` bytes further below the input than planned; weights from `w_min` up."""
    rng = np.random.default_rng(h * w + ic + oc + k)
    p = k // 2
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    x = rng.integers(-128, 128, h * w * ic, dtype=np.int8)
    wt = rng.integers(w_min, 128, oc * k * k * ic, dtype=np.int8)
    bias, mult, shift = random_quant(rng, oc)
    params = {"stride_h": s, "stride_w": s, "pad_top": p, "pad_left": p}
    delta = planned_delta("conv2d", params, (1, h, w, ic), (1, oh, ow, oc)) + extra

    def run(lib, xi, y):
        lib.conv_s8(xi, wt, bias, mult, shift, y, 1, h, w, ic, oh, ow, oc, k, k, 1, s, s, 1, 1,
                    p, p, -5, 3, -128, 127)

    return run, x, oh * ow * oc, delta


def fully_connected_case(fout=70, per_tensor=False):
    """(run, x, out_count, delta) of a fully connected layer over 5 rows: 40 -> `fout`
    features (70: three blocks of output features), input zero point 0; with `per_tensor`
    one multiplier and shift for every output."""
    rng = np.random.default_rng(5)
    batches, fin = 5, 40
    x = rng.integers(-128, 128, batches * fin, dtype=np.int8)
    wt = rng.integers(-127, 128, fout * fin, dtype=np.int8)
    bias, mult, shift = random_quant(rng, fout)
    if per_tensor:
        mult, shift = np.full_like(mult, mult[0]), np.full_like(shift, shift[0])
    consts = {"w": np.zeros((fout, fin), np.int8)}
    delta = planned_delta("fully_connected", {}, (batches, fin), (batches, fout), consts)

    def run(lib, xi, y):
        lib.fully_connected_s8(xi, wt, bias, mult, shift, y, batches, fin, fout, 0, 2, -128,
                               127)

    return run, x, batches * fout, delta


def pool_case(kind):
    """(run, x, out_count, delta) of a 3 x 3 `kind` ('avg' or 'max') pool, stride 1."""
    rng = np.random.default_rng(6)
    h, w, c = 9, 7, 12
    x = rng.integers(-128, 128, h * w * c, dtype=np.int8)
    params = {"stride_h": 1, "stride_w": 1, "pad_top": 1, "pad_left": 1}
    delta = planned_delta(kind + "_pool2d", params, (1, h, w, c), (1, h, w, c))

    def run(lib, xi, y):
        getattr(lib, kind + "_pool_s8")(xi, y, 1, h, w, c, h, w, 3, 3, 1, 1, 1, 1, -128, 127)

    return run, x, h * w * c, delta
