"""The float models of benchmarks/float_inference.py: each burn.nn model computes what its
PyTorch twin computes, on the numpy and flex backends, and the ONNX export that the
benchmark gives onnxruntime computes it too."""

import os
import sys

import numpy as np
import pytest
import torch

import burn.host  # noqa: F401  (teaches burn.device() the host backends)
from burn.host.convert import to_numpy, to_tensor

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
from float_models import (
    MODELS,
    burn_model,
    onnx_bytes,
    sample_input,
    torch_model,
)

ATOL = 1e-4


@pytest.fixture(scope="module", params=sorted(MODELS))
def case(request):
    name = request.param
    theirs = torch_model(name)
    x = sample_input(name)
    with torch.no_grad():
        want = theirs(torch.from_numpy(x)).numpy()
    return name, theirs, x, want


def test_twins_have_the_same_state_dict_keys_and_shapes(case):
    name, theirs, _x, _want = case
    ours = burn_model(name, theirs)
    mine = {k: tuple(v.shape) for k, v in ours.state_dict().items()}
    assert mine == {k: tuple(v.shape) for k, v in theirs.state_dict().items()}


@pytest.mark.parametrize("device", ["numpy", "flex"])
def test_burn_model_matches_its_torch_twin(case, device):
    name, theirs, x, want = case
    ours = burn_model(name, theirs).to(device)
    got = to_numpy(ours(to_tensor(x, device)))
    assert got.shape == want.shape == (1, 12 if name == "kws_dscnn" else 10)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=ATOL)
    # a different input gives a different output: the comparison is not vacuous
    other = to_numpy(ours(to_tensor(sample_input(name, seed=7), device)))
    assert np.abs(other - got).max() > 1e-3


def test_onnx_export_runs_the_same_in_onnxruntime(case):
    import onnxruntime as ort

    _name, theirs, x, want = case
    sess = ort.InferenceSession(onnx_bytes(theirs, x), providers=["CPUExecutionProvider"])
    np.testing.assert_allclose(sess.run(None, {"x": x})[0], want, rtol=1e-4, atol=ATOL)
