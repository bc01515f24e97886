"""The float MLPerf Tiny models import and run. TFLM cannot run the float KWS (a hybrid
model: float ops over int8 weights), so both are checked against their int8 twins, which
TFLM-exactness tests cover: on the same inputs they must pick the same class. They run on
flex's kernels (the host build), which tests/flex_c/test_float_models_flex.py checks against
the plain runtime on these models: the plain float ResNet-8 takes seconds an inference."""

import numpy as np
import pytest
from reference_models import model_path

import burn
from burn.host.bst_writer import encode_bst
from burn.host.convert import to_numpy
from burn.host.flex.runtime import use_flex
from burn.host.importers.tflite import import_tflite

PAIRS = [("kws_ref_model_float32.tflite", "kws_ref_model.tflite"),
         ("pretrainedResnet.tflite", "pretrainedResnet_quant.tflite")]


def _load(name):
    return use_flex(burn.load(encode_bst(import_tflite(model_path(name).read_bytes(),
                                                        tests=2))))


@pytest.mark.parametrize("float_name,int8_name", PAIRS)
def test_float_model_agrees_with_its_int8_twin(float_name, int8_name):
    mf, mq = _load(float_name), _load(int8_name)
    assert mf.self_test() == 2
    spec_in, spec_out = mq.info()["inputs"][0], mq.info()["outputs"][0]
    rng = np.random.default_rng(0)
    for _ in range(5):
        xf = rng.standard_normal(spec_in["shape"]).astype(np.float32) * 2
        xq = np.clip(np.round(xf / spec_in["scale"]) + spec_in["zero_point"], -128, 127)
        yf = to_numpy(mf(xf)).reshape(-1)
        yq = (to_numpy(mq(xq.astype(np.int8))).reshape(-1).astype(np.float32)
              - spec_out["zero_point"]) * spec_out["scale"]
        assert abs(float(yf.sum()) - 1.0) < 1e-3  # both end in softmax
        assert yf.argmax() == yq.argmax()
        assert np.abs(yf - yq).max() < 0.4
