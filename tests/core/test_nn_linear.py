"""burn.nn.Linear: shapes, values, default init and repr. Expected values are worked out
by hand."""

import math

from nn_util import flat

import burn
from burn import nn


def test_linear_shapes():
    m = nn.Linear(3, 4)
    assert m.weight.shape == (4, 3) and m.bias.shape == (4,)
    assert m(burn.zeros((5, 3))).shape == (5, 4)
    assert m(burn.zeros((2, 5, 3))).shape == (2, 5, 4)
    assert m(burn.zeros((3,))).shape == (4,)
    assert nn.Linear(3, 4, bias=False).bias is None
    assert repr(nn.Linear(3, 4, bias=False)) == \
        "Linear(in_features=3, out_features=4, bias=False)"


def test_linear_values():
    m = nn.Linear(2, 2, bias=False)
    m.load_state_dict({"weight": [[1.0, -1.0], [0.5, 2.0]]})
    assert m(burn.tensor([[2.0, 3.0], [1.0, 0.0]])).tolist() == [[-1.0, 7.0], [1.0, 0.5]]


def test_linear_default_init_bounds():
    burn.seed(0)
    m = nn.Linear(16, 8)
    bound = 1.0 / math.sqrt(16)
    w = flat(m.weight.tolist())
    b = flat(m.bias.tolist())
    assert max(abs(v) for v in w + b) <= bound
    assert max(w) > 0.8 * bound and min(w) < -0.8 * bound
    burn.seed(0)
    assert nn.Linear(16, 8).weight.tolist() == m.weight.tolist()
