"""A small text classifier with int32 token ids as its input: ids -> EMBEDDING_LOOKUP (or
GATHER) of a constant table -> MEAN over the tokens -> FULLY_CONNECTED -> SOFTMAX, int8 and
float32, against TFLM on the plain runtime, flex on the host and flex on the emulated
Cortex-M0+."""

import numpy as np
import pytest
from one_op_runtimes import check_on_host
from tflite_builder import ModelBuilder, run_tflm

import burn
from burn.host.bst_writer import encode_bst
from burn.host.importers.tflite import import_tflite

VOCAB, DIM, TOKENS, CLASSES = 50, 8, 6, 4


def _classifier(dtype, lookup, rng):
    """The model's bytes; int8: table scale 0.02, per-channel fc weights."""
    mb = ModelBuilder()
    i8 = dtype == "int8"

    def q(scale, zp=0):
        return {"scale": scale, "zero_point": zp} if i8 else {}

    table = (rng.integers(-127, 128, size=(VOCAB, DIM), dtype=np.int8) if i8 else
             rng.standard_normal((VOCAB, DIM)).astype(np.float32))
    w = (rng.integers(-127, 128, size=(CLASSES, DIM), dtype=np.int8) if i8 else
         rng.standard_normal((CLASSES, DIM)).astype(np.float32))
    bias = (rng.integers(-500, 500, size=CLASSES).astype(np.int32) if i8 else
            rng.standard_normal(CLASSES).astype(np.float32))
    w_scales = [float(np.float32(s)) for s in rng.uniform(0.005, 0.02, CLASSES)]
    t_table = mb.tensor("table", table.shape, dtype, data=table, **q(0.02))
    if lookup:
        ids = mb.tensor("ids", (TOKENS,), "int32")
        emb = mb.tensor("emb", (TOKENS, DIM), dtype, **q(0.02))
        mb.op("EMBEDDING_LOOKUP", [ids, t_table], [emb])
        axes = [0]
    else:
        ids = mb.tensor("ids", (1, TOKENS), "int32")
        emb = mb.tensor("emb", (1, TOKENS, DIM), dtype, **q(0.02))
        mb.op("GATHER", [t_table, ids], [emb], "GatherOptions", Axis=0)
        axes = [1]
    t_axes = mb.tensor("axes", (1,), "int32", data=np.array(axes, np.int32))
    mean = mb.tensor("mean", (1, DIM), dtype, **q(0.015, 2))
    mb.op("MEAN", [emb, t_axes], [mean], "ReducerOptions", KeepDims=False)
    t_w = mb.tensor("w", w.shape, dtype, data=w,
                    **({"scale": w_scales, "zero_point": [0] * CLASSES} if i8 else {}))
    t_b = mb.tensor("b", (CLASSES,), "int32" if i8 else "float32", data=bias,
                    **({"scale": [0.015 * s for s in w_scales],
                        "zero_point": [0] * CLASSES} if i8 else {}))
    logits = mb.tensor("logits", (1, CLASSES), dtype, **q(0.05, -10))
    mb.op("FULLY_CONNECTED", [mean, t_w, t_b], [logits], "FullyConnectedOptions")
    probs = mb.tensor("probs", (1, CLASSES), dtype, **q(1 / 256, -128))
    mb.op("SOFTMAX", [logits], [probs], "SoftmaxOptions", Beta=1.0)
    return mb.finish([ids], [probs]), (TOKENS,) if lookup else (1, TOKENS)


@pytest.mark.parametrize("dtype", ["int8", "float32"])
@pytest.mark.parametrize("lookup", [True, False], ids=["embedding_lookup", "gather"])
def test_text_classifier_matches_tflm(dtype, lookup):
    rng = np.random.default_rng(7)
    data, ids_shape = _classifier(dtype, lookup, rng)
    bst = encode_bst(import_tflite(data, tests=0))
    kinds = [s["op"] for s in burn.load(bst, variant="plain").info()["ops"]]
    assert kinds[0] == "gather" and "fully_connected" in kinds and kinds[-1] == "softmax"
    cases = []
    for k in range(6):
        ids = rng.integers(0, VOCAB, size=ids_shape).astype(np.int32)
        want = run_tflm(data, [ids])[0].reshape(-1)
        assert want.size == CLASSES
        cases.append(("%s classifier %d" % (dtype, k), ids, want, bst))
    check_on_host(cases, tuple(kinds))
