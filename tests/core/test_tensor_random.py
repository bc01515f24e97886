"""The seeded random stream: xorshift32 from its definition, reproducibility, ranges."""

from checks import assert_message

import burn
from burn import random as rng

MASK = 0xFFFFFFFF


def _xorshift32(x, n):
    # Marsaglia's xorshift32 with shifts (13, 17, 5), written out from its definition.
    out = []
    for _ in range(n):
        x ^= (x << 13) & MASK
        x ^= x >> 17
        x ^= (x << 5) & MASK
        out.append(x)
    return out


def test_stream_is_xorshift32():
    rng.seed(12345)
    state = rng._state[0]
    assert 0 < state <= MASK
    expected = _xorshift32(state, 5)
    assert [rng.next_u32() for _ in range(5)] == expected


def test_known_values_from_state_one():
    # From state 1 the first outputs are 270369, 67634689, 2647435461 (xorshift32).
    assert _xorshift32(1, 3) == [270369, 67634689, 2647435461]
    rng._state[0] = 1
    assert [rng.next_u32() for _ in range(3)] == [270369, 67634689, 2647435461]


def test_a_saved_state_continues_the_stream():
    burn.seed(5)
    burn.rand((3,))
    state = rng.get_state()
    after = burn.randn((4,)).tolist()
    burn.seed(99)
    burn.rand((7,))
    rng.set_state(state)
    assert rng.get_state() == state and burn.randn((4,)).tolist() == after
    for bad in (0, MASK + 1, -1, 2.5, "1", True):
        assert_message(ValueError, "set_state: expected a state from get_state (an int "
                       "from 1 to 2**32-1), got " + repr(bad), rng.set_state, bad)
    assert rng.get_state() == _xorshift32(state, 4)[-1]  # unchanged by the refusals


def test_uniform_uses_top_24_bits():
    burn.seed(7)
    state = rng._state[0]
    got = burn.rand((4,)).tolist()
    assert got == [(v >> 8) / 16777216.0 for v in _xorshift32(state, 4)]


def test_seeds_reproduce_and_differ():
    burn.seed(3)
    a = burn.randn((5,)).tolist()
    b = burn.rand((2, 2)).tolist()
    burn.seed(3)
    assert burn.randn((5,)).tolist() == a
    assert burn.rand((2, 2)).tolist() == b
    burn.seed(4)
    assert burn.randn((5,)).tolist() != a
    burn.seed(0)
    zero = burn.rand((3,)).tolist()
    burn.seed(1)
    assert burn.rand((3,)).tolist() != zero


def test_ranges_and_moments():
    burn.seed(11)
    u = burn.rand((1000,))
    assert u.min().item() >= 0.0 and u.max().item() < 1.0
    assert abs(u.mean().item() - 0.5) < 0.03
    n = burn.randn((1000,))
    assert abs(n.mean().item()) < 0.1 and abs(n.var().item() - 1.0) < 0.15
    r = burn.randint(-3, 4, (500,))
    assert r.dtype is burn.int32
    assert r.min().item() == -3 and r.max().item() == 3
    assert burn.rand((2, 3)).shape == (2, 3)
    assert_message(ValueError, "randint: high 1 must be above low 1", burn.randint, 1, 1, (2,))
