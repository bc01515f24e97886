"""Argparse types for the numbers that `burn` commands take (counts, sizes, rates, seconds).

A value is checked where it is parsed, so a bad one is a single usage line naming the option
(`burn demo: error: argument --epochs: 0 is not a positive integer`), exit status 2, instead
of a default taken silently or an error from deep inside training.
"""

import argparse
import math


def _parse(text, kind):
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            "%r is not %s" % (text, "an integer" if kind is int else "a number")) from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError("%r is not a finite number" % text)
    return value


def _checked(kind, accept, what):
    """An argparse type: `text` parsed as `kind`, kept when `accept(value)`, else an
    ArgumentTypeError saying it is not `what`."""
    def parse(text):
        value = _parse(text, kind)
        if not accept(value):
            raise argparse.ArgumentTypeError("%s is not %s" % (text, what))
        return value
    return parse


positive_int = _checked(int, lambda n: n >= 1, "a positive integer")
nonnegative_int = _checked(int, lambda n: n >= 0, "an integer >= 0")
positive_float = _checked(float, lambda x: x > 0, "a positive number")
nonnegative_float = _checked(float, lambda x: x >= 0, "a number >= 0")


def int_from_to(low, high):
    """An argparse type for an integer from `low` to `high`, both included."""
    return _checked(int, lambda n: low <= n <= high, "an integer from %d to %d" % (low, high))


def float_above_up_to(low, high):
    """An argparse type for a number above `low` and at most `high`."""
    return _checked(float, lambda x: low < x <= high,
                    "a number above %g and at most %g" % (low, high))
