"""int16 tensors and ops in hostile .bst files: the reader's and the int16 prepare step's
checks refuse, with a ValueError naming the field, what would make a kernel read or write
outside its buffers or disagree between runtimes; and a good int16 graph gives the same
output on the plain runtime and on flex."""

import numpy as np
import pytest
from bst_fuzz_models import int16_graph
from test_bst_hostile import reencode

import burn
from burn.host.bst_writer import encode_bst
from burn.host.flex.runtime import use_flex

GOOD = encode_bst(int16_graph())
X = np.random.default_rng(0).uniform(-2, 2, 32).astype(np.float32)


def test_the_int16_graph_runs_alike_on_every_runtime():
    plain = burn.load(GOOD, variant="plain")
    assert {t[1] for t in plain.tensors} == {"int16", "float32", "int8"}
    assert plain.info()["arena_bytes"] > 0
    want = np.array(plain.run(X))
    flex = use_flex(burn.load(GOOD, variant="plain"))
    assert flex.flex_ops == len(flex._steps)
    assert np.array_equal(np.array(flex.run(X)), want) and want.sum() > 0.9


def _op(kind):
    return next(i for i, o in enumerate(int16_graph().ops) if o.op == kind)


def _param(kind, name, value):
    def mutate(h):
        h["ops"][_op(kind)]["params"][name] = value
    return mutate


def _tensor(index, name, value):
    def mutate(h):
        h["tensors"][index][name] = value
    return mutate


def _set(key, value):
    def mutate(h):
        h[key] = value
    return mutate


def _drop(key):
    return lambda h: h.pop(key)


def _sigmoid_scaling(mult, shift):
    """A logistic whose inputs times in_mult (3 << in_left_shift when 0), plus the rounding,
    leave int32."""
    def mutate(h):
        h["ops"][_op("logistic")]["params"].update(in_mult=mult, in_left_shift=shift)
    return mutate


def _clamp_crossed(h):
    h["ops"][_op("conv2d")]["params"].update(act_min=5, act_max=4)


@pytest.mark.parametrize("mutate,reason", [
    (_set("arena_int16", 1 << 30), "int16 arena"),
    (_drop("arena_int16"), "tensor 1 arena offset"),
    (_tensor(2, "zero_point", 40000), "zero point"),
    (_tensor(2, "arena", 1), "do not fit"),
    (_param("conv2d", "wide", 2), "wide"),
    (_param("conv2d", "act_min", -40000), "act_min"),
    (_clamp_crossed, "act_min 5 > act_max 4"),
    (_param("depthwise_conv2d", "act_max", 32768), "act_max"),
    (_param("add", "left_shift", 16), "left_shift"),
    (_param("add", "a_shift", 1), "a_shift"),
    (_param("mul", "out_zp", 1 << 16), "out_zp"),
    (_param("avg_pool2d", "act_min", 40000), "act_min"),
    (_param("requantize", "shift", 24), "overflows int32"),
    (_param("quantize", "zp", 32768), "zp"),
    (_param("fully_connected", "in_zp", -32769), "in_zp"),
    (_param("softmax", "in_left_shift", 40), "in_left_shift"),
    (_param("logistic", "in_mult", 65536), "in_mult"),
    (_param("tanh", "in_left_shift", -1), "in_left_shift"),
    (_param("tanh", "in_left_shift", 32), "in_left_shift"),
    (_sigmoid_scaling(65535, 16), "overflow int32"),
    (_sigmoid_scaling(0, 15), "overflow int32"),
])
def test_hostile_int16_fields_are_refused(mutate, reason):
    with pytest.raises(ValueError, match=reason):
        burn.load(reencode(GOOD, mutate))


def test_wide_shifts_beyond_tflm_s_int64_range_are_refused():
    graph = int16_graph()
    graph.ops[1].consts["shift"] = np.array([-3, 8], np.int32)
    with pytest.raises(ValueError, match="shift 8 of channel 1: more than 7"):
        burn.load(encode_bst(graph))


@pytest.mark.parametrize("table", [np.zeros(513, np.int16), np.full(513, -5, np.int16),
                                   np.zeros(512, np.int16)])
def test_softmax_tables_that_would_break_the_row_sum_are_refused(table):
    """A zero (or negative) exp table leaves no row sum to divide by; a short one would be
    read past its end."""
    graph = int16_graph()
    graph.ops[_op("softmax")].consts["exp_lut"] = table
    with pytest.raises(ValueError, match="exp_lut"):
        burn.load(encode_bst(graph))


def test_an_int16_op_without_an_int16_kernel_is_refused():
    def mutate(h):
        h["ops"][_op("avg_pool2d")]["op"] = "mean"
        h["ops"][_op("avg_pool2d")]["params"] = {"outer": 1, "reduce": 4, "inner": 8}
    with pytest.raises(ValueError, match="no int16 kernel"):
        burn.load(reencode(GOOD, mutate))


@pytest.mark.parametrize("kind", ["logistic", "tanh"])
@pytest.mark.parametrize("size", [255, 257])
def test_sigmoid_tables_of_another_size_are_refused(kind, size):
    graph = int16_graph()
    graph.ops[_op(kind)].consts["table"] = np.zeros(size, np.int16)
    with pytest.raises(ValueError, match="table"):
        burn.load(encode_bst(graph))


def test_the_largest_sigmoid_scalings_load_and_run_alike():
    """The edge of the prepare step's int32 rule: accepted, and the same on every runtime."""
    graph = int16_graph()
    for kind, mult, shift in (("logistic", 65535, 15), ("tanh", 0, 14)):
        graph.ops[_op(kind)].params.update(in_mult=mult, in_left_shift=shift)
    data = encode_bst(graph)
    want = np.array(burn.load(data, variant="plain").run(X))
    assert np.array_equal(np.array(use_flex(burn.load(data, variant="plain")).run(X)), want)
