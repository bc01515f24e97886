"""int16x8 ops (int16 activations, int8 weights), and the moves of int32 and BOOL data,
against the tflite-micro interpreter, bit for bit, on the plain runtime, flex on the host and
flex on the emulated Cortex-M0+.

Each case is a one-op .tflite (tests/s16_cases.py) imported by burn's TFLite importer, so
the importer's parameters (multipliers, clamps, the int64 bias rule, softmax's tables), the
.bst reader's prepare step and each runtime's kernel are all under test. A small whole model
(quantize, conv, tanh, reshape, fully connected, logistic, softmax, dequantize) runs the same
way with its self-test vectors.
"""

import numpy as np
import pytest
from bool_cases import BOOL_MAKERS
from s16_cases import MAKERS, make_cases
from s32_cases import INT32_MAKERS
from tflite_builder import ModelBuilder, run_tflm

import burn
from burn.host.bst_writer import encode_bst
from burn.host.flex.runtime import use_flex
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite

COUNT = 40  # cases per op


@pytest.fixture(scope="module")
def cases():
    """[(op, case, .bst bytes)], COUNT cases of each op."""
    out = []
    for seed, makers in ((16, MAKERS), (32, INT32_MAKERS), (1, BOOL_MAKERS)):
        for op, items in make_cases(seed, COUNT, makers).items():
            out += [(op, c, encode_bst(import_tflite(c.data, tests=0))) for c in items]
    return out


def _compare(cases, load):
    failures = []
    for op, case, data in cases:
        model = load(data)
        got = np.asarray(model.run(case.inputs())).reshape(-1)
        if got.dtype != case.want.dtype or not np.array_equal(got, case.want):
            bad = np.nonzero(got != case.want)[0]
            failures.append("%s: %s: %d of %d differ" % (op, case.name, len(bad), got.size))
    assert not failures, "\n".join(failures[:20])


def test_every_op_has_its_cases(cases):
    counts = {op: sum(1 for o, _c, _d in cases if o == op)
              for op in {**MAKERS, **INT32_MAKERS, **BOOL_MAKERS}}
    assert min(counts.values()) >= 40, counts


def test_info_counts_each_tables_bytes_by_its_type(cases):
    """model.info()'s table_bytes, the constants copied into RAM, at their own widths (an
    int16 table 2 bytes an element, an int32 one 4)."""
    kinds = set()
    for _op, case, data in cases:
        model = burn.load(data)
        model.run(case.inputs())
        bst = model._bst
        assert model.info()["table_bytes"] == sum(bst.blob(i)[1] for i in model._tables)
        kinds |= {bst.blob(i)[2] for i in model._tables}
    assert {"int16", "int32"} <= kinds, kinds


def test_plain_runtime_matches_tflm(cases):
    _compare(cases, lambda data: burn.load(data, variant="plain"))


def _flex(lib=None):
    def load(data):
        model = use_flex(burn.load(data, variant="plain"), lib)
        # every step but the copies (reshapes, strided runs of consecutive elements)
        assert model.flex_ops == sum(1 for s in model._steps
                                     if type(s.k).__name__ != "_BufferCopy")
        return model
    return load


def test_flex_on_the_host_matches_tflm(cases):
    _compare(cases, _flex())


def test_flex_on_the_emulated_cortex_m0plus_matches_tflm(cases):
    from burn.host.flex.emulator import EmulatedLib

    _compare(cases, _flex(EmulatedLib("cortex-m0plus")))


def _whole_model():
    """QUANTIZE float32 -> int16, CONV_2D, TANH, RESHAPE, FULLY_CONNECTED (int64 bias),
    LOGISTIC, SOFTMAX, DEQUANTIZE: a small int16x8 model as the TFLite converter lays one
    out."""
    rng = np.random.default_rng(5)
    mb = ModelBuilder()
    s_in, s_c, s_f, s_t = 0.0002, 0.0004, 0.0008, 1.0 / 32768
    cw_scales = [float(np.float32(s)) for s in rng.uniform(0.005, 0.02, 4)]
    fw_scale = 0.01
    x = mb.tensor("x", (1, 6, 6, 2), "float32")
    q = mb.tensor("q", (1, 6, 6, 2), "int16", scale=s_in, zero_point=0)
    cw = mb.tensor("cw", (4, 3, 3, 2), "int8", data=rng.integers(-127, 128, (4, 3, 3, 2)),
                   scale=cw_scales, zero_point=[0] * 4)
    cb = mb.tensor("cb", (4,), "int64", data=rng.integers(-5000, 5000, 4),
                   scale=[s_in * s for s in cw_scales], zero_point=[0] * 4)
    c = mb.tensor("c", (1, 3, 3, 4), "int16", scale=s_c, zero_point=0)
    t = mb.tensor("t", (1, 3, 3, 4), "int16", scale=s_t, zero_point=0)
    r = mb.tensor("r", (1, 36), "int16", scale=s_t, zero_point=0)
    shape = mb.tensor("shape", (2,), "int32", data=[1, 36])
    fw = mb.tensor("fw", (5, 36), "int8", data=rng.integers(-127, 128, (5, 36)),
                   scale=fw_scale, zero_point=0)
    fb = mb.tensor("fb", (5,), "int64", data=rng.integers(-9000, 9000, 5),
                   scale=s_t * fw_scale, zero_point=0)
    f = mb.tensor("f", (1, 5), "int16", scale=s_f, zero_point=0)
    g = mb.tensor("g", (1, 5), "int16", scale=s_t, zero_point=0)
    p = mb.tensor("p", (1, 5), "int16", scale=1.0 / 32768, zero_point=0)
    y = mb.tensor("y", (1, 5), "float32")
    mb.op("QUANTIZE", [x], [q])
    mb.op("CONV_2D", [q, cw, cb], [c], "Conv2DOptions", Padding=0, StrideH=2, StrideW=2,
          FusedActivationFunction=1)
    mb.op("TANH", [c], [t])
    mb.op("RESHAPE", [t, shape], [r])
    mb.op("FULLY_CONNECTED", [r, fw, fb], [f], "FullyConnectedOptions")
    mb.op("LOGISTIC", [f], [g])
    mb.op("SOFTMAX", [g], [p], "SoftmaxOptions", Beta=1.0)
    mb.op("DEQUANTIZE", [p], [y])
    return mb.finish([x], [y])


def test_whole_int16_model_matches_tflm_on_every_runtime():
    from burn.host.flex.emulator import EmulatedLib

    data = _whole_model()
    graph = import_tflite(data, tests=3)
    bst = encode_bst(graph)
    assert [op.op for op in graph.ops] == ["quantize", "conv2d", "tanh", "fully_connected",
                                          "logistic", "softmax", "dequantize"]
    assert {t.dtype for t in graph.tensors} == {"float32", "int16"}
    rng = np.random.default_rng(1)
    xs = [rng.standard_normal((1, 6, 6, 2)).astype(np.float32) for _ in range(3)]
    loaders = {"plain": lambda: burn.load(bst, variant="plain"),
               "flex": lambda: use_flex(burn.load(bst, variant="plain")),
               "m0+": lambda: use_flex(burn.load(bst, variant="plain"),
                                       EmulatedLib("cortex-m0plus"))}
    for name, load in loaders.items():
        model = load()
        assert model.self_test() == 3, name
        for x in xs:
            want = run_tflm(data, [x])[0].reshape(-1)
            got = np.asarray(model(x).tolist(), np.float32).reshape(-1)
            assert np.array_equal(got, want), name


def _conv16(w_dtype="int8", bias_dtype="int64", zp=0, bias=None):
    mb = ModelBuilder()
    x = mb.tensor("x", (1, 3, 3, 1), "int16", scale=0.001, zero_point=zp)
    w = mb.tensor("w", (1, 1, 1, 1), w_dtype, data=[3], scale=[0.01], zero_point=[0])
    b = mb.tensor("b", (1,), bias_dtype, data=[5] if bias is None else bias,
                  scale=[0.00001], zero_point=[0])
    y = mb.tensor("y", (1, 3, 3, 1), "int16", scale=0.002, zero_point=0)
    mb.op("CONV_2D", [x, w, b], [y], "Conv2DOptions", Padding=1, StrideH=1, StrideW=1)
    return mb.finish([x], [y])


@pytest.mark.parametrize("kwargs,reason", [
    ({"w_dtype": "int16"}, "filter type: INT16 not supported"),
    ({"bias_dtype": "float32"}, "Bias type FLOAT32 not supported"),
    ({"zp": 3}, "zero points 0"),
    ({"bias": [1 << 40]}, "beyond int32"),
])
def test_importer_refuses_what_tflm_refuses(kwargs, reason):
    with pytest.raises(TFLiteImportError, match=reason):
        import_tflite(_conv16(**kwargs), tests=0)


def test_int16_squared_difference_with_zero_points_is_refused_as_by_tflm():
    """TFLM's int16 SQUARED_DIFFERENCE requires zero points 0 (its Prepare fails)."""
    mb = ModelBuilder()
    a, b = (mb.tensor(n, (1, 4), "int16", scale=0.001, zero_point=zp)
            for n, zp in (("a", 3), ("b", 0)))
    y = mb.tensor("y", (1, 4), "int16", scale=0.01, zero_point=0)
    mb.op("SQUARED_DIFFERENCE", [a, b], [y])
    data = mb.finish([a, b], [y])
    with pytest.raises(TFLiteImportError, match=r"SQUARED_DIFFERENCE.*zero points 3, 0, 0"):
        import_tflite(data, tests=0)
    with pytest.raises(RuntimeError):
        run_tflm(data, [np.zeros((1, 4), np.int16)] * 2)
