"""The Tensor: a shape, a dtype and a device around a backend storage handle.

Every user-facing check (shapes, dtypes, dims, indices) happens here, before a primitive of
`burn.backend` is called, so errors name the op the user wrote and never come from deep
inside a backend. Handles are never mutated in place, so reshapes and views share them.

The class itself holds the checks every op shares (`_unary`, `_binary`), reshape, casts and
the Python operators (+ - * / // % ** & | ^ ~ == != < <= > >= @, reflected forms too).
The other methods (exp, relu, sum, mean, max, permute, transpose, T, squeeze, expand,
tolist, softmax, ...) live in the `burn.ops` modules listed in _LAZY_METHODS: the first use
of one imports its module and installs it on the class. Each function compiled into `.mpy`
costs heap when its module is imported, so this keeps `import burn` small on a
microcontroller while later calls cost no more than any method.
"""

import gc
import sys

from burn import dtype as _dt
from burn import shape as _sh
from burn.device import device as _device
from burn.shape import const, error

# Numbers of the messages in burn.errors.MESSAGES.
_E_TENSOR_ATTR = const(0)
_E_LEN_0D = const(2)
_E_AMBIGUOUS_BOOL = const(3)
_E_RESHAPE = const(4)
_E_NOT_FLOAT = const(5)
_E_BOOL_ARITH = const(6)
_E_DTYPES_DIFFER = const(7)
_E_DEVICES_DIFFER = const(8)
_E_FLOAT_LOGIC = const(9)
_E_OPERAND_TYPE = const(10)
_E_LOGIC_DTYPE = const(11)
_E_INT_DIV = const(12)

_COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")
_LOGIC = ("and", "or", "xor")

# Tensor methods implemented in burn.ops.<module>, imported on first use: one line per
# module, "module: name name ... " (see lazy_attr).
_LAZY_METHODS = (
    "ops.elementwise: abs neg add sub mul div pow exp log sqrt tanh sigmoid relu rsqrt sin "
    "cos floor ceil round sign reciprocal erf eq ne lt le gt ge \n"
    "ops.activation: softmax log_softmax gelu silu relu6 leaky_relu \n"
    "ops.reduce: sum mean max min amax amin argmax argmin prod \n"
    "ops.stats: var std \n"
    "ops.select: maximum minimum clamp clip \n"
    "ops.linalg: matmul \n"
    "ops.layout: view ndim size permute transpose T squeeze unsqueeze expand flatten "
    "expand_as clone contiguous copy_ \n"
    "ops.autograd: backward detach requires_grad_ \n"
    "ops.join: split chunk \n"
    "ops.index: narrow index_select gather \n"
    "ops.assign: scatter masked_fill \n"
    "ops.format: tolist item \n"
)


def submodule(name):
    """The module burn.<name> (e.g. "ops.format"), imported on first use."""
    full = "burn." + name
    m = sys.modules.get(full)
    if m is None:
        if sys.implementation.name == "micropython":
            # A module's code is many long-lived blocks; collecting first lets them fill the
            # garbage's holes instead of splitting the large free runs that MicroPython's
            # growing qstr pools need (a 640-name pool is one ~7 KB block on a 64-bit port).
            gc.collect()
        __import__(full)
        m = sys.modules[full]
    return m


def lazy_attr(table, name):
    """The attribute `name` of the burn submodule that `table` lists it under, or None.

    A table is lines of "module: name name ... " (each name between spaces); on MicroPython
    a string costs a fraction of the heap of a dict of the same names."""
    i = table.find(" " + name + " ")
    if i < 0 or " " in name:
        return None
    start = table.rfind("\n", 0, i) + 1
    return getattr(submodule(table[start:table.find(":", start)]), name)


def is_number(v):
    """True for a Python bool, int or float."""
    return isinstance(v, (bool, int, float))


def is_int(v):
    """True for a Python int that is not a bool."""
    return isinstance(v, int) and not isinstance(v, bool)


class Tensor:
    """An n-dimensional array of one dtype on one device (see the module docstring)."""

    def __init__(self, handle, shape, dtype, device):
        self.handle = handle
        self.shape = shape
        self.dtype = dtype
        self.device = device
        self.backend = device.backend

    # Gradient bookkeeping: plain attributes on the core backends; a backend that records
    # gradients (the host's Autodiff) keeps them on its graph nodes instead.
    _requires_grad = False
    _grad = None

    @property
    def requires_grad(self):
        """Whether gradients flow to this tensor."""
        f = getattr(self.backend, "requires_grad", None)
        return f(self.handle) if f else self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        f = getattr(self.backend, "set_requires_grad", None)
        if f:
            f(self.handle, value)
        else:
            self._requires_grad = bool(value)

    @property
    def grad(self):
        """The accumulated gradient (a Tensor) or None."""
        f = getattr(self.backend, "grad", None)
        if f is None:
            return self._grad
        g = f(self.handle)
        return None if g is None else self._new(self.backend.wrap(g, self.numel()),
                                                 self.shape)

    @grad.setter
    def grad(self, value):
        f = getattr(self.backend, "set_grad", None)
        if f is None:
            self._grad = value
        else:
            f(self.handle, None if value is None else self.backend.unwrap(value.handle))

    def _new(self, handle, shape, dtype=None):
        return Tensor(handle, shape, dtype or self.dtype, self.device)

    def __getattr__(self, name):
        # Only reached when normal lookup fails: a method of _LAZY_METHODS is imported and
        # installed on the class, so later calls are plain method calls.
        fn = lazy_attr(_LAZY_METHODS, name)
        if fn is None:
            raise error(_E_TENSOR_ATTR, name)
        setattr(Tensor, name, fn)
        return getattr(self, name)

    # -- size ------------------------------------------------------------------------
    def numel(self):
        """Number of elements."""
        return _sh.numel(self.shape)

    def __len__(self):
        if not self.shape:
            raise error(_E_LEN_0D)
        return self.shape[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __hash__(self):
        return id(self)

    # -- conversion to Python ----------------------------------------------------------
    def __bool__(self):
        n = self.numel()
        if n != 1:
            raise error(_E_AMBIGUOUS_BOOL, n)
        return bool(self.item())

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __repr__(self):
        return submodule("ops.format").tensor_repr(self)

    # -- dtype and device ----------------------------------------------------------------
    def to(self, *targets):
        """Cast to a dtype and/or move to a device (a Device or a device name)."""
        t = self
        for target in targets:
            if isinstance(target, _dt.DType):
                if target is not t.dtype:
                    h = t.backend.cast(t.handle, t.numel(), t.dtype, target)
                    t = t._new(h, t.shape, target)
            else:
                t = submodule("ops.layout").move(t, _device(target))
        return t

    def float(self):
        """Copy as float32."""
        return self.to(_dt.float32)

    def int(self):
        """Copy as int32 (floats truncate toward zero)."""
        return self.to(_dt.int32)

    def bool(self):
        """Copy as bool (non-zero is True)."""
        return self.to(_dt.bool_)

    # -- layout --------------------------------------------------------------------------
    def reshape(self, *shape):
        """Same elements in a new shape; one dim may be -1 (inferred)."""
        shape = shape_args(shape)
        n = self.numel()
        known = 1
        infer = -1
        for i in range(len(shape)):
            s = shape[i]
            if s == -1 and infer < 0:
                infer = i
            elif not is_int(s) or s < 0:
                infer = -2
                break
            else:
                known *= s
        if infer >= 0 and known and n % known == 0:
            shape = shape[:infer] + (n // known,) + shape[infer + 1:]
        elif infer != -1 or known != n:
            raise error(_E_RESHAPE, self.shape, shape)
        return self._new(self.handle, shape)

    # -- elementwise -----------------------------------------------------------------------
    def _unary(self, op):
        dt = self.dtype
        if op == "not":
            if dt.is_float:
                raise error(_E_NOT_FLOAT, dt)
        elif op in ("exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "erf",
                    "reciprocal"):  # only make sense on floats: ints are converted first
            if not dt.is_float:
                return self.float()._unary(op)
        elif dt is _dt.bool_:
            raise error(_E_BOOL_ARITH, op)
        elif op in ("floor", "ceil", "round") and not dt.is_float:
            return self
        return self._new(self.backend.unary(op, self.handle, self.numel(), dt), self.shape)

    def _binary(self, op, other, reflected=False):
        a = self
        if isinstance(other, Tensor):
            if other.dtype is not a.dtype:
                raise error(_E_DTYPES_DIFFER, op, a.dtype, other.dtype)
            if other.device != a.device:
                raise error(_E_DEVICES_DIFFER, op, a.device.name, other.device.name)
            b = other
        elif is_number(other):
            if isinstance(other, float):
                if op in _LOGIC:
                    raise error(_E_FLOAT_LOGIC, op)
                a = a.float()
            else:
                other = int(other)
            b = filled(a, (), other, None) if reflected else other
        else:
            raise error(_E_OPERAND_TYPE, op, other)
        if reflected:
            a, b = b, a
        dt = a.dtype
        if op in _LOGIC:
            if dt.is_float:
                raise error(_E_LOGIC_DTYPE, op, dt)
        elif op not in _COMPARE:
            if dt is _dt.bool_:
                raise error(_E_BOOL_ARITH, op)
            if op == "div" and not dt.is_float:
                raise error(_E_INT_DIV)
        if isinstance(b, Tensor):
            bh = b.handle
            bs = b.shape
        else:
            bh = b
            bs = ()
        out_shape = _sh.broadcast(op, a.shape, bs)
        h = a.backend.binary(op, a.handle, a.shape, bh, bs, out_shape, dt)
        return a._new(h, out_shape, _dt.bool_ if op in _COMPARE else dt)

    def __eq__(self, other):
        if not isinstance(other, Tensor) and not is_number(other):
            return False
        return self._binary("eq", other)

    def __ne__(self, other):
        if not isinstance(other, Tensor) and not is_number(other):
            return True
        return self._binary("ne", other)

    def __invert__(self):
        return self._unary("not")

    def __pos__(self):
        return self

    # -- operators (one line each: cheaper on MicroPython than generated ones; the named
    # forms add, sub, mul, div, pow, abs, neg load from burn.ops.elementwise) ------------
    def __abs__(self):
        return self._unary("abs")

    def __neg__(self):
        return self._unary("neg")

    def __add__(self, other):
        return self._binary("add", other)

    def __sub__(self, other):
        return self._binary("sub", other)

    def __mul__(self, other):
        return self._binary("mul", other)

    def __truediv__(self, other):
        return self._binary("div", other)

    def __pow__(self, other):
        return self._binary("pow", other)

    def __floordiv__(self, other):
        return self._binary("floordiv", other)

    def __mod__(self, other):
        return self._binary("mod", other)

    def __and__(self, other):
        return self._binary("and", other)

    def __or__(self, other):
        return self._binary("or", other)

    def __xor__(self, other):
        return self._binary("xor", other)

    def __rsub__(self, other):
        return self._binary("sub", other, True)

    def __rtruediv__(self, other):
        return self._binary("div", other, True)

    def __rfloordiv__(self, other):
        return self._binary("floordiv", other, True)

    def __rmod__(self, other):
        return self._binary("mod", other, True)

    def __rpow__(self, other):
        return self._binary("pow", other, True)

    def __lt__(self, other):
        return self._binary("lt", other)

    def __le__(self, other):
        return self._binary("le", other)

    def __gt__(self, other):
        return self._binary("gt", other)

    def __ge__(self, other):
        return self._binary("ge", other)

    __radd__ = __add__
    __rmul__ = __mul__
    __rand__ = __and__
    __ror__ = __or__
    __rxor__ = __xor__

    def __matmul__(self, other):
        return submodule("ops.linalg").matmul(self, other)

    def __getitem__(self, key):
        return submodule("ops.index").getitem(self, key)

    def __setitem__(self, key, other):
        # through ops.index, whose name this module already holds: `import burn` then
        # interns no new name (MicroPython's qstr pools grow in steps of ~2 KB of heap)
        submodule("ops.index").__setitem__(self, key, other)


def shape_args(args):
    """The shape passed to reshape/permute/expand: reshape((2, 3)) and reshape(2, 3) both
    work."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


def filled(like, shape, value, dtype):
    """A tensor of `shape` filled with `value` on the device of `like` (dtype defaults to
    like's)."""
    dtype = dtype or like.dtype
    return like._new(like.backend.full(_sh.numel(shape), value, dtype), shape, dtype)
