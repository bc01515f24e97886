"""Seeded mutation fuzz of `burn import model.onnx` (tests/onnx_fuzz.py), in a child
process: every mutated protobuf ends with a file that loads or one clean error line, never
a traceback, a hang or a crash."""

import pytest
from importer_fuzz import fuzz
from onnx_fuzz import __file__ as ONNX_FUZZ
from onnx_models import export, quantize


@pytest.mark.parametrize("name,cases,seed,qdq", [("small_cnn", 140, 7, False),
                                                 ("op_mix", 60, 11, False),
                                                 ("small_cnn", 60, 13, True)])
def test_mutated_onnx_models_import_cleanly(tmp_path, name, cases, seed, qdq):
    path = tmp_path / (name + ".onnx")
    export(name, path, 17)
    if qdq:  # onnxruntime's int8 QDQ model, imported to an int8 .bst
        path = tmp_path / (name + "_qdq.onnx")
        quantize(tmp_path / (name + ".onnx"), path, per_channel=True)
    counts, bad = fuzz(path, cases, seed=seed, tflm_every=0, case_timeout=30,
                       script=ONNX_FUZZ)
    assert bad == [], bad
    assert counts["bst"] + counts["error"] == cases
    assert counts["bst"] > 0 and counts["error"] > 0  # the mutations reach both ends
