"""burn.nn.ConvTranspose2d: shapes, values worked out by hand, errors and repr (on CPython
and MicroPython; tests/host/test_autodiff.py compares values and gradients with PyTorch)."""

from nn_util import raises

import burn
from burn import nn
from burn.ops.conv_transpose import conv_transpose2d


def test_conv_transpose2d_shapes():
    x = burn.zeros((1, 2, 4, 5))
    assert nn.ConvTranspose2d(2, 3, 3)(x).shape == (1, 3, 6, 7)
    assert nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)(x).shape == (1, 3, 7, 9)
    assert nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1)(x).shape == \
        (1, 3, 8, 10)
    assert nn.ConvTranspose2d(2, 3, (1, 2), dilation=2)(x).shape == (1, 3, 4, 7)
    g = nn.ConvTranspose2d(2, 4, 3, groups=2, bias=False)
    assert g.weight.shape == (2, 2, 3, 3) and g.bias is None
    assert g(burn.zeros((2, 4, 5))).shape == (4, 6, 7)


def test_conv_transpose2d_values():
    # stride 2 places a scaled copy of the 2x2 kernel at every input pixel, 2 apart
    m = nn.ConvTranspose2d(1, 1, 2, stride=2)
    m.load_state_dict({"weight": [[[[1.0, 2.0], [3.0, 4.0]]]], "bias": [0.5]})
    y = m(burn.tensor([[[[1.0, 10.0]]]])).tolist()[0][0]
    assert y == [[1.5, 2.5, 10.5, 20.5], [3.5, 4.5, 30.5, 40.5]]
    # stride 1: overlapping copies add up; padding 1 crops one pixel from every side
    m = nn.ConvTranspose2d(1, 1, 3, padding=1, bias=False)
    m.load_state_dict({"weight": [[[[1.0] * 3] * 3]]})
    y = m(burn.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])).tolist()[0][0]
    assert y == [[10.0, 10.0], [10.0, 10.0]]


def test_conv_transpose2d_errors_and_repr():
    assert "groups" in raises(ValueError, nn.ConvTranspose2d, 3, 4, 3, groups=2)
    raises(ValueError, nn.ConvTranspose2d, 1, 1, 3, padding_mode="reflect")
    x = burn.zeros((1, 1, 3, 3))
    w = burn.zeros((1, 1, 3, 3))
    assert "output_padding" in raises(ValueError, conv_transpose2d, x, w, None, 1, 0, 1)
    assert "input channels" in raises(ValueError, conv_transpose2d,
                                      burn.zeros((1, 2, 3, 3)), w)
    assert "no output" in raises(ValueError, conv_transpose2d, burn.zeros((1, 1, 1, 1)),
                                 burn.zeros((1, 1, 1, 1)), None, 1, 1)
    assert repr(nn.ConvTranspose2d(2, 4, 3, stride=2, output_padding=1, bias=False)) == \
        "ConvTranspose2d(2, 4, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1), " \
        "bias=False)"
