"""use_flex's input and output copies: every kind of input buffer the .bst runtime accepts
(numpy arrays flat or shaped, memoryviews, array('b'), bytes, lists) gives TFLM's output,
and repeated runs replay the prepared kernels with the new input."""

from array import array

import numpy as np
import pytest
from reference_models import model_path
from s8_cases import run_tflm

import burn
from burn.host.bst_writer import encode_bst
from burn.host.flex.runtime import use_flex
from burn.host.importers.tflite import import_tflite


def test_every_input_kind_gives_tflm_output():
    with open(model_path("kws_ref_model.tflite"), "rb") as f:
        data = f.read()
    model = use_flex(burn.load(encode_bst(import_tflite(data, tests=0))))
    rng = np.random.default_rng(11)
    for _ in range(2):
        x = rng.integers(-128, 128, size=(1, 49, 10, 1), dtype=np.int8)
        flat = x.reshape(-1)
        want = run_tflm(data, [x])[0].reshape(-1)
        for inp in (flat, x, memoryview(flat), array("b", flat.tobytes()), flat.tobytes(),
                    flat.tolist()):
            got = np.array(model(inp).tolist(), dtype=np.int8).reshape(-1)
            assert np.array_equal(got, want), type(inp)
    with pytest.raises(ValueError, match="input 0"):
        model(flat[:100])


def test_file_mode_model_reads_each_layer_on_every_run(tmp_path):
    """A model loaded from a path streams its constants through shared layer buffers, so
    every run must read them again before each op: repeated runs still give TFLM's output
    (in memory, runs after the first call the prepared kernels in a row)."""
    with open(model_path("kws_ref_model.tflite"), "rb") as f:
        data = f.read()
    path = tmp_path / "kws.bst"
    path.write_bytes(encode_bst(import_tflite(data, tests=0)))
    with open(path, "rb") as f:
        model = use_flex(burn.load(f))
        rng = np.random.default_rng(12)
        for _ in range(3):
            x = rng.integers(-128, 128, size=(1, 49, 10, 1), dtype=np.int8)
            got = np.array(model.run(x.reshape(-1)).tolist(), dtype=np.int8)
            assert np.array_equal(got, run_tflm(data, [x])[0].reshape(-1))
