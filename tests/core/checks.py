"""Small assertion helpers shared by the tensor tests, and the skip that both interpreters
report (MicroPython-safe)."""

import sys

ON_MICROPYTHON = sys.implementation.name == "micropython"


class Skipped(Exception):
    """A test that does not apply here, raised by skip() on MicroPython; mp_runner.py
    reports it as skipped (it looks for the `skipped` attribute)."""

    skipped = True


def skip(reason):
    """Stop the running test as skipped: pytest.skip on CPython, Skipped on MicroPython."""
    if not ON_MICROPYTHON:
        import pytest

        pytest.skip(reason)
    raise Skipped(reason)


def micropython_only():
    """Skip the running test on CPython: the viper twins it checks exist on MicroPython only."""
    if not ON_MICROPYTHON:
        skip("the viper twins exist on MicroPython only")


def flat(x):
    """The leaves of a nested list (or a number) as a flat list."""
    if isinstance(x, (list, tuple)):
        out = []
        for v in x:
            out.extend(flat(v))
        return out
    return [x]


def assert_close(a, b, tol=1e-5):
    """Assert that two numbers or nested lists (or tensors) agree within tol (relative to the
    magnitude for large values) and have the same nesting."""
    if hasattr(a, "tolist"):
        a = a.tolist()
    if hasattr(b, "tolist"):
        b = b.tolist()
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        assert isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)), (a, b)
        assert len(a) == len(b), "lengths differ: %d vs %d" % (len(a), len(b))
        for x, y in zip(a, b):
            assert_close(x, y, tol)
        return
    scale = max(1.0, abs(a), abs(b))
    assert abs(a - b) <= tol * scale, "%r != %r (tol %r)" % (a, b, tol)


def raises(exc_type, fn, *args, **kwargs):
    """Call fn(*args, **kwargs), assert that it raises exc_type, and return the exception."""
    try:
        fn(*args, **kwargs)
    except exc_type as e:
        return e
    raise AssertionError("expected " + exc_type.__name__)


def message(exc):
    """The message of an exception (its first argument)."""
    return exc.args[0] if exc.args else ""


def assert_message(exc_type, text, fn, *args, **kwargs):
    """Assert that fn raises exc_type whose message is exactly `text`."""
    got = message(raises(exc_type, fn, *args, **kwargs))
    assert got == text, "message %r, expected %r" % (got, text)


def assert_starts(exc_type, prefix, fn, *args, **kwargs):
    """Assert that fn raises exc_type whose message starts with `prefix`."""
    got = message(raises(exc_type, fn, *args, **kwargs))
    assert got.startswith(prefix), "message %r, expected it to start with %r" % (got, prefix)


def nested(values, shape):
    """Reshape the flat list `values` into nested lists of `shape`."""
    if not shape:
        return values[0]
    step = len(values) // shape[0] if shape[0] else 0
    return [nested(values[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def index_of(coords, shape):
    """Row-major flat index of `coords` in `shape`, broadcasting size-1 dims (right-aligned)."""
    off = len(coords) - len(shape)
    idx = 0
    for d in range(len(shape)):
        c = coords[d + off] if shape[d] != 1 else 0
        idx = idx * shape[d] + c
    return idx


def all_coords(shape):
    """Every coordinate tuple of `shape` in row-major order."""
    out = [()]
    for s in shape:
        out = [c + (i,) for c in out for i in range(s)]
    return out


class _Slicer:
    def __getitem__(self, key):
        return key


# MicroPython cannot call slice(): S[1:5:2] builds the slice instead.
S = _Slicer()
