"""Error messages of the modules that `import burn` loads (tensor, creation, shape, dtype,
device and the package itself), imported on the first error.

On MicroPython every string constant of an imported `.mpy` module stays in the heap (about
100 bytes per message fragment on a 64-bit port; these messages came to ~2 KB, a tenth of
`import burn`). So those modules keep only a message number, `const()`-folded into their
bytecode, and raise `burn.shape.error(number, ...)`, which builds the exception here.

MESSAGES[number] is a function of up to three arguments (the op name first where the
message starts with one) returning the exception. A raising module names the numbers it
uses `_E_<NAME>` after the function `_<name>` here; tests/host/test_error_codes.py checks
that every such constant matches its function's position.
"""


def _tensor_attr(name, _b, _c):
    return AttributeError("'Tensor' object has no attribute " + repr(name))


def _module_attr(module, name, _c):
    return AttributeError("module " + repr(module) + " has no attribute " + repr(name))


def _len_0d(_a, _b, _c):
    return TypeError("len: a 0-d tensor has no length")


def _ambiguous_bool(n, _b, _c):
    return ValueError("bool: the truth value of a tensor of " + repr(n) +
                      " elements is ambiguous; use .any()-style reductions")


def _reshape(shape, new_shape, _c):
    return ValueError("reshape: cannot reshape tensor of shape " + repr(shape) + " into " +
                      repr(new_shape))


def _not_float(dtype, _b, _c):
    return TypeError("not: needs a bool or integer tensor, got " + repr(dtype))


def _bool_arith(op, _b, _c):
    return TypeError(op + ": not supported for burn.bool tensors; convert with .int() or "
                     ".float()")


def _dtypes_differ(op, a, b):
    return TypeError(op + ": dtypes " + repr(a) + " and " + repr(b) +
                     " differ; convert one with .to(dtype)")


def _devices_differ(op, a, b):
    return ValueError(op + ": tensors are on different devices " + repr(a) + " and " +
                      repr(b))


def _float_logic(op, _b, _c):
    return TypeError(op + ": needs bool or integer operands, got a float")


def _operand_type(op, value, _c):
    return TypeError(op + ": unsupported operand of type " + type(value).__name__)


def _logic_dtype(op, dtype, _c):
    return TypeError(op + ": needs bool or integer tensors, got " + repr(dtype))


def _int_div(_a, _b, _c):
    return TypeError("div: integer tensors cannot be divided with /; use .float() first, or "
                     "// for floor division")


def _element_type(value, _b, _c):
    return TypeError("tensor: unsupported element of type " + type(value).__name__)


def _ragged(dim, expected, got):
    return ValueError("tensor: ragged nested sequence at dim " + repr(dim) +
                      " (expected length " + repr(expected) + ", got " + repr(got) + ")")


def _out_of_range(op, value, dtype):
    return ValueError(op + ": value " + repr(value) + " is out of range for " + repr(dtype))


def _unknown_dtype(op, dtype, _c):
    return TypeError(op + ": unknown dtype " + repr(dtype))


def _data_type(data, _b, _c):
    return TypeError("tensor: cannot make a tensor from " + type(data).__name__)


def _no_broadcast(op, a, b):
    return ValueError(op + ": shapes " + repr(a) + " and " + repr(b) + " do not broadcast")


def _dim_type(op, dim, _c):
    return TypeError(op + ": dim must be an int, got " + repr(dim))


def _dim_range(op, dim, ndim):
    lo = -ndim if ndim else -1
    hi = ndim - 1 if ndim else 0
    return IndexError(op + ": dim " + repr(dim) + " is out of range [" + repr(lo) + ", " +
                      repr(hi) + "] for a tensor of " + repr(ndim) + " dims")


def _dim_repeated(op, dim, _c):
    return ValueError(op + ": dim " + repr(dim) + " appears more than once")


def _shape_type(op, shape, _c):
    return TypeError(op + ": shape must be an int or a tuple of ints, got " + repr(shape))


def _shape_value(op, shape, _c):
    return ValueError(op + ": invalid shape " + repr(tuple(shape)))


def _dtype_name(name, _b, _c):
    return TypeError("unknown dtype: " + repr(name))


def _device_name(name, _b, _c):
    return TypeError("device: expected a name such as 'pure', got " + repr(name))


MESSAGES = (
    _tensor_attr, _module_attr, _len_0d, _ambiguous_bool, _reshape, _not_float, _bool_arith,
    _dtypes_differ, _devices_differ, _float_logic, _operand_type, _logic_dtype, _int_div,
    _element_type, _ragged, _out_of_range, _unknown_dtype, _data_type, _no_broadcast, _dim_type,
    _dim_range, _dim_repeated, _shape_type, _shape_value, _dtype_name, _device_name,
)
