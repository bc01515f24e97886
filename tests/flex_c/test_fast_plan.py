"""Validated plans (burn.host.flex.fast_plan, flex_c opt/host/plan_fast.c): the same outputs
as the checked plan, bad plans and inputs refused with a clear error, and nothing Python can
still reach (the plan's words, its pointer table) able to steer a run outside its buffers."""

import gc

import numpy as np
import pytest
from mlp_model import TINY_SIZES, mlp
from s8_cases import run_tflm
from tflite_builder import ModelBuilder
from tflite_models import reshape_depthwise, residual_add, small_cnn, wide_pointwise

import burn
from burn.host.bst_writer import encode_bst
from burn.host.flex.binding import FlexError
from burn.host.flex.fast_plan import FastPlan
from burn.host.flex.runtime import use_flex
from burn.host.importers.tflite import import_tflite

MODELS = {"mlp-tiny": lambda: mlp(TINY_SIZES, seed=3), "mlp-wide": lambda: mlp((40, 24, 7)),
          "small-cnn": small_cnn, "reshape-depthwise": reshape_depthwise,
          "residual-add": residual_add, "wide-pointwise": wide_pointwise}


def _planned(make):
    """A flex model of `make()` running as a plan, and its input length."""
    flex = use_flex(burn.load(encode_bst(import_tflite(make(), tests=0))))
    n = len(flex.input_buffer())
    flex.run(np.zeros(n, np.int8))
    assert flex.invoke.plan is not None
    return flex, n


def _checked(flex, x):
    """The outputs of the checked plan (flex_plan_run) on input x."""
    flex.input_buffer()[:] = x.tobytes() if flex.input_buffer().format == "B" else x
    flex.invoke()
    return np.array(flex._raw).copy()


@pytest.fixture(scope="module")
def models():
    return {name: _planned(make) for name, make in MODELS.items()}


def test_fast_and_checked_plans_agree(models, s8_width):
    """Made at the CPU's width, so that small-cnn's convolution and depthwise steps keep
    prepared forms (plan_fast.c); run at each width (capped: those steps run checked)."""
    rng = np.random.default_rng(7)
    for name, (flex, n) in models.items():
        x = np.empty(n, np.int8)
        for _ in range(3):
            x[:] = rng.integers(-128, 128, n)  # the bound array, changed in place
            fast = np.array(flex.run(x)).copy()
            assert np.array_equal(fast, _checked(flex, x)), name


@pytest.mark.parametrize("name, build, shape, seed", [
    ("residual-add", residual_add, (1, 16, 16, 8), 11),
    ("wide-pointwise", wide_pointwise, (1, 3, 3, 256), 12)])
def test_prepared_steps_give_tflm_outputs(models, name, build, shape, seed):
    """Steps a validated plan prepares give TFLM's outputs bit for bit: residual-add's ADD
    with its tables made once (on an AVX-512 VBMI host), the output over the skip input's
    arena bytes or not; wide-pointwise's convolution, whose packed weights only a validated
    plan prepares (a direct call leaves it to the int16 path)."""
    flex, n = models[name]
    data = build()
    rng = np.random.default_rng(seed)
    for _ in range(3):
        x = rng.integers(-128, 128, n).astype(np.int8)
        want = run_tflm(data, [x.reshape(shape)])[0].reshape(-1)
        assert np.array_equal(np.array(flex.run(x)).astype(np.int8), want)


def test_converter_mobilenet_runs_as_a_plan_with_tflm_outputs():
    """MLPerf Tiny's visual wake words architecture as the TFLite converter makes it
    (MobileNetV1-0.25, 96x96x3; tests/tflite_tf_models.py) runs as one validated plan, bit
    for bit with TFLM."""
    import tflite_tf_models

    made = tflite_tf_models.models()
    if made is None:
        pytest.skip("TensorFlow is not installed (the tensorflow-cpu of the dev extra)")
    data = made["vww"]
    flex = use_flex(burn.load(encode_bst(import_tflite(data, tests=0))))
    rng = np.random.default_rng(14)
    for k in range(3):
        x = rng.integers(-128, 128, 96 * 96 * 3).astype(np.int8)
        want = run_tflm(data, [x.reshape(1, 96, 96, 3)])[0].reshape(-1)
        assert np.array_equal(np.array(flex.run(x)).astype(np.int8), want)
        assert k == 0 or flex.invoke.plan is not None


def _fully_connected(per_channel, batches=3, fin=37, fout=70):
    """One int8 FULLY_CONNECTED with a fused ReLU, input zero point -9, on `batches` rows."""
    rng = np.random.default_rng(13)
    scales = [0.004 + 0.0005 * (k % 7) for k in range(fout if per_channel else 1)]
    mb = ModelBuilder()
    x = mb.tensor("x", (batches, fin), "int8", scale=0.05, zero_point=-9)
    w = mb.tensor("w", (fout, fin), "int8", data=rng.integers(-127, 128, (fout, fin)),
                  scale=scales, zero_point=[0] * len(scales), quantized_dimension=0)
    b = mb.tensor("b", (fout,), "int32", data=rng.integers(-2000, 2000, fout),
                  scale=[0.05 * s for s in scales], zero_point=[0] * len(scales))
    y = mb.tensor("y", (batches, fout), "int8", scale=0.07, zero_point=-128)
    mb.op("FULLY_CONNECTED", [x, w, b], [y], "FullyConnectedOptions",
          FusedActivationFunction=1)
    return mb.finish([x], [y])


@pytest.mark.parametrize("per_channel", [False, True])
def test_prepared_fully_connected_gives_tflm_outputs(per_channel, s8_width):
    """A fully connected step runs as a 1x1 convolution's prepared form (plan_fast.c) on an
    AVX-512 VNNI host: TFLM's outputs bit for bit with a per-tensor or per-channel
    requantization, several batches, rows of 37 taps and 70 outputs (a partial vector)."""
    data = _fully_connected(per_channel)
    flex = use_flex(burn.load(encode_bst(import_tflite(data, tests=0))))
    rng = np.random.default_rng(14)
    for _ in range(3):
        x = rng.integers(-128, 128, (3, 37)).astype(np.int8)
        want = run_tflm(data, [x])[0].reshape(-1)
        assert np.array_equal(np.array(flex.run(x)).astype(np.int8), want)
    assert flex.invoke.plan is not None


def test_changing_the_plan_afterwards_changes_no_run():
    """Words and table entries broken after the validated plan was made: the checked plan
    refuses them or reads elsewhere, the validated one keeps its own checked copy."""
    flex, n = _planned(MODELS["mlp-tiny"])
    plan = flex.invoke.plan
    x = np.arange(n, dtype=np.int8)
    want = np.array(flex.run(x)).copy()
    words, block = plan.block.plan, plan.block
    words[3 + 1] = 1 << 20  # in_features of the first step
    words[3 + 12] = 1 << 30  # its output_len
    words[3 + 13 + 5] = 0  # its output pointer: the input buffer
    tiny = np.zeros(1, np.int8)
    plan.keep.append(tiny)
    for k in range(block.n_buffers):
        block.buffers[k] = plan.lib.ffi.cast("void *", plan.lib.ffi.from_buffer(tiny))
    with pytest.raises(FlexError):
        flex.invoke()
    for _ in range(2):
        assert np.array_equal(np.array(flex.run(x)), want)


def test_a_malformed_plan_is_refused_when_validated():
    flex, _n = _planned(MODELS["mlp-tiny"])
    plan = flex.invoke.plan
    plan.block.plan[3 + 12] -= 1  # the first fully connected step's output_len
    with pytest.raises(FlexError, match=r"flex_s8_fully_connected.*plan step 0"):
        FastPlan(plan, flex.input_buffer())
    plan.block.plan[3 + 12] += 1
    plan.block.plan[3 + 13] = plan.block.n_buffers  # a pointer index past the table
    with pytest.raises(FlexError, match=r"plan step 0"):
        FastPlan(plan, flex.input_buffer())


def test_a_bound_input_of_the_wrong_length_is_refused(models):
    flex, n = models["mlp-wide"]
    fast = FastPlan(flex.invoke.plan, flex.input_buffer())
    with pytest.raises(FlexError, match="input of %d bytes" % n):
        fast.bind(np.zeros(n + 1, np.int8))
    lib = flex.invoke.plan.lib
    assert lib.lib.flex_fast_run(lib.ffi.NULL) == lib.lib.FLEX_E_NULL


def test_a_bound_input_is_pinned_and_collected_safely():
    """The bound buffer cannot be resized under the plan, and models whose arena input and
    bound input are memoryviews exported to flex_c (in the model's reference cycle) are
    collected without a crash."""
    for _ in range(3):
        flex, n = _planned(MODELS["mlp-tiny"])
        buf = bytearray(n)
        flex(memoryview(buf).cast("b"))
        with pytest.raises(BufferError):
            buf.append(0)
        del flex
        gc.collect()
