"""Float `.bst` models on flex_c's NHWC float32 kernels (burn.load + use_flex): the export of
the burn.nn KWS twin computes what the burn.nn model computes, and the imported MLPerf Tiny
float TFLite models compute what the pure .bst runtime computes."""

import os
import sys

import numpy as np
import pytest
from reference_models import model_path

import burn
import burn.host  # (teaches burn.device() the host backends)
from burn.host.bst_writer import encode_bst
from burn.host.convert import to_numpy, to_tensor
from burn.host.export import export_bst
from burn.host.flex.runtime import use_flex
from burn.host.importers.tflite import import_tflite

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
from float_models import MODELS, twins


def test_kws_twin_float_bst_on_flex_matches_burn_nn(tmp_path):
    ours, _theirs = twins("kws_dscnn")
    path = str(tmp_path / "kws.bst")
    export_bst(ours, path, dtype="float32", sample_shape=MODELS["kws_dscnn"][1:], tests=0)
    model = use_flex(burn.load(path))
    assert model.flex_ops == len(model._steps)
    ours = ours.to("numpy")
    rng = np.random.default_rng(3)
    for _ in range(3):
        x = rng.standard_normal(MODELS["kws_dscnn"]).astype(np.float32)
        want = to_numpy(ours(to_tensor(x, "numpy"))).reshape(-1)
        got = np.array(model.run(np.ascontiguousarray(x.transpose(0, 2, 3, 1)).reshape(-1)))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name,shape", [("kws_ref_model_float32.tflite", (1, 49, 10, 1)),
                                        ("pretrainedResnet.tflite", (1, 32, 32, 3))])
def test_imported_float_tflite_on_flex_matches_pure_runtime(name, shape):
    with open(model_path(name), "rb") as f:
        bst = encode_bst(import_tflite(f.read(), tests=0))
    pure, flex = burn.load(bst), use_flex(burn.load(bst))
    assert flex.flex_ops == len(flex._steps)
    x = np.random.default_rng(4).standard_normal(shape).astype(np.float32).reshape(-1)
    want = np.array(pure.run(x))
    np.testing.assert_allclose(np.array(flex.run(x)), want, rtol=1e-5, atol=1e-6)
