"""The MLPerf Tiny int8 models run end to end on flex_c, on the host and on emulated
Cortex-M0+ / Cortex-M4F, and give TFLM's outputs bit for bit."""


import numpy as np
import pytest
from reference_models import model_path
from s8_cases import run_tflm

import burn
from burn.host.bst_writer import encode_bst
from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.runtime import use_flex
from burn.host.importers.tflite import import_tflite

CASES = [("kws_ref_model.tflite", (1, 49, 10, 1), "cortex-m0plus"),
         ("pretrainedResnet_quant.tflite", (1, 32, 32, 3), "cortex-m0plus"),
         ("kws_ref_model.tflite", (1, 49, 10, 1), "cortex-m4f")]


@pytest.mark.parametrize("name,shape,target", CASES)
def test_model_on_flex_matches_tflm(name, shape, target):
    with open(model_path(name), "rb") as f:
        data = f.read()
    bst = encode_bst(import_tflite(data, tests=0))
    host = use_flex(burn.load(bst))
    emulated = use_flex(burn.load(bst), EmulatedLib(target))
    assert host.flex_ops >= 10 and emulated.flex_ops == host.flex_ops
    rng = np.random.default_rng(len(name))
    for _ in range(2):
        x = rng.integers(-128, 128, size=shape, dtype=np.int8)
        want = run_tflm(data, [x])[0].reshape(-1)
        for model in (host, emulated):
            got = np.array(model(x.reshape(-1)).tolist(), dtype=np.int8).reshape(-1)
            assert np.array_equal(got, want), (name, target, got, want)
