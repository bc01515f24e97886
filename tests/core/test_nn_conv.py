"""burn.nn.Conv2d: shapes for every padding/stride/dilation/groups form, values, errors and
repr. Expected values are worked out by hand."""


from nn_util import raises

import burn
from burn import nn


def test_conv2d_shapes():
    x = burn.zeros((1, 2, 5, 5))
    assert nn.Conv2d(2, 4, 3)(x).shape == (1, 4, 3, 3)
    assert nn.Conv2d(2, 4, 3, padding=1)(x).shape == (1, 4, 5, 5)
    assert nn.Conv2d(2, 4, 3, stride=2, padding=1)(x).shape == (1, 4, 3, 3)
    assert nn.Conv2d(2, 4, 4, padding="same")(x).shape == (1, 4, 5, 5)
    assert nn.Conv2d(2, 4, (1, 3), padding="valid")(x).shape == (1, 4, 5, 3)
    assert nn.Conv2d(2, 4, 3, dilation=2)(x).shape == (1, 4, 1, 1)
    g = nn.Conv2d(2, 4, 3, groups=2, bias=False)
    assert g.weight.shape == (4, 1, 3, 3) and g.bias is None
    assert g(x).shape == (1, 4, 3, 3)


def test_conv2d_values():
    m = nn.Conv2d(1, 2, 3, padding=1)
    centre = [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]
    ones = [[1.0, 1.0, 1.0]] * 3
    m.load_state_dict({"weight": [[centre], [ones]], "bias": [0.5, 0.0]})
    img = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]
    y = m(burn.tensor([[img]])).tolist()[0]
    assert y[0] == [[v + 0.5 for v in row] for row in img]
    # each output is the sum of the 3x3 neighbourhood inside the image
    assert y[1][1][1] == 45.0 and y[1][0][0] == 1.0 + 2.0 + 4.0 + 5.0


def test_conv2d_depthwise_values():
    m = nn.Conv2d(2, 2, 1, groups=2, bias=False)
    m.load_state_dict({"weight": [[[[2.0]]], [[[-1.0]]]]})
    y = m(burn.tensor([[[[1.0, 2.0]], [[3.0, 4.0]]]]))
    assert y.tolist() == [[[[2.0, 4.0]], [[-3.0, -4.0]]]]


def test_conv2d_errors_and_repr():
    msg = raises(ValueError, nn.Conv2d, 3, 4, 3, groups=2)
    assert msg.startswith("Conv2d:") and "groups" in msg
    assert "stride" in raises(ValueError, nn.Conv2d, 1, 1, 3, stride=2, padding="same")
    raises(ValueError, nn.Conv2d, 1, 1, 3, padding="full")
    raises(ValueError, nn.Conv2d, 1, 1, 3, padding_mode="reflect")
    assert repr(nn.Conv2d(2, 4, 3, stride=2, groups=2, bias=False, dilation=2)) == \
        "Conv2d(2, 4, kernel_size=(3, 3), stride=(2, 2), dilation=(2, 2), groups=2, " \
        "bias=False)"
    assert repr(nn.Conv2d(1, 1, 3, padding="same")) == \
        "Conv2d(1, 1, kernel_size=(3, 3), stride=(1, 1), padding=same)"


def test_every_conv_layer_checks_its_arguments_in_its_own_name():
    """Conv1d, Conv2d and ConvTranspose2d share their checks; each message names the layer."""
    for layer in (nn.Conv1d, nn.Conv2d, nn.ConvTranspose2d):
        name = layer.__name__
        assert raises(ValueError, layer, 3, 4, 3, groups=2) == \
            name + ": in_channels (3) and out_channels (4) must be divisible by groups (2)"
        assert raises(ValueError, layer, 2, 2, 3, groups=0).endswith("by groups (0)")
        assert raises(ValueError, layer, 1, 1, 3, padding_mode="reflect") == \
            name + ": only padding_mode='zeros' is supported, got 'reflect'"
    assert raises(ValueError, nn.Conv2d, 1, 1, 3, padding="full") == \
        "Conv2d: padding must be 'same', 'valid', an int or a pair, got 'full'"
    assert raises(ValueError, nn.Conv1d, 1, 1, 3, padding="full") == \
        "Conv1d: padding must be 'same', 'valid' or an int, got 'full'"
    assert raises(ValueError, nn.Conv2d, 1, 1, 3, stride=(1, 2), padding="same") == \
        "Conv2d: padding='same' needs stride 1, got stride (1, 2)"
    assert raises(ValueError, nn.Conv1d, 1, 1, 3, stride=2, padding="same") == \
        "Conv1d: padding='same' needs stride 1, got stride (2,)"
    assert nn.Conv1d(1, 1, 3, padding="same").padding == "same"
    assert nn.Conv1d(1, 1, 3, padding=2).padding == (2,)
