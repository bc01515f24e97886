"""flex_plan_run: a whole int8 or float32 model in one C call (burn.host.flex.plan, used by
use_flex after the first run), the host fully connected kernel it leans on for stacks of
dense layers, and the plan's own checks of malformed steps."""

import numpy as np
import pytest
from mlp_model import AD_SIZES, TINY_SIZES, mlp
from reference_models import model_path
from s8_cases import run_tflm
from tflite_builder import ModelBuilder

import burn
from burn.graph.fixedpoint import multiply_by_quantized_multiplier
from burn.host.bst_writer import encode_bst
from burn.host.flex.binding import FlexError, Struct, host
from burn.host.flex.plan import Plan
from burn.host.flex.runtime import use_flex
from burn.host.importers.tflite import import_tflite

E_NULL, E_PARAM = -1, -5


def _models(data):
    bst = encode_bst(import_tflite(data, tests=0))
    return use_flex(burn.load(bst)), burn.load(bst, variant="plain")


@pytest.mark.parametrize("sizes", [AD_SIZES, TINY_SIZES], ids=["ad", "tiny"])
def test_dense_stacks_run_as_one_plan_with_tflm_bits(sizes):
    data = mlp(sizes, seed=3)
    flex, pure = _models(data)
    rng = np.random.default_rng(5)
    for k in range(3):
        x = rng.integers(-128, 128, size=(1, sizes[0]), dtype=np.int8)
        got = np.array(flex(x.reshape(-1)).tolist(), dtype=np.int8).reshape(-1)
        assert np.array_equal(got, run_tflm(data, [x])[0].reshape(-1)), k
        assert np.array_equal(got, np.array(pure(x.reshape(-1)).tolist(), np.int8).reshape(-1))
    assert flex.invoke.plan is not None  # runs after the first one are the plan


@pytest.mark.parametrize("name,shape", [("kws_ref_model.tflite", (1, 49, 10, 1)),
                                        ("pretrainedResnet_quant.tflite", (1, 32, 32, 3))])
def test_mlperf_models_run_as_plans(name, shape):
    with open(model_path(name), "rb") as f:
        data = f.read()
    flex, _pure = _models(data)
    rng = np.random.default_rng(6)
    for _ in range(2):
        x = rng.integers(-128, 128, size=shape, dtype=np.int8)
        got = np.array(flex(x.reshape(-1)).tolist(), dtype=np.int8).reshape(-1)
        assert np.array_equal(got, run_tflm(data, [x])[0].reshape(-1))
    assert flex.invoke.plan is not None


def test_float_models_run_as_plans():
    """The float32 kernels have plan steps too: the runs after the first (the prepared
    calls) are the plan, with the same bits."""
    with open(model_path("kws_ref_model_float32.tflite"), "rb") as f:
        data = f.read()
    flex, _pure = _models(data)
    x = np.random.default_rng(7).standard_normal(49 * 10).astype(np.float32)
    first = np.array(flex(x).tolist())
    again = np.array(flex(x).tolist())
    assert flex.invoke.plan is not None
    assert np.array_equal(first, again)


def test_a_step_without_a_plan_op_keeps_the_prepared_calls():
    """QUANTIZE and DEQUANTIZE have no plan step: the model runs as its prepared calls."""
    mb = ModelBuilder()
    x = mb.tensor("x", (1, 8), "float32")
    q = mb.tensor("q", (1, 8), "int8", scale=0.05, zero_point=3)
    y = mb.tensor("y", (1, 8), "float32")
    mb.op("QUANTIZE", [x], [q])
    mb.op("DEQUANTIZE", [q], [y])
    flex, pure = _models(mb.finish([x], [y]))
    v = np.linspace(-3, 3, 8, dtype=np.float32)
    first, again = (np.array(flex(v).tolist()) for _ in range(2))
    assert flex.invoke.plan is None and flex.invoke.calls
    assert np.array_equal(first, again) and np.array_equal(first, np.array(pure(v).tolist()))


def _reference_fc(x, w, bias, mult, shift, filter_offset, q):
    """TFLM's int8 fully connected in numpy int64 (accumulator wrapped to int32)."""
    in_off, out_off, lo, hi = q
    acc = (x.astype(np.int64) + in_off) @ (w.astype(np.int64) + filter_offset).T + bias
    acc = (acc + (1 << 31)) % (1 << 32) - (1 << 31)
    out = np.empty(acc.shape, np.int8)
    for (b, o), a in np.ndenumerate(acc):
        k = o if len(mult) > 1 else 0
        v = multiply_by_quantized_multiplier(int(a), int(mult[k]), int(shift[k])) + out_off
        out[b, o] = min(max(v, lo), hi)
    return out


@pytest.mark.parametrize("batches,fin,fout,per_channel,offsets,shifts", [
    (1, 16, 16, True, (0, 0), (-14, 1)), (3, 37, 9, True, (-7, 0), (-14, 1)),
    (2, 130, 5, False, (5, 3), (-14, 1)), (1, 70000, 2, True, (100, -2), (-14, 1)),
    (1, 16, 8, True, (0, 0), (-31, 9)), (2, 16, 24, False, (0, 0), (-20, 4)),
    (1, 47, 19, True, (3, 0), (-31, 9)), (4, 64, 40, True, (0, -1), (-8, 8)),
    (2, 8, 21, True, (0, 0), (-14, 1)), (1, 128, 300, False, (0, 0), (-14, 1))],
    ids=["tiny", "input-offset", "per-tensor", "long-rows", "eight-rows-all-shifts",
         "per-tensor-blocks", "row-and-tap-tails", "batches-of-blocks", "short-rows",
         "whole-steps-two-blocks"])
def test_host_fully_connected_equals_reference(batches, fin, fout, per_channel, offsets,
                                               shifts, s8_width):
    """The host kernel's sums (offset terms split out, rows in chunks; on AVX2 CPUs rows of
    16 taps or more eight at a time, requantized eight at a time; on AVX-512 VNNI CPUs rows
    of other lengths 16 at a time, 64 taps a step) give TFLM's bits, at each int8 vector
    width. Left shifts stay where the shifted sums fit int32, as TFLM's do (it would
    overflow)."""
    rng = np.random.default_rng(fin)
    in_off, filter_offset = offsets
    x = rng.integers(-128, 128, (batches, fin), dtype=np.int8)
    w = rng.integers(-128, 128, (fout, fin), dtype=np.int8)
    bias = rng.integers(-50000, 50000, fout, dtype=np.int32)
    n = fout if per_channel else 1
    mult = rng.integers(1 << 30, (1 << 31) - 1, n, dtype=np.int64).astype(np.int32)
    shift = rng.integers(*shifts, n, dtype=np.int32)
    q = (in_off, -3, -128, 127)
    y = np.zeros(batches * fout, np.int8)
    status = host().call("flex_s8_fully_connected", [
        batches, fin, fout, x, x.size, w, w.size, filter_offset, bias, fout, mult, shift, n,
        Struct("flex_s8_quant", q), y, y.size])
    assert status == 0
    want = _reference_fc(x, w, bias, mult, shift, filter_offset, q)
    assert np.array_equal(y.reshape(batches, fout), want)


def test_host_fully_connected_saturates_the_doubling_high_multiply():
    """TFLM's one overflowing product, INT32_MIN * INT32_MIN, gives INT32_MAX (127 after the
    clamp), in every lane of an eight-output block and in the rows after it."""
    fin, fout = 16, 10
    x = np.zeros((1, fin), np.int8)
    w = np.zeros((fout, fin), np.int8)
    lowest = np.iinfo(np.int32).min
    bias = np.full(fout, lowest, np.int32)
    mult = np.array([lowest, 1 << 30] * (fout // 2), np.int32)
    shift = np.zeros(fout, np.int32)
    q = (0, 0, -128, 127)
    y = np.zeros(fout, np.int8)
    assert host().call("flex_s8_fully_connected", [
        1, fin, fout, x, x.size, w, w.size, 0, bias, fout, mult, shift, fout,
        Struct("flex_s8_quant", q), y, y.size]) == 0
    assert y.tolist() == [127, -128] * (fout // 2)
    assert np.array_equal(y, _reference_fc(x, w, bias, mult, shift, 0, q).reshape(-1))


def _run(words, buffers):
    """(status, failed index) of flex_plan_run, checked to be flex_plan_call's too and a
    validated plan's (refused when made, or failing when run, at the same step)."""
    lib = host()
    ffi = lib.ffi
    keep = [ffi.from_buffer(b) for b in buffers]
    args = {"plan": ffi.new("int32_t[]", words), "plan_len": len(words),
            "buffers": ffi.new("void *[]", [ffi.cast("void *", p) for p in keep]),
            "n_buffers": len(keep), "failed": ffi.new("int32_t *", -9)}
    status = lib.lib.flex_plan_run(*args.values())
    failed = args["failed"][0]
    args["failed"][0] = -9
    block = ffi.new("flex_plan_args *", args)
    assert lib.lib.flex_plan_call(block) == status
    assert args["failed"][0] == failed
    args["failed"][0] = -9
    made = ffi.new("flex_status *")
    fast = lib.lib.flex_fast_plan_new(block, ffi.NULL, 0, made)
    if fast == ffi.NULL:
        assert made[0] != 0
        assert (made[0], args["failed"][0]) == (status, failed)
    else:
        fast = ffi.gc(fast, lib.lib.flex_fast_plan_free)
        ran = lib.lib.flex_fast_run(fast)
        assert (ran, lib.lib.flex_fast_failed(fast) if ran else -9) == (status, failed)
    return status, failed


COPY, CONCAT = host().lib.FLEX_OP_COPY, host().lib.FLEX_OP_CONCAT


def test_plan_call_takes_its_arguments_as_one_block():
    lib = host()
    assert lib.lib.flex_plan_call(lib.ffi.NULL) == E_NULL
    src, dst = np.arange(4, dtype=np.int8), np.zeros(4, np.int8)
    assert _run([COPY, 1, 2, 4, 0, 1], [src, dst]) == (0, -9)
    assert np.array_equal(dst, src)


def test_malformed_steps_are_rejected_with_their_index():
    src, dst = np.arange(8, dtype=np.int8), np.zeros(8, np.int8)
    copy = [COPY, 1, 2, 8, 0, 1]  # 8 bytes from buffer 0 to buffer 1
    assert _run(copy, [src, dst]) == (0, -9)
    assert np.array_equal(dst, src)
    bad = {
        "unknown op": [99, 1, 2, 8, 0, 1],
        "op 0": [0, 0, 0],
        "word count": [COPY, 2, 2, 8, 8, 0, 1],
        "pointer count": [COPY, 1, 1, 8, 0],
        "truncated": [COPY, 1, 2, 8, 0],
        "short header": [COPY, 1],
        "index past the table": [COPY, 1, 2, 8, 0, 2],
        "index below -1": [COPY, 1, 2, 8, -2, 1],
        "concat inputs past the table": [CONCAT, 6, 2, 1, 2, 1, 1, 1, 16, 0, 1],
    }
    for what, step in bad.items():
        assert _run(copy + step, [src, dst]) == (E_PARAM, 1), what
    assert _run(copy + [COPY, 1, 2, -1, 0, 1], [src, dst])[0] != 0  # negative byte count


def test_failing_step_names_its_kernel():
    lib = host()
    plan = Plan(lib)
    x, y = np.zeros(4, np.int8), np.zeros(4, np.int8)
    plan.copy(x, y, 4)
    w, table = np.zeros(8, np.int8), np.zeros(2, np.int32)
    assert plan.kernel("flex_s8_fully_connected", [
        1, 4, 2, x, 4, w, 8, 0, table, 2, table, table, 2,
        Struct("flex_s8_quant", (0, 0, -128, 127)), y, 3])  # output length 3, not 2
    assert not plan.kernel("flex_s8_quantize", [4, x, 0.5, 0, y])  # no plan op
    plan.finish()
    with pytest.raises(FlexError, match=r"flex_s8_fully_connected.*plan step 1"):
        plan.run()
