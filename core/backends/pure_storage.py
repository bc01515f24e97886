"""Turning Python numbers into typed arrays for the pure backend, with C semantics:
integers wrap (two's complement), floats become integers by truncation toward zero
(NaN and infinities become 0), and bools are stored as 0/1 in 'B' arrays."""

import sys
from array import array

from burn.dtype import bool_
from burn.kernels.common import wrap


def to_int(v):
    """`v` truncated toward zero as a Python int; NaN and infinities give 0."""
    try:
        return int(v)
    except (ValueError, OverflowError):
        return 0


def pack(vals, dtype):
    """An array of `dtype` holding the numbers `vals`, converted like C."""
    if dtype is bool_:
        return array("B", [1 if v else 0 for v in vals])
    tc = dtype.typecode
    try:
        return array(tc, vals)
    except (OverflowError, TypeError):
        # Out-of-range ints (CPython only: MicroPython truncates like C) or floats into an
        # integer array.
        return array(tc, [wrap(to_int(v), tc) for v in vals])


def pack_flags(vals):
    """A bool array from Python bools (or 0/1 ints)."""
    return array("B", vals)


def cast(h, n, src, dst):
    """`n` elements of `h` converted from dtype `src` to `dst`."""
    if dst is bool_:
        return array("B", [1 if v else 0 for v in h])
    if src.typecode == dst.typecode:
        return h[:n]
    if dst.is_float or not src.is_float:
        return pack(h, dst)
    try:
        ints = [int(v) for v in h]
    except (ValueError, OverflowError):
        ints = [to_int(v) for v in h]
    return pack(ints, dst)


def from_bytes(buf, dtype):
    """An array of `dtype` from little-endian raw bytes."""
    a = array(dtype.typecode, bytes(buf))
    if sys.byteorder == "big":
        a.byteswap()
    if dtype is bool_:
        return pack(a, bool_)
    return a


def to_bytes(h, n):
    """Little-endian raw bytes of the first `n` elements of `h`."""
    a = h if len(h) == n else h[:n]
    if sys.byteorder == "big":
        a = a[:]
        a.byteswap()
    return bytes(a)
