"""What a loaded model takes as input, on both interpreters: a shaped input (a Tensor, or a
numpy array on CPython) must have the input's shape, or the error names both shapes; a
flat one (a list, array.array, a 1-D Tensor) must have the element count; with
`input_layout="NCHW"` a model that records NHWC inputs takes NCHW ones and transposes them.
Also the self-test on outputs and references that are NaN or infinite, made from their bit
patterns (no float('nan'), which a board's MicroPython need not parse).

The model is one float32 copy (a reshape) of a [1, 2, 3, 2] NHWC input to [1, 12], so its
output is the NHWC input in memory order, encoded by bst_encode.py.
"""

import struct
from array import array

from bst_encode import encode

import burn
from burn.graph.f32_activation import apply_act

N, H, W, C = 1, 2, 3, 2
COUNT = N * H * W * C
NAN = b"\x00\x00\xc0\x7f"  # the float32 quiet NaN
INF = b"\x00\x00\x80\x7f"  # float32 +infinity


def _f32(values):
    return struct.pack("<%df" % len(values), *values)


def copy_model(layout="NHWC", test_in=None, test_out=None):
    """The copy model; `layout` is its metadata's input_layout (None: no such key) and its
    one reference test maps the raw float32 bytes `test_in` to `test_out` (default: the
    values 0.5, 1.5, ... to themselves)."""
    values = _f32([i + 0.5 for i in range(COUNT)])
    tensors = [{"shape": [N, H, W, C], "dtype": "float32", "arena": 0, "name": "x"},
               {"shape": [1, COUNT], "dtype": "float32", "arena": 4 * COUNT, "name": "y"}]
    header = {"tensors": tensors, "ops": [{"op": "copy", "in": [0], "out": [1]}],
              "inputs": [{"tensor": 0, "shape": [N, H, W, C]}],
              "outputs": [{"tensor": 1, "shape": [1, COUNT]}],
              "tests": [{"inputs": [0], "outputs": [1]}],
              "metadata": {} if layout is None else {"input_layout": layout}}
    blobs = [("float32", [N, H, W, C], test_in or values),
             ("float32", [1, COUNT], test_out or values)]
    return encode(header, blobs, 0, arena_f32=8 * COUNT)


def _values():
    return [float(i) for i in range(COUNT)]


def _raises(fn, *words):
    try:
        fn()
    except ValueError as e:
        for w in words:
            assert w in str(e), (w, str(e))
        return str(e)
    raise AssertionError("no ValueError")


def test_an_input_of_the_model_shape_and_a_flat_one_run():
    m = burn.load(copy_model())
    assert m.input_shape() == (N, H, W, C)
    x = burn.tensor(_values()).reshape((N, H, W, C))
    assert m(x).tolist() == [_values()]
    assert list(m.run(array("f", _values()))) == _values()
    assert list(m.run(burn.tensor(_values()))) == _values()  # a 1-D Tensor is flat
    assert list(m.run(_values())) == _values()


def test_an_input_of_another_shape_is_refused_naming_both_shapes():
    m = burn.load(copy_model())
    nchw = burn.tensor(_values()).reshape((N, C, H, W))
    message = _raises(lambda: m(nchw), "(1, 2, 3, 2)", "(1, 2, 2, 3)", "input_layout='NCHW'")
    assert "expected float32 of shape (1, 2, 3, 2)" in message
    _raises(lambda: m.run(burn.tensor(_values()).reshape((H, W, C))), "(2, 3, 2)")
    _raises(lambda: m.run(burn.tensor(_values()).reshape((1, 2, 6))), "(1, 2, 6)")
    _raises(lambda: m.run(array("f", _values()[:-1])), "expected 12")
    _raises(lambda: m.run(burn.tensor(_values()[:-1])), "(11,)")
    _raises(lambda: m(burn.tensor([int(v) for v in _values()], dtype=burn.int8)), "int8")


def test_nchw_inputs_are_transposed_with_input_layout():
    m = burn.load(copy_model(), input_layout="NCHW")
    assert m.input_shape() == (N, C, H, W)
    nchw = _values()  # value index = (c * H + h) * W + w
    want = [float((c * H + h) * W + w) for h in range(H) for w in range(W) for c in range(C)]
    assert list(m.run(burn.tensor(nchw).reshape((N, C, H, W)))) == want
    assert list(m.run(array("f", nchw))) == want  # flat: the NCHW values in order
    _raises(lambda: m.run(burn.tensor(nchw).reshape((N, H, W, C))), "(1, 2, 2, 3)",
            "(1, 2, 3, 2)", "loaded with input_layout='NCHW'")
    m = burn.load(copy_model(), input_layout="NHWC")  # the file's own: nothing changes
    assert m.input_shape() == (N, H, W, C) and list(m.run(nchw)) == nchw


def test_input_layout_needs_a_model_that_records_nhwc():
    _raises(lambda: burn.load(copy_model(None), input_layout="NCHW"), "records no input")
    _raises(lambda: burn.load(copy_model("NCHW"), input_layout="NCHW"), "only NHWC")
    _raises(lambda: burn.load(copy_model(), input_layout="nchw"), "'NCHW' or 'NHWC'")


def test_the_self_test_fails_on_nan_and_infinity():
    assert burn.load(copy_model()).self_test() == 1
    finite = _f32([1.0] * COUNT)
    for test_in, test_out in ((NAN * COUNT, NAN * COUNT), (INF * COUNT, INF * COUNT),
                              (finite, NAN * COUNT), (NAN + finite[4:], finite)):
        m = burn.load(copy_model(test_in=test_in, test_out=test_out))
        _raises(m.self_test, "self-test 0: output 0 element 0", "not finite")


def test_a_fused_relu_passes_nan_as_flex_does():
    nan = array("f", NAN)[0]
    for act in (0, 1, 2, 3):
        v = apply_act(nan, act)
        assert v != v, act  # only NaN differs from itself
    assert apply_act(-2.0, 1) == 0.0 and apply_act(3.0, 1) == 3.0
