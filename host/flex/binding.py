"""Calling flex_c: status codes become exceptions, and one argument vocabulary serves both the
host library (`burn._flex` through cffi) and the emulated Cortex-M builds.

A kernel call is a C function name plus arguments, each one of: an int, a float, None (NULL),
a contiguous numpy array (passed as a pointer; outputs are written in place), a `Struct`
(a parameter block of int32 fields, passed by pointer) or a `PtrList` (an array of pointers
to numpy arrays).
"""

import os

import numpy as np

OK = 0
_STATUS = {
    -1: "null pointer",
    -2: "bad shape",
    -3: "bad window (kernel, stride, dilation or padding)",
    -4: "buffer length does not match shape",
    -5: "parameter out of range",
    -6: "element count overflows int32",
    -7: "the second core did not finish its part in time",
    -8: "interrupted",
}
_CTYPES = {
    np.dtype(np.int8): "int8_t",
    np.dtype(np.uint8): "uint8_t",
    np.dtype(np.int16): "int16_t",
    np.dtype(np.int32): "int32_t",
    np.dtype(np.float32): "float",
}


class FlexError(ValueError):
    """A flex_c kernel rejected its arguments; `status` is the C status code."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


class FlexNullError(FlexError, TypeError):
    """A required buffer was missing (status FLEX_E_NULL)."""


class Struct:
    """A C parameter block made only of int32 fields, passed by pointer."""

    def __init__(self, ctype, values):
        self.ctype = ctype
        self.values = [int(v) for v in values]


class PtrList:
    """An array of pointers to numpy arrays (flex_concat's inputs)."""

    def __init__(self, arrays):
        self.arrays = list(arrays)


def raise_for_status(name, status, context=""):
    """Raise the exception of a non-OK status, naming the kernel and `context`."""
    if status == OK:
        return
    message = name + ": " + _STATUS.get(status, "status %d" % status)
    if context:
        message += " (" + context + ")"
    cls = FlexNullError if status == -1 else FlexError
    raise cls(message, status)


def ctype_of(arr):
    """The C element type name of a numpy array's dtype."""
    try:
        return _CTYPES[arr.dtype]
    except KeyError:
        raise TypeError("flex: unsupported buffer dtype " + str(arr.dtype)) from None


class HostLib:
    """Runs kernels in the host build `burn._flex`."""

    name = "host"

    def __init__(self):
        from burn._flex import ffi, lib

        self.ffi = ffi
        self.lib = lib

    def _arg(self, a, keep):
        ffi = self.ffi
        if a is None:
            return ffi.NULL
        if isinstance(a, np.ndarray):
            if not a.flags.c_contiguous:
                raise ValueError("flex: buffers must be C-contiguous")
            return ffi.from_buffer(ctype_of(a) + "[]", a)
        if isinstance(a, Struct):
            s = ffi.new(a.ctype + " *", a.values)
            keep.append(s)
            return s
        if isinstance(a, PtrList):
            ptrs = [self._arg(x, keep) for x in a.arrays]
            keep.extend(ptrs)
            arr = ffi.new("void *[]", [ffi.cast("void *", p) for p in ptrs])
            keep.append(arr)
            return arr
        return a

    def call(self, name, args):
        """Call `name` with `args`; returns the status code."""
        keep = []
        cargs = [self._arg(a, keep) for a in args]
        return getattr(self.lib, name)(*cargs)

    def prepare(self, name, args):
        """This call converted once for repeating it (same buffers, same values): (the C
        function, the tuple of its C arguments, the objects that keep them alive). The
        function returns the status code."""
        keep = []
        cargs = tuple(self._arg(a, keep) for a in args)
        return getattr(self.lib, name), cargs, keep


_HOST = []


def host():
    """The shared host library: `burn._flex`, or the ASan+UBSan build when the environment
    sets BURN_FLEX_SANITIZE=1 (see burn.host.flex.sanitize)."""
    if not _HOST:
        if os.environ.get("BURN_FLEX_SANITIZE") == "1":
            from burn.host.flex.sanitize import SanitizedLib

            _HOST.append(SanitizedLib())
        else:
            _HOST.append(HostLib())
    return _HOST[0]


_AVAILABLE = []


def available():
    """Whether the host library loads (the answer is kept: it cannot change in a process)."""
    if not _AVAILABLE:
        try:
            host()
        except ImportError:
            _AVAILABLE.append(False)
        else:
            _AVAILABLE.append(True)
    return _AVAILABLE[0]


def run(lib, name, args, context=""):
    """Call kernel `name` through `lib` and raise on a non-OK status."""
    raise_for_status(name, lib.call(name, args), context)
