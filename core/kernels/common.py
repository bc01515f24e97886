"""Helpers shared by the kernels: typecode sniffing, C-style wraparound, row stores."""

import sys
from array import array

# True on MicroPython, where the kernels take their viper/native twins when the port
# compiles them (one without native code, such as webassembly, keeps the plain ones).
try:
    import micropython  # noqa: F401

    ON_MICROPYTHON = sys.implementation.name == "micropython"
except ImportError:
    ON_MICROPYTHON = False


def typecode(arr):
    """The typecode of array `arr` (MicroPython arrays lack the .typecode attribute)."""
    return repr(arr[:0])[7]


def wrap(v, tc):
    """The Python int `v` wrapped like C (two's complement) into integer typecode `tc`."""
    if tc == "B":
        return v & 0xFF
    if tc == "b":
        return ((v + 0x80) & 0xFF) - 0x80
    return ((v + 0x80000000) & 0xFFFFFFFF) - 0x80000000


def put(out, tc, pos, vals):
    """Write the numbers `vals` into `out[pos:]` (typecode `tc`), wrapping ints like C."""
    try:
        row = array(tc, vals)
    except OverflowError:
        # CPython refuses out-of-range ints; MicroPython already truncates like C.
        row = array(tc, [wrap(v, tc) for v in vals])
    out[pos:pos + len(row)] = row
