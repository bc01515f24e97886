"""ONNX Resize (nearest and linear on 4-D values) against onnxruntime."""

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from burn.host.convert import to_numpy, to_tensor
from burn.host.importers.onnx_import import import_onnx
from burn.host.importers.onnx_read import ONNXImportError

RESIZES = [  # (attributes, scales, sizes)
    ({"mode": "nearest"}, [1, 1, 2, 2], None),
    ({"mode": "nearest", "coordinate_transformation_mode": "asymmetric",
      "nearest_mode": "floor"}, [1, 1, 1.5, 3], None),
    ({"mode": "nearest", "nearest_mode": "round_prefer_ceil"}, None, [2, 3, 7, 4]),
    ({"mode": "linear"}, [1, 1, 2, 2], None),
    ({"mode": "linear", "coordinate_transformation_mode": "align_corners"}, None,
     [2, 3, 9, 3]),
    ({"mode": "linear", "coordinate_transformation_mode": "pytorch_half_pixel"},
     [1, 1, 0.5, 1.75], None),
    ({"mode": "linear", "coordinate_transformation_mode": "asymmetric"}, [1, 1, 1, 2], None),
]


def _save(tmp_path, nodes, outs, inits, opset):
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4, 5])],
        [onnx.ValueInfoProto(name=o) for o in outs],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in inits])
    path = tmp_path / ("resize%d.onnx" % opset)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 7
    onnx.save(model, path)
    return path


def _check(path):
    x = np.random.default_rng(6).standard_normal((2, 3, 4, 5)).astype(np.float32)
    want = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})
    got = import_onnx(path).model("numpy")(to_tensor(x, "numpy"))
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert to_numpy(g).shape == w.shape
        np.testing.assert_allclose(to_numpy(g), w, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("opset", [13, 18])
def test_resize_matches_onnxruntime(tmp_path, opset):
    nodes, inits, outs = [], [("roi", np.zeros(0, np.float32))], []
    for i, (attrs, scales, sizes) in enumerate(RESIZES):
        ins = ["x", "roi", "s%d" % i if scales else ""] + (["z%d" % i] if sizes else [])
        if scales:
            inits.append(("s%d" % i, np.asarray(scales, np.float32)))
        if sizes:
            inits.append(("z%d" % i, np.asarray(sizes, np.int64)))
        nodes.append(helper.make_node("Resize", ins, ["y%d" % i], **attrs))
        outs.append("y%d" % i)
    _check(_save(tmp_path, nodes, outs, inits, opset))


@pytest.mark.parametrize("attrs,message", [
    ({"mode": "cubic"}, "mode 'cubic' is not supported"),
    ({"coordinate_transformation_mode": "tf_crop_and_resize"},
     "coordinate_transformation_mode 'tf_crop_and_resize' is not supported"),
])
def test_unsupported_resize_attributes_are_named(tmp_path, attrs, message):
    node = helper.make_node("Resize", ["x", "", "s"], ["y"], **attrs)
    path = _save(tmp_path, [node], ["y"], [("s", np.asarray([1, 1, 2, 2], np.float32))], 13)
    with pytest.raises(ONNXImportError, match="Resize") as e:
        import_onnx(path)
    assert message in str(e.value)
