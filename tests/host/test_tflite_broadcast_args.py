"""TFLite BROADCAST_ARGS of constant shapes (constants, or a SHAPE's output) folds at
import into the broadcast shape. TFLM computes it only at run time, so no op that needs a
shape at its Prepare (BROADCAST_TO, FILL) can take it there; a RESHAPE can. 40 seeded
shape pairs: the folded shape is TFLM's output; a RESHAPE by a folded shape imports and runs
as TFLM's; what cannot fold is refused at import with the reason."""

import numpy as np
import pytest
from tflite_builder import ModelBuilder, run_tflm

import burn
from burn.host.bst_writer import encode_bst
from burn.host.flex.runtime import use_flex
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite
from burn.host.importers.tflite_prune import prune
from burn.host.importers.tflite_read import read_tflite

CASES = 40


def _args_model(a, b, dtype="int32", out_dtype=None, out_dims=None, computed=False):
    """BROADCAST_ARGS of the shapes `a` and `b` (constants, or inputs when `computed`)."""
    mb = ModelBuilder()
    ta = mb.tensor("a", (len(a),), dtype, data=None if computed else np.array(a, dtype))
    tb = mb.tensor("b", (len(b),), dtype, data=np.array(b, dtype))
    out = mb.tensor("out", (out_dims or max(len(a), len(b)),), out_dtype or dtype)
    mb.op("BROADCAST_ARGS", [ta, tb], [out])
    return mb.finish([ta] if computed else [], [out])


def _folded(data):
    tf = read_tflite(data)
    prune(tf)
    return tf.tensors[tf.outputs[0]].data


def test_folded_shapes_are_tflms():
    rng = np.random.default_rng(43)
    for i in range(CASES):
        full = [int(d) for d in rng.integers(1, 5, size=int(rng.integers(1, 6)))]
        # each shape: the full one without some leading dims, some dims 1
        pair = [[1 if rng.integers(0, 3) == 0 else d
                 for d in full[int(rng.integers(0, len(full))):]] for _ in range(2)]
        dtype = "int64" if i % 3 == 0 else "int32"
        data = _args_model(*pair, dtype=dtype)
        want = run_tflm(data, [])[0]
        got = _folded(data)
        assert got.dtype == want.dtype and got.tolist() == want.tolist(), pair


def test_a_reshape_by_a_folded_shape_runs_as_tflm():
    mb = ModelBuilder()
    x = mb.tensor("x", (2, 3), "float32")
    s = mb.tensor("s", (2,), "int32")
    mb.op("SHAPE", [x], [s], "ShapeOptions", OutType=2)
    o = mb.tensor("o", (1,), "int32", data=np.array([1], np.int32))
    b = mb.tensor("b", (2,), "int32")
    mb.op("BROADCAST_ARGS", [s, o], [b])
    r = mb.tensor("r", (2, 3), "float32")
    mb.op("RESHAPE", [x, b], [r])
    y = mb.tensor("y", (2, 3), "float32")
    mb.op("ADD", [r, x], [y], "AddOptions")
    data = mb.finish([x], [y])
    v = np.arange(6, dtype=np.float32).reshape(2, 3)
    want = run_tflm(data, [v])[0].reshape(-1).tolist()
    bst = encode_bst(import_tflite(data, tests=0))
    for model in (burn.load(bst, variant="plain"), use_flex(burn.load(bst))):
        assert list(model.run(v.reshape(-1))) == want


@pytest.mark.parametrize("data,match", [
    (_args_model([2], [3]), r"shapes \[2\] and \[3\] are incompatible"),
    (_args_model([2], [2], computed=True), "computed at run time"),
    (_args_model([2], [2], out_dims=3), "cannot hold"),
    (_args_model([2], [2], out_dtype="int64"), "all int32 or all int64"),
])
def test_what_cannot_fold_is_refused_at_import(data, match):
    with pytest.raises(TFLiteImportError, match=match):
        _folded(data)
