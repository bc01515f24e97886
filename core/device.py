"""Devices: a name that picks a registered backend.

`Device("pure")` is the core's reference backend. A name may carry an index after a colon
("cuda:0"); the backend is looked up by the full name first, then by the part before the
colon. Backends shipped in `burn.backends.<name>` are imported on first use.
"""

from burn.shape import const, error

_E_DEVICE_NAME = const(25)  # the number of its message in burn.errors.MESSAGES

_DEFAULT = ["pure"]


def _lookup(name):
    from burn import backends as _backend
    if name in _backend.names():
        return _backend.get(name)
    kind = name.split(":")[0]
    if kind in _backend.names():
        return _backend.get(kind)
    if kind.isalpha():
        try:
            __import__("burn.backends." + kind)
        except ImportError:
            pass
    for find in FINDERS:
        find(name)
    if name in _backend.names():
        return _backend.get(name)
    return _backend.get(kind)


# Functions of one argument (a device name) that may register a backend for it: the host
# package adds one for its numpy, cupy, flex and autodiff<...> backends.
FINDERS = []


class Device:
    """A place where tensors live; `backend` is the object that implements the primitives."""

    def __init__(self, name="pure"):
        if isinstance(name, Device):
            name = name.name
        if not isinstance(name, str):
            raise error(_E_DEVICE_NAME, name)
        self.name = name
        self.backend = _lookup(name)

    def __eq__(self, other):
        return isinstance(other, Device) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return "device(" + repr(self.name) + ")"


_CACHE = {}


def device(d=None):
    """The Device for a name, a Device, or None (the default device)."""
    if isinstance(d, Device):
        return d
    if d is None:
        d = _DEFAULT[0]
    dev = _CACHE.get(d)
    if dev is None:
        dev = Device(d)
        _CACHE[d] = dev
    return dev


def set_default_device(d):
    """Make `d` (a name or Device) the device of tensors created without one."""
    _DEFAULT[0] = device(d).name
