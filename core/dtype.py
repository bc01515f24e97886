"""Tensor element types: float32, int8, uint8, int32, bool, int16 (the activations of
int16x8 `.bst` models), and int64 and uint32 (plain integer tensors of `.bst` models).

Each dtype knows the `array` typecode that stores it, its byte size and whether it is a
float. dtypes are singletons, compared with `is`.
"""

from burn.shape import const, error

_E_DTYPE_NAME = const(24)  # the number of its message in burn.errors.MESSAGES


class DType:
    """One element type; use the module-level instances, never construct new ones."""

    def __init__(self, name, typecode, itemsize, is_float, lo, hi):
        self.name = name
        self.typecode = typecode
        self.itemsize = itemsize
        self.is_float = is_float
        self.lo = lo
        self.hi = hi

    def __repr__(self):
        return "burn." + self.name


float32 = DType("float32", "f", 4, True, None, None)
int8 = DType("int8", "b", 1, False, -128, 127)
uint8 = DType("uint8", "B", 1, False, 0, 255)
int32 = DType("int32", "i", 4, False, -2147483648, 2147483647)
bool_ = DType("bool", "B", 1, False, 0, 1)
int16 = DType("int16", "h", 2, False, -32768, 32767)
int64 = DType("int64", "q", 8, False, -(1 << 63), (1 << 63) - 1)
uint32 = DType("uint32", "I", 4, False, 0, 4294967295)


def dtype_of(name):
    """Return the DType for a DType or a name such as 'float32' or 'int8'."""
    if isinstance(name, DType):
        return name
    for d in (float32, int8, uint8, int32, bool_, int16, int64, uint32):
        if d.name == name:
            return d
    raise error(_E_DTYPE_NAME, name)
