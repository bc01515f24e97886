"""int16 LOGISTIC and TANH over every int16 input, against the tflite-micro interpreter.

TFLM's outputs here are the evidence for burn.host.importers.sigmoid16's table (the rounded
formula plus the indices where TFLM holds one more): burn's output must equal TFLM's for
all 65,536 inputs at power-of-two and general input scales, on the plain runtime and flex
on the host, and a table with any one entry moved by one must disagree with TFLM somewhere.
"""

import numpy as np
import pytest
from tflite_builder import ModelBuilder, run_tflm

import burn
from burn.host.bst_writer import encode_bst
from burn.host.flex.graph_kernels import GraphKernels
from burn.host.flex.runtime import use_flex
from burn.host.importers import sigmoid16
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite

EVERY_INPUT = np.arange(-32768, 32768, dtype=np.int16)
# TFLM's power-of-two cases (2**-12; 2**-11 for TANH) and general multipliers
SCALES = (2.0 ** -12, 2.0 ** -11, 1.0 / 6144, 3e-4, 1.7e-4, 5e-5, 1e-3)


def _model(op, in_scale, out_scale=1.0 / 32768, in_zp=0, out_zp=0, size=65536):
    mb = ModelBuilder()
    x = mb.tensor("x", (size,), "int16", scale=in_scale, zero_point=in_zp)
    y = mb.tensor("y", (size,), "int16", scale=out_scale, zero_point=out_zp)
    mb.op(op, [x], [y])
    return mb.finish([x], [y])


@pytest.fixture(scope="module")
def runs():
    """[(op, scale, .tflite bytes, TFLM's output for every int16 input)]."""
    out = []
    for op in ("LOGISTIC", "TANH"):
        for scale in SCALES:
            data = _model(op, scale)
            want = run_tflm(data, [EVERY_INPUT], arena_size=1 << 20)[0].reshape(-1)
            out.append((op, scale, data, want))
    return out


def test_every_input_matches_tflm_on_plain_and_flex(runs):
    for op, scale, data, want in runs:
        bst = encode_bst(import_tflite(data, tests=0))
        for model in (burn.load(bst, variant="plain"), use_flex(burn.load(bst))):
            got = np.asarray(model.run(EVERY_INPUT)).reshape(-1)
            assert np.array_equal(got, want), "%s scale %g: %d differ" % (
                op, scale, int((got != want).sum()))


def test_tflm_pins_down_every_table_entry(runs):
    """Moving any one entry by one (down where TFLM's is one above the formula, else up)
    changes some output: the table is what TFLM's outputs say, entry by entry."""
    kernels = GraphKernels()
    table = sigmoid16.sigmoid_table().view(np.uint16).astype(np.int64)
    out = np.empty(65536, np.int16)
    for i in range(256):
        moved = table.copy()
        moved[i] += -1 if i in sigmoid16.ONE_HIGHER else 1
        moved = moved.astype(np.uint16).view(np.int16)
        seen = False
        for op, scale, _data, want in runs:
            mult, shift = sigmoid16.input_scaling(op.lower(), scale)
            getattr(kernels, op.lower() + "_s16")(EVERY_INPUT, out, 65536, mult, shift, moved)
            if not np.array_equal(out, want):
                seen = True
                break
        assert seen, "entry %d moved by one still matches TFLM" % i


def test_table_is_the_formula_plus_the_measured_indices():
    table = sigmoid16.sigmoid_table().view(np.uint16)
    assert table.size == 256 and table[0] == 32768 and table[255] == 65535
    formula = np.array([min(65535, round(65536 / (1 + np.exp(-i / 24)))) for i in range(256)])
    assert np.nonzero(table != formula)[0].tolist() == list(sigmoid16.ONE_HIGHER)
    assert np.all(np.diff(table.astype(np.int64)) >= 0)


def test_input_scaling_follows_tflm_prepare():
    assert sigmoid16.input_scaling("logistic", 2.0 ** -12) == (0, 0)
    assert sigmoid16.input_scaling("tanh", 2.0 ** -11) == (0, 1)
    assert sigmoid16.input_scaling("logistic", 2.0 ** -11) == (24576, 12)
    mult, shift = sigmoid16.input_scaling("tanh", 3e-4)
    assert 16383 < mult <= 32767 and mult / 2.0 ** shift == pytest.approx(3e-4 * 12288, 1e-4)
    with pytest.raises(ValueError, match="out of TFLM's range"):
        sigmoid16.input_scaling("tanh", 4.0)


@pytest.mark.parametrize("kwargs,reason", [
    ({"out_scale": 1.0 / 256}, "scale 1/32768"),
    ({"out_scale": 1.0 / 16384}, "scale 1/32768"),
    ({"in_zp": 5}, "zero points 0"),
    ({"out_zp": -3}, "zero points 0"),
])
@pytest.mark.parametrize("op", ["LOGISTIC", "TANH"])
def test_importer_refuses_what_tflm_refuses(op, kwargs, reason):
    data = _model(op, 3e-4, size=4, **kwargs)
    with pytest.raises(RuntimeError):
        run_tflm(data, [np.zeros(4, np.int16)])
    with pytest.raises(TFLiteImportError, match=reason):
        import_tflite(data, tests=0)


@pytest.mark.parametrize("scale", [10.0, 1e-15])
def test_importer_refuses_scales_beyond_tflms_multiplier(scale):
    """TFLM only debug-checks these; its int32 arithmetic would overflow or lose the input."""
    with pytest.raises(TFLiteImportError, match="out of TFLM's range"):
        import_tflite(_model("TANH", scale, size=4), tests=0)


def test_kernels_agree_on_any_table_and_scaling():
    """The C kernels (host and emulated Cortex-M0+) and the Python ones compute the same
    uint32 arithmetic, in place too, for tables that are not sigmoid's (an LSTM passes its
    own buffers) and for the widest scalings the prepare step accepts."""
    from array import array

    from burn.graph import s16_sigmoid
    from burn.host.flex.emulator import EmulatedLib

    rng = np.random.default_rng(7)
    libs = [GraphKernels(), GraphKernels(EmulatedLib("cortex-m0plus"))]
    for case in range(8):
        table = rng.integers(-32768, 32768, 256, dtype=np.int16)
        mult, shift = [(65535, 15), (0, 14), (0, 0), (3, 4), (int(rng.integers(1, 32768)),
                       int(rng.integers(0, 16)))][case % 5]
        x = rng.integers(-32768, 32768, 300, dtype=np.int16)
        for name in ("logistic_s16", "tanh_s16"):
            want = array("h", x.tobytes())
            getattr(s16_sigmoid, name)(want, want, 300, mult, shift, array("h", table.tobytes()))
            for lib in libs:
                got = x.copy()
                getattr(lib, name)(got, got, 300, mult, shift, table)
                assert got.tolist() == want.tolist(), (name, mult, shift)


@pytest.mark.parametrize("mult,shift", [(65535, 16), (0, 15), (-1, 0), (5, 32)])
def test_c_kernel_refuses_what_would_overflow(mult, shift):
    from burn.host.flex.binding import FlexError

    x = np.zeros(4, np.int16)
    with pytest.raises(FlexError, match="out of range"):
        GraphKernels().tanh_s16(x, x, 4, mult, shift, sigmoid16.sigmoid_table())
    with pytest.raises(ValueError, match="256 needed"):
        GraphKernels().tanh_s16(x, x, 4, 0, 0, np.zeros(255, np.int16))
