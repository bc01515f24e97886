"""A seedable pseudo-random stream that is identical on CPython and MicroPython.

The generator is Marsaglia's xorshift32 (shifts 13, 17, 5) on a 32-bit state kept in a
Python int with explicit masks, so both interpreters produce the same integers. Uniform
floats take the top 24 bits (exact in float32); normals use the Box-Muller transform on
pairs of uniforms. `seed(s)` resets the stream; `get_state()` and `set_state(state)` save
and restore where it is (a resumed training run continues the stream it was killed in).
"""

import math
from array import array

_MASK = 0xFFFFFFFF
_INV24 = 1.0 / 16777216.0
_TWO_PI = 6.283185307179586
_DEFAULT_SEED = 0
_state = [0]


def _mix(s):
    # An odd-multiplier hash spreads nearby seeds (0, 1, 2, ...) far apart in state space;
    # xorshift's state must never be 0.
    x = ((s & _MASK) * 0x9E3779B1 + 0x7F4A7C15) & _MASK
    x ^= x >> 16
    return x or 0x6D2B79F5


def seed(s):
    """Restart the global random stream from the integer seed `s`."""
    if not isinstance(s, int):
        raise TypeError("seed: expected an int, got " + repr(s))
    _state[0] = _mix(s)


def get_state():
    """Where the stream is: an int that `set_state` takes to continue from here."""
    return _state[0]


def set_state(state):
    """Continue the stream from `state`, a value `get_state` returned."""
    if not isinstance(state, int) or isinstance(state, bool) or not 0 < state <= _MASK:
        raise ValueError("set_state: expected a state from get_state (an int from 1 to "
                         "2**32-1), got " + repr(state))
    _state[0] = state


def next_u32():
    """The next 32-bit unsigned integer of the stream."""
    x = _state[0]
    x ^= (x << 13) & _MASK
    x ^= x >> 17
    x ^= (x << 5) & _MASK
    _state[0] = x
    return x


def _floats(n):
    # A float32 array, not a list: a list of boxed floats takes ~6x the memory, more than a
    # microcontroller has for the weights of one layer.
    return array("f", bytes(4 * n))


def uniform(n, lo=0.0, hi=1.0):
    """float32 array of `n` values uniform in [lo, hi) (24-bit resolution)."""
    scale = (hi - lo) * _INV24
    out = _floats(n)
    for i in range(n):
        out[i] = lo + (next_u32() >> 8) * scale
    return out


def normal(n, mean=0.0, std=1.0):
    """float32 array of `n` normally distributed values (Box-Muller on pairs of uniforms)."""
    out = _floats(n)
    for i in range(0, n, 2):
        u1 = 1.0 - (next_u32() >> 8) * _INV24  # in (0, 1], so log is finite
        u2 = (next_u32() >> 8) * _INV24
        r = math.sqrt(-2.0 * math.log(u1)) * std
        out[i] = mean + r * math.cos(_TWO_PI * u2)
        if i + 1 < n:
            out[i + 1] = mean + r * math.sin(_TWO_PI * u2)
    return out


def integers(n, low, high):
    """List of `n` ints uniform in [low, high) (high - low must be below 2**32)."""
    span = high - low
    out = []
    for _ in range(n):
        out.append(low + next_u32() % span)
    return out


seed(_DEFAULT_SEED)
