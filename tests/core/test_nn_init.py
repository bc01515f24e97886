"""burn.nn.init: bounds, spread, reproducibility and in-place filling."""

import math

from nn_util import raises, values

import burn
from burn.nn import init

TOL = 1.000001  # float32 rounding may step a value just past a float64 bound


def _stats(t):
    """(min, max, mean, population std) of a tensor, computed with tensor reductions (a
    list of every value would be large on a small heap)."""
    mean = t.mean().item()
    std = math.sqrt(((t - mean) ** 2).mean().item())
    return t.min().item(), t.max().item(), mean, std


def _abs_max(t):
    return t.abs().max().item()


def test_fan_in_and_fan_out():
    assert init.fan_in_and_fan_out((8, 3)) == (3, 8)
    assert init.fan_in_and_fan_out((16, 4, 3, 3)) == (36, 144)
    msg = raises(ValueError, init.fan_in_and_fan_out, (5,))
    assert "(5,)" in msg


def test_calculate_gain():
    assert init.calculate_gain("relu") == math.sqrt(2.0)
    assert init.calculate_gain("linear") == 1.0
    assert abs(init.calculate_gain("tanh") - 5.0 / 3) < 1e-12
    assert abs(init.calculate_gain("leaky_relu", math.sqrt(5)) - math.sqrt(1.0 / 3)) < 1e-12
    raises(ValueError, init.calculate_gain, "swish")


def test_fill_in_place_returns_same_tensor():
    t = burn.zeros((2, 3))
    assert init.ones_(t) is t and values(t) == [1.0] * 6
    assert init.zeros_(t) is t and values(t) == [0.0] * 6
    assert init.constant_(t, 2.5) is t and values(t) == [2.5] * 6


def test_uniform_bounds():
    burn.seed(11)
    lo, hi, mean, _ = _stats(init.uniform_(burn.zeros((500,)), -2.0, 3.0))
    assert -2.0 <= lo < -1.8 and 2.8 < hi < 3.0
    assert abs(mean - 0.5) < 0.3


def test_normal_statistics():
    burn.seed(12)
    _, _, mean, std = _stats(init.normal_(burn.zeros((1000,)), 1.0, 2.0))
    assert abs(mean - 1.0) < 0.25
    assert abs(std - 2.0) < 0.25


def test_kaiming_uniform_bound():
    burn.seed(13)
    t = init.kaiming_uniform_(burn.zeros((20, 25)), nonlinearity="relu")
    bound = math.sqrt(2.0) * math.sqrt(3.0 / 25)
    assert 0.9 * bound < _abs_max(t) <= bound * TOL
    fan_out = init.kaiming_uniform_(burn.zeros((20, 25)), mode="fan_out")
    bound = math.sqrt(2.0) * math.sqrt(3.0 / 20)
    assert 0.9 * bound < _abs_max(fan_out) <= bound * TOL
    raises(ValueError, init.kaiming_uniform_, burn.zeros((2, 2)), 0.0, "fan_avg")


def test_kaiming_normal_std():
    burn.seed(14)
    t = init.kaiming_normal_(burn.zeros((40, 10, 1, 1)), nonlinearity="relu")
    assert abs(_stats(t)[3] - math.sqrt(2.0 / 10)) < 0.06


def test_xavier():
    burn.seed(15)
    bound = math.sqrt(6.0 / 40)
    assert 0.9 * bound < _abs_max(init.xavier_uniform_(burn.zeros((30, 10)))) <= bound * TOL
    t = init.xavier_normal_(burn.zeros((30, 10)), gain=2.0)
    assert abs(_stats(t)[3] - 2.0 * math.sqrt(2.0 / 40)) < 0.06


def test_seed_makes_init_reproducible():
    burn.seed(7)
    a = values(init.kaiming_uniform_(burn.zeros((4, 4))))
    burn.seed(7)
    b = values(init.kaiming_uniform_(burn.zeros((4, 4))))
    c = values(init.kaiming_uniform_(burn.zeros((4, 4))))
    assert a == b and a != c


def test_default_weight_and_bias_matches_kaiming_with_a_sqrt5():
    burn.seed(16)
    w, b = init.default_weight_and_bias((6, 2, 3, 3), True)
    assert w.shape == (6, 2, 3, 3) and b.shape == (6,)
    # kaiming_uniform with a=sqrt(5) has bound gain*sqrt(3/fan_in) = 1/sqrt(fan_in)
    bound = init.calculate_gain("leaky_relu", math.sqrt(5)) * math.sqrt(3.0 / 18)
    assert abs(bound - 1.0 / math.sqrt(18)) < 1e-12
    assert _abs_max(w) <= bound * TOL and _abs_max(b) <= bound * TOL
    assert init.default_weight_and_bias((3, 2), False)[1] is None
