"""The MobileNetV1-0.25 96x96 int8 model of tests/mobilenet_model.py: its size and arena as
imported, and its outputs through the .bst runtime (flex on the host, plain on one input)
bit for bit equal to tflite-micro's."""

import numpy as np
import pytest
from mobilenet_model import mobilenet_v1
from tflite_builder import run_tflm

import burn
from burn.host.bst_writer import encode_bst
from burn.host.flex.runtime import use_flex
from burn.host.importers.tflite import import_tflite


@pytest.fixture(scope="module")
def tflite():
    return mobilenet_v1(seed=0)


@pytest.fixture(scope="module")
def bst(tflite):
    return encode_bst(import_tflite(tflite, tests=2))


def _images(count, seed=11):
    rng = np.random.default_rng(seed)
    return [rng.integers(-128, 128, (1, 96, 96, 3), dtype=np.int8) for _ in range(count)]


def test_shape_of_a_mobilenet_v1_025(bst):
    info = burn.load(bst).info()
    kinds = [op["op"] for op in info["ops"]]
    assert kinds.count("depthwise_conv2d") == 13 and kinds.count("conv2d") == 14
    assert kinds[-3:] == ["avg_pool2d", "fully_connected", "softmax"]
    assert 7.0e6 < info["macs"] < 8.0e6
    assert 200_000 < info["params"] < 300_000
    assert 40_000 < info["arena_bytes"] < 60_000
    assert info["tests"] == 2


def test_flex_runtime_matches_tflm_and_outputs_vary(tflite, bst):
    model = use_flex(burn.load(bst))
    assert model.self_test() == 2
    outputs = set()
    for x in _images(4):
        want = run_tflm(tflite, [x])[0].reshape(-1).tolist()
        assert np.array(model.run(x), np.int8).tolist() == want
        outputs.add(tuple(want))
    assert len(outputs) > 1, "the model's output does not depend on its input"


def test_plain_runtime_matches_tflm_on_one_input(tflite, bst):
    model = burn.load(bst, variant="plain")
    x = _images(1, seed=5)[0]
    want = run_tflm(tflite, [x])[0].reshape(-1).tolist()
    assert list(model.run(x)) == want
