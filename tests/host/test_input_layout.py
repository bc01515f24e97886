"""A float model imported from ONNX takes NHWC input ([1, H, W, C]). The NCHW tensor an
ONNX user naturally passes is refused, naming both shapes and the way out, on every host
runtime (plain, flex, and flex's validated plan, which runs an int8 model after its first
inference); `burn.load(..., input_layout="NCHW")` and `burn run --input-layout NCHW` take it
and compute what onnxruntime computes. tests/core/test_model_inputs.py checks the same
rules on MicroPython."""

import ast
import os
import sys

import numpy as np
import onnxruntime
import pytest

import burn
from burn import nn
from burn.host import bst_runtime
from burn.host.bst_writer import write_bst
from burn.host.cli import main as burn_main
from burn.host.convert import to_tensor
from burn.host.export import quantize

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from onnx_models import export

NCHW, NHWC = (1, 3, 16, 16), (1, 16, 16, 3)


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("layout")
    onnx_path = folder / "resnet8.onnx"
    export("resnet8", onnx_path)
    bst = folder / "resnet8.bst"
    assert burn_main(["import", str(onnx_path), "-o", str(bst), "--tests", "1"]) == 0
    x = np.random.default_rng(0).standard_normal(NCHW).astype(np.float32)
    want = onnxruntime.InferenceSession(str(onnx_path)).run(None, {"x": x})[0]
    return str(bst), x, want


def _runtimes():
    yield "plain", lambda path, layout=None: burn.load(path, variant="plain",
                                                        input_layout=layout)
    if bst_runtime.flex_available():
        yield "flex", lambda path, layout=None: bst_runtime.load(path, "flex", layout)


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got).reshape(want.shape), want, rtol=1e-3,
                               atol=1e-4)


def test_the_file_records_its_nhwc_input(imported):
    info = burn.load(imported[0]).info()
    assert info["inputs"][0]["shape"] == NHWC and info["metadata"]["input_layout"] == "NHWC"


def test_an_nchw_input_is_refused_on_every_runtime(imported):
    path, x, want = imported
    for name, load in _runtimes():
        m = load(path)
        nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
        for _ in range(2):
            _close(m.run(nhwc), want)
        for call in (m.run, m):
            for given in (x, to_tensor(x), x.reshape(1, 3, 256)):
                with pytest.raises(ValueError) as err:
                    call(given)
                message = str(err.value)
                assert "expected float32 of shape %s" % (NHWC,) in message, name
                assert str(given.shape) in message, name
                assert ("input_layout='NCHW'" in message) == (len(given.shape) == 4), name
        _close(m.run(nhwc), want)  # a refused input changed nothing


def test_input_layout_nchw_computes_what_onnxruntime_computes(imported):
    path, x, want = imported
    for _name, load in _runtimes():
        m = load(path, "NCHW")
        assert m.input_shape() == NCHW
        for _ in range(3):
            _close(m.run(x), want)
            _close(m(x).tolist(), want)
        _close(m.run(x.reshape(-1)), want)  # flat: the NCHW values in order
        _close(m(to_tensor(x)).tolist(), want)
        with pytest.raises(ValueError, match="loaded with input_layout='NCHW'"):
            m.run(np.ascontiguousarray(x.transpose(0, 2, 3, 1)))


def test_the_validated_plan_checks_the_shape_and_transposes(tmp_path):
    # flex runs an int8 model after its first inference as one validated plan, which
    # binds a numpy input directly: the shape is checked there too
    if not bst_runtime.flex_available():
        pytest.skip("burn._flex is not built: `pip install -e .` builds it")
    burn.seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Flatten(),
                          nn.Linear(4 * 6 * 6, 5))
    rng = np.random.default_rng(0)
    write_bst(quantize(model, rng.random((8, 3, 6, 6), np.float32), tests=1),
              tmp_path / "m.bst")
    data = (tmp_path / "m.bst").read_bytes()  # from memory: a model read from a file streams
    x = rng.integers(-128, 128, (1, 6, 6, 3), dtype=np.int8)
    want = list(burn.load(data, variant="plain").run(x))
    m = bst_runtime.load(data, "flex")
    assert list(m.run(x)) == want and list(m.run(x)) == want
    assert type(m).__name__ == "PlanModel"
    nchw = np.ascontiguousarray(x.transpose(0, 3, 1, 2))
    with pytest.raises(ValueError, match=r"got shape \(1, 3, 6, 6\); the model takes NHWC"):
        m.run(nchw)
    assert list(m.run(x)) == want and m(x).tolist() == [want]
    m = bst_runtime.load(data, "flex", "NCHW")
    for _ in range(3):
        assert list(m.run(nchw)) == want
    assert type(m).__name__ == "PlanModel"
    with pytest.raises(ValueError, match="loaded with input_layout='NCHW'"):
        m.run(x)


def test_a_strided_nhwc_view_is_read_in_order(imported):
    path, x, want = imported
    for _name, load in _runtimes():
        _close(load(path).run(x.transpose(0, 2, 3, 1)), want)  # not C-contiguous


def test_burn_run_takes_nchw_with_input_layout(imported, tmp_path, capsys):
    path, x, want = imported
    np.save(tmp_path / "x.npy", x)
    assert burn_main(["run", path, "--input", str(tmp_path / "x.npy")]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "has shape %s" % (NCHW,) in err
    assert "takes %s (NHWC; --input-layout NCHW takes NCHW)" % (NHWC,) in err
    assert burn_main(["run", path, "--input", str(tmp_path / "x.npy"),
                      "--input-layout", "NCHW"]) == 0
    _close(ast.literal_eval(capsys.readouterr().out.splitlines()[0]), want)
