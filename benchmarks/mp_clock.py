"""Microsecond timing that works under MicroPython (time.ticks_us) and CPython."""

import time


def now_us():
    """A microsecond timestamp."""
    if hasattr(time, "ticks_us"):
        return time.ticks_us()
    return int(time.perf_counter() * 1000000)


def elapsed_us(t0):
    """Microseconds since `t0` (from now_us), wrap-safe on MicroPython."""
    if hasattr(time, "ticks_diff"):
        return time.ticks_diff(time.ticks_us(), t0)
    return now_us() - t0
