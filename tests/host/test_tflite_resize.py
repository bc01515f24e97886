"""TFLite RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR import as the optional resize kind
(sampling tables made with TFLM's arithmetic): bit for bit with TFLM on the plain kernels,
the flex C kernels (host, and built for the Cortex-M0+ run in unicorn) and the viper kernels
(MicroPython unix port), with align_corners and half_pixel_centers; float32 within 1e-5 of
TFLM. int16 RESIZE_NEAREST_NEIGHBOR (TFLM has no int16 bilinear resize) the same, its plain
kernel on MicroPython."""


import numpy as np
import pytest
from one_op_runtimes import check_on_host, check_on_micropython
from tflite_builder import ModelBuilder, run_tflm

import burn
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, encode_bst
from burn.host.flex.runtime import use_flex
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite

CASES = 40
OPS = ("RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR")
_OPTIONS = {"RESIZE_BILINEAR": "ResizeBilinearOptions",
            "RESIZE_NEAREST_NEIGHBOR": "ResizeNearestNeighborOptions"}


def _model(name, shape, size, dtype="int8", align=False, half=False, q=(0.05, 3)):
    """A one-op resize model of an NHWC input of `shape` to `size` (oh, ow)."""
    mb = ModelBuilder()
    qq = {} if dtype == "float32" else {"scale": q[0], "zero_point": q[1]}
    x = mb.tensor("x", shape, dtype, **qq)
    s = mb.tensor("size", (2,), "int32", data=np.array(size, np.int32))
    y = mb.tensor("y", (shape[0], size[0], size[1], shape[3]), dtype, **qq)
    mb.op(name, [x, s], [y], _OPTIONS[name], AlignCorners=align, HalfPixelCenters=half)
    return mb.finish([x], [y])


def _cases(dtype, seed, ops=OPS):
    rng = np.random.default_rng(seed)
    out = []
    for name in ops:
        for i in range(CASES):
            shape = (int(rng.integers(1, 3)), int(rng.integers(1, 6)), int(rng.integers(1, 6)),
                     int(rng.integers(1, 4)))
            size = [int(rng.integers(1, 9)), int(rng.integers(1, 9))]
            align, half = [(False, False), (True, False), (False, True), (True, True)][i % 4]
            if name == "RESIZE_BILINEAR" and align and half:
                half = False  # TFLM refuses both (tested below)
            data = _model(name, shape, size, dtype, align, half)
            if dtype == "float32":
                x = (rng.standard_normal(shape) * 3).astype(np.float32)
            else:
                info = np.iinfo(dtype)
                x = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
            want = run_tflm(data, [x])[0].reshape(-1)
            out.append((name, x, want, encode_bst(import_tflite(data, tests=0))))
    return out


@pytest.fixture(scope="module")
def int8_cases():
    """(op, input, TFLM's output, .bst bytes) of 40 int8 cases per op."""
    return _cases("int8", 161)


def test_int8_resizes_match_tflm_on_plain_and_flex(int8_cases):
    check_on_host(int8_cases, "resize")


def test_int8_resizes_match_tflm_on_viper(int8_cases, tmp_path):
    check_on_micropython(int8_cases, tmp_path)


@pytest.fixture(scope="module")
def int16_cases():
    """(op, input, TFLM's output, .bst bytes) of 40 int16 nearest-neighbour cases."""
    return _cases("int16", 163, ("RESIZE_NEAREST_NEIGHBOR",))


def test_int16_resizes_match_tflm_on_plain_and_flex(int16_cases):
    check_on_host(int16_cases, "resize")


def test_int16_resizes_match_tflm_on_micropython(int16_cases, tmp_path):
    check_on_micropython(int16_cases, tmp_path)


def test_float_resizes_match_tflm():
    """40 float32 cases per op, plain and flex, within 1e-5 of the input's magnitude."""
    for name, x, want, bst in _cases("float32", 162):
        for model in (burn.load(bst, variant="plain"), use_flex(burn.load(bst))):
            got = np.array(model.run(x.reshape(-1)), np.float32).reshape(-1)
            assert np.abs(got - want).max() <= 1e-5 * max(1.0, np.abs(x).max()), name


def test_tflm_rejections_are_refused_at_import():
    data = _model("RESIZE_BILINEAR", (1, 2, 2, 1), [3, 3], align=True, half=True)
    with pytest.raises(TFLiteImportError, match="align_corners must be False"):
        import_tflite(data, tests=0)
    mb = ModelBuilder()
    x = mb.tensor("x", (1, 2, 2, 1), "float32")
    s = mb.tensor("size", (2,), "int32", data=np.array([3, 3], np.int32))
    y = mb.tensor("y", (1, 4, 3, 1), "float32")
    mb.op("RESIZE_NEAREST_NEIGHBOR", [x, s], [y], "ResizeNearestNeighborOptions")
    with pytest.raises(TFLiteImportError, match="not input"):
        import_tflite(mb.finish([x], [y]), tests=0)
    # TFLM's bilinear resize takes float32 and int8 only
    data = _model("RESIZE_BILINEAR", (1, 2, 2, 1), [3, 3], "int16", q=(0.01, 0))
    with pytest.raises(TFLiteImportError, match=r"node 0 \(RESIZE_BILINEAR\): int16 tensors"):
        import_tflite(data, tests=0)
    with pytest.raises(RuntimeError):
        run_tflm(data, [np.zeros((1, 2, 2, 1), np.int16)])


def _resize_bst(ys, xs):
    tensors = [GraphTensor("x", (1, 2, 2, 1), "int8", 0.05, 0),
               GraphTensor("y", (1, 2, 2, 1), "int8", 0.05, 0)]
    consts = {"ys": np.array(ys, np.int32), "xs": np.array(xs, np.int32)}
    return encode_bst(Graph(tensors, [GraphOp("resize", [0], [1], consts=consts)],
                            [(0, (1, 2, 2, 1))], [(1, (1, 2, 2, 1))]))


@pytest.mark.parametrize("ys,match", [
    ([0, 1, 0, 1, 2, 0], "outside an input"),
    ([0, 1, 0, -1, 1, 0], "outside an input"),
    ([0, 1, 0, 0, 1, 2000], "outside an input"),
    ([0, 1, 0], "ys"),
])
def test_hostile_resize_tables_are_refused_by_the_reader(ys, match):
    with pytest.raises(ValueError, match=match):
        burn.load(_resize_bst(ys, [0, 0, 0, 1, 1, 0]))
