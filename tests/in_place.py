"""Helpers for int8 kernels run with their output over their input, as the .bst arena plans
it (docs/bst-format.md, "Arena and in-place execution"): the planned distance, one buffer
holding both views, random quantization, and the comparison with an out-of-place run."""

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
