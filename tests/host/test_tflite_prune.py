"""The importer computes SHAPE and drops what no output needs (burn.host.importers.
tflite_prune): a Keras-style dynamic reshape imports and matches TFLM bit for bit; an op
nothing uses does not stop an import, one that an output needs still does."""

import numpy as np
import pytest
from tflite_builder import ModelBuilder, run_tflm

import burn
from burn.host.bst_writer import encode_bst
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.model_check import check_tflite
from burn.host.importers.tflite import import_tflite

Q = {"scale": 0.05, "zero_point": -3}


def _dynamic_reshape(dead_exp=False, live_exp=False):
    """x [1, 4, 4, 2] int8 -> RESHAPE to [1, 32] by SHAPE -> STRIDED_SLICE -> PACK -> SOFTMAX
    (optionally with a SIGN, which burn does not import, that nothing reads, or one the
    output reads)."""
    mb = ModelBuilder()
    x = mb.tensor("x", (1, 4, 4, 2), "int8", **Q)
    shape = mb.tensor("shape", (4,), "int32")
    batch = mb.tensor("batch", (), "int32")
    begin, end, one = (mb.tensor(n, (1,), "int32", data=np.array([v], np.int32))
                       for n, v in (("begin", 0), ("end", 1), ("one", 1)))
    width = mb.tensor("width", (), "int32", data=np.array(32, np.int32))
    new_shape = mb.tensor("new_shape", (2,), "int32")
    flat = mb.tensor("flat", (1, 32), "int8", **Q)
    y = mb.tensor("y", (1, 32), "int8", scale=1 / 256, zero_point=-128)
    mb.op("SHAPE", [x], [shape], "ShapeOptions", OutType=2)
    mb.op("STRIDED_SLICE", [shape, begin, end, one], [batch], "StridedSliceOptions",
          ShrinkAxisMask=1)
    mb.op("PACK", [batch, width], [new_shape], "PackOptions", ValuesCount=2, Axis=0)
    mb.op("RESHAPE", [x, new_shape], [flat])
    if dead_exp or live_exp:
        e = mb.tensor("e", (1, 32), "float32")
        fx = mb.tensor("fx", (1, 32), "float32")
        mb.op("DEQUANTIZE", [flat], [fx])
        mb.op("SIGN", [fx], [e])
        if live_exp:
            mb.op("QUANTIZE", [e], [y])
            return mb.finish([x], [y])
    mb.op("SOFTMAX", [flat], [y], "SoftmaxOptions", Beta=1.0)
    return mb.finish([x], [y])


def test_dynamic_reshape_imports_and_matches_tflm():
    data = _dynamic_reshape()
    graph = import_tflite(data, tests=2)
    assert [op.op for op in graph.ops] == ["copy", "softmax"]  # the copy costs no memory
    model = burn.load(encode_bst(graph))
    assert model.self_test() == 2
    x = np.random.default_rng(0).integers(-128, 128, (1, 4, 4, 2), dtype=np.int8)
    want = run_tflm(data, [x])[0].reshape(-1)
    assert np.array_equal(np.asarray(model(x.reshape(-1)).tolist()).reshape(-1), want)
    assert check_tflite(data).importable


def test_an_op_nothing_needs_is_dropped_and_a_needed_one_refused():
    assert [op.op for op in import_tflite(_dynamic_reshape(dead_exp=True), tests=0).ops] == \
        ["copy", "softmax"]
    with pytest.raises(TFLiteImportError, match=r"unsupported ops: node \d+ \(SIGN\)"):
        import_tflite(_dynamic_reshape(live_exp=True), tests=0)
    report = check_tflite(_dynamic_reshape(live_exp=True))
    assert not report.importable and "SIGN" in str(report.ops)
