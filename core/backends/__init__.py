"""Backends that ship with the core, and the registry of every backend by name.

The registry and the op names a backend needs at run time live here rather than in
`burn.backend`, whose `Backend` class documents the primitive protocol: a board running the
`pure` backend never loads that class (25 documented methods would cost several KB of heap).
`burn.backend` re-exports all of these.
"""

COMPARE_OPS = ("eq", "ne", "lt", "le", "gt", "ge")

_REGISTRY = {}


def register(backend):
    """Make `backend` available to `Device(backend.name)`; returns it."""
    _REGISTRY[backend.name] = backend
    return backend


def get(name):
    """The registered backend called `name`; ValueError naming the known ones if absent."""
    b = _REGISTRY.get(name)
    if b is None:
        raise ValueError("unknown backend " + repr(name) + "; known: " +
                         ", ".join(sorted(_REGISTRY)))
    return b


def names():
    """Names of the registered backends."""
    return sorted(_REGISTRY)
