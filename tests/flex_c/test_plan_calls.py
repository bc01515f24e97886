"""The call path of a one-input model that runs as a flex plan (burn.host.flex.runtime
`_plan_class`): `model(x)` and `model.run(x)` give the plain runtime's outputs for every kind
of input the model takes, and refuse a wrong size, shape or type with a ValueError."""

import sys
from array import array

import numpy as np
import pytest
from mlp_model import TINY_SIZES, mlp
from tflite_models import reshape_depthwise, small_cnn

import burn
from burn.host.bst_writer import encode_bst
from burn.host.flex.binding import FlexError
from burn.host.flex.runtime import use_flex
from burn.host.importers.tflite import import_tflite
from burn.model import Model

MODELS = {"mlp-tiny": lambda: mlp(TINY_SIZES, seed=1), "mlp-wide": lambda: mlp((40, 24, 7)),
          "small-cnn": small_cnn, "reshape-depthwise": reshape_depthwise}


@pytest.fixture(scope="module", params=sorted(MODELS))
def models(request):
    """(flex model already running as a plan, plain model, input length) of one model."""
    bst = encode_bst(import_tflite(MODELS[request.param](), tests=0))
    flex = use_flex(burn.load(bst))
    n = len(flex.input_buffer())
    flex.run(np.zeros(n, np.int8))  # the first run makes the plan
    assert flex.invoke.plan is not None and type(flex) is not Model
    return flex, burn.load(bst, variant="plain"), n


def _values(out):
    return np.array(out.tolist() if hasattr(out, "tolist") else list(out)).reshape(-1)


def test_every_kind_of_input_gives_the_plain_outputs(models):
    flex, plain, n = models
    shape = flex.input_shape()
    rng = np.random.default_rng(n)
    for k in range(4):
        x = rng.integers(-128, 128, n, dtype=np.int8)
        want = _values(plain(x))
        inputs = [x, array("b", x.tobytes()), x.tolist(), bytes(x.tobytes()),
                  x.reshape(shape), np.repeat(x, 2)[::2],
                  burn.tensor(x.tolist(), dtype=burn.int8).reshape(shape)]
        for inp in inputs:
            assert np.array_equal(_values(flex(inp)), want), (k, type(inp))
            assert np.array_equal(_values(flex.run(inp)), want), (k, type(inp))
    assert isinstance(flex, Model) and flex(x) is flex(x)  # one output Tensor, reused


def test_a_call_is_one_python_frame(models):
    """Per inference on an input already seen, the Python of `model(x)` and `model.run(x)`
    is their own frame alone (the input copy and the run are one C call)."""
    flex, _plain, n = models
    x = np.zeros(n, np.int8)
    flex(x)  # binds x
    events = []
    sys.setprofile(lambda frame, event, arg: events.append((event, frame.f_code.co_name)))
    try:
        flex(x)
        flex.run(x)
    finally:
        sys.setprofile(None)
    calls = [name for event, name in events if event == "call"]
    assert calls == ["__call__", "run"]


@pytest.mark.parametrize("bad,match", [
    (lambda n: np.zeros(3, np.int8), "expected {n} int8 values"),
    (lambda n: np.zeros(n + 1, np.int8), "expected {n} int8 values"),
    (lambda n: np.zeros(n, np.float32), "expected {n} int8 values .* got float32 ndarray"),
    (lambda n: np.zeros((n, 1), np.int8), r"expected int8 of shape .*, got shape \({n}, 1\)"),
    (lambda n: [0.5] * n, "got list"),
    (lambda n: None, "got NoneType"),
    (lambda n: 7, "got int"),
], ids=["short", "long", "float32", "shape", "floats", "none", "int"])
def test_wrong_input_is_a_value_error(models, bad, match):
    flex, plain, n = models
    x = np.arange(n, dtype=np.int64).astype(np.int8)
    for call in (flex, flex.run):
        with pytest.raises(ValueError, match=match.format(n=n)):
            call(bad(n))
        assert np.array_equal(_values(call(x)), _values(plain(x)))  # still runs after it


def test_a_failing_plan_step_raises_its_error():
    """A plan whose kernel refuses its arguments (the output length, broken here on purpose
    after the plan was made) raises FlexError naming the kernel through the checked call
    (`invoke`), while `model(x)` runs the validated copy made before, which the change
    cannot reach."""
    flex = use_flex(burn.load(encode_bst(import_tflite(mlp(TINY_SIZES), tests=0))))
    x = np.arange(16, dtype=np.int8)
    flex.run(x)
    want = _values(flex(x))
    words = flex.invoke.plan.call[1][0].plan  # the flex_plan_args block
    assert words[0] == flex.invoke.plan.lib.lib.FLEX_OP_S8_FULLY_CONNECTED
    words[3 + 12] -= 1  # the first step's output_len word
    with pytest.raises(FlexError, match=r"flex_s8_fully_connected.*plan step 0"):
        flex.invoke()
    for call in (flex, flex.run):
        assert np.array_equal(_values(call(x)), want)
