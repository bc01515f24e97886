"""Small helpers shared by the tests/core/test_nn_*.py files (MicroPython-safe)."""


def flat(x):
    """All numbers of a nested list (or a scalar) in row-major order."""
    if isinstance(x, (list, tuple)):
        out = []
        for v in x:
            out.extend(flat(v))
        return out
    return [x]


def values(x):
    """The numbers of a tensor (flattened first: nested lists of boxed floats are large on
    MicroPython) or of a nested list, as one flat list."""
    if hasattr(x, "reshape"):
        return x.reshape((-1,)).tolist()
    return flat(x)


def close(a, b, tol=1e-5):
    """True when tensors or nested lists `a` and `b` agree within `tol`."""
    fa = values(a)
    fb = values(b)
    if len(fa) != len(fb):
        return False
    for x, y in zip(fa, fb):
        if abs(x - y) > tol * (1 + abs(y)):
            return False
    return True


def raises(exc_type, fn, *args, **kwargs):
    """Call fn(*args, **kwargs) and return the message of the `exc_type` it must raise."""
    try:
        fn(*args, **kwargs)
    except exc_type as e:
        return str(e)
    raise AssertionError("expected " + exc_type.__name__)
