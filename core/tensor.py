"""The Tensor: a shape, a dtype and a device around a backend storage handle.

Every user-facing check (shapes, dtypes, dims, indices) happens here, before a primitive of
`burn.backend` is called, so errors name the op the user wrote and never come from deep
inside a backend. Handles are never mutated in place, so reshapes and views share them.

Elementwise methods:
  unary:  exp log sqrt rsqrt sin cos tanh sigmoid relu floor ceil round sign abs neg
          reciprocal erf (int tensors are converted to float32 where the op needs it)
  binary: add sub mul div floordiv mod pow maximum minimum eq ne lt le gt ge, the Python
          operators + - * / // % ** & | ^ ~ and their reflected forms.
Less common methods (max, clamp, tolist, flatten, softmax, var, split, ...) live in
`burn.ops` modules listed in _LAZY_METHODS and load on first use, which keeps `import burn`
small on a microcontroller.
"""

import sys

from burn import dtype as _dt
from burn import shape as _sh
from burn.device import device as _device

_COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")
_LOGIC = ("and", "or", "xor")
# Unary ops that only make sense on floats: int and bool tensors are converted first.
_FLOAT_UNARY = ("exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "erf",
                "reciprocal")
_ROUNDING = ("floor", "ceil", "round")

# Tensor methods implemented in burn.ops.<module>, imported on first use.
_LAZY_METHODS = {
    "softmax": "activation", "log_softmax": "activation", "gelu": "activation",
    "silu": "activation", "relu6": "activation", "leaky_relu": "activation",
    "var": "stats", "std": "stats", "split": "join", "chunk": "join",
    "max": "reduce", "min": "reduce", "amax": "reduce", "amin": "reduce",
    "argmax": "reduce", "argmin": "reduce", "prod": "reduce",
    "clamp": "select", "clip": "select", "tolist": "format",
    "flatten": "layout", "expand_as": "layout", "clone": "layout", "contiguous": "layout",
    "copy_": "layout", "narrow": "index",
    "rsqrt": "elementwise", "sin": "elementwise", "cos": "elementwise",
    "floor": "elementwise", "ceil": "elementwise", "round": "elementwise",
    "sign": "elementwise", "reciprocal": "elementwise", "erf": "elementwise",
    "eq": "elementwise", "ne": "elementwise", "lt": "elementwise", "le": "elementwise",
    "gt": "elementwise", "ge": "elementwise",
}


def ops_module(name):
    """The module burn.ops.<name>, imported on first use."""
    full = "burn.ops." + name
    m = sys.modules.get(full)
    if m is None:
        __import__(full)
        m = sys.modules[full]
    return m


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
    def requires_grad(self, flag):
        f = getattr(self.backend, "set_requires_grad", None)
        if f:
            f(self.handle, flag)
        else:
            self._requires_grad = bool(flag)

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

    def backward(self, grad=None):
        """Accumulate d(self)/d(leaf) into the `.grad` of every leaf that requires grad."""
        f = getattr(self.backend, "backward", None)
        if f is None:
            raise RuntimeError("backward: the " + self.backend.name + " backend records no "
                               "gradients; use a device wrapped in Autodiff")
        f(self.handle, self.shape, None if grad is None else grad.handle)

    def _new(self, handle, shape, dtype=None):
        return Tensor(handle, shape, dtype or self.dtype, self.device)

    def __getattr__(self, name):
        mod = _LAZY_METHODS.get(name)
        if mod is None:
            raise AttributeError("'Tensor' object has no attribute " + repr(name))
        fn = getattr(ops_module(mod), name)
        return lambda *args, **kwargs: fn(self, *args, **kwargs)

    # -- size ------------------------------------------------------------------------
    @property
    def ndim(self):
        """Number of dims."""
        return len(self.shape)

    def numel(self):
        """Number of elements."""
        return _sh.numel(self.shape)

    def size(self, dim=None):
        """The shape, or the size of one dim."""
        if dim is None:
            return self.shape
        return self.shape[_sh.norm_dim("size", dim, len(self.shape))]

    def __len__(self):
        if not self.shape:
            raise TypeError("len: a 0-d tensor has no length")
        return self.shape[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __hash__(self):
        return id(self)

    # -- conversion to Python ----------------------------------------------------------
    def _py(self):
        flat = self.backend.to_flat(self.handle, self.numel(), self.dtype)
        if self.dtype.is_float:
            return [float(v) for v in flat]
        if self.dtype is _dt.bool_:
            return [bool(v) for v in flat]
        return [int(v) for v in flat]

    def item(self):
        """The single element as a Python number."""
        n = self.numel()
        if n != 1:
            raise ValueError("item: a tensor of " + repr(n) + " elements has no single value")
        return self._py()[0]

    def __bool__(self):
        n = self.numel()
        if n != 1:
            raise ValueError("bool: the truth value of a tensor of " + repr(n) +
                             " elements is ambiguous; use .any()-style reductions")
        return bool(self._py()[0])

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __repr__(self):
        return ops_module("format").tensor_repr(self)

    # -- dtype and device ----------------------------------------------------------------
    def to(self, *targets):
        """Cast to a dtype and/or move to a device (a Device or a device name)."""
        t = self
        for target in targets:
            if isinstance(target, _dt.DType):
                t = t._cast(target)
            else:
                t = t._move(_device(target))
        return t

    def _cast(self, dtype):
        if dtype is self.dtype:
            return self
        h = self.backend.cast(self.handle, self.numel(), self.dtype, dtype)
        return self._new(h, self.shape, dtype)

    def _move(self, dev):
        if dev == self.device:
            return self
        n = self.numel()
        h = dev.backend.from_bytes(self.backend.to_bytes(self.handle, n, self.dtype),
                                   self.dtype)
        return Tensor(h, self.shape, self.dtype, dev)

    def float(self):
        """Copy as float32."""
        return self._cast(_dt.float32)

    def int(self):
        """Copy as int32 (floats truncate toward zero)."""
        return self._cast(_dt.int32)

    def bool(self):
        """Copy as bool (non-zero is True)."""
        return self._cast(_dt.bool_)

    def detach(self):
        """The same values without autodiff history."""
        f = getattr(self.backend, "detach", None)
        return self._new(f(self.handle) if f else self.handle, self.shape)

    def requires_grad_(self, flag=True):
        """Mark this tensor as a leaf whose gradient is wanted; returns it."""
        self.requires_grad = flag
        return self

    # -- layout --------------------------------------------------------------------------
    def reshape(self, *shape):
        """Same elements in a new shape; one dim may be -1 (inferred)."""
        shape = _shape_args(shape)
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
            raise ValueError("reshape: cannot reshape tensor of shape " + repr(self.shape) +
                             " into " + repr(shape))
        return self._new(self.handle, shape)

    view = reshape

    def permute(self, *dims):
        """Reorder dims: output dim i is input dim dims[i]."""
        dims = _shape_args(dims)
        nd = len(self.shape)
        perm = tuple(_sh.norm_dim("permute", d, nd) for d in dims)
        if len(perm) != nd or sorted(perm) != list(range(nd)):
            raise ValueError("permute: dims " + repr(dims) + " are not a permutation of " +
                             repr(nd) + " dims")
        if perm == tuple(range(nd)):
            return self
        h = self.backend.permute(self.handle, self.shape, perm, self.dtype)
        return self._new(h, tuple(self.shape[p] for p in perm))

    def transpose(self, dim0, dim1):
        """Swap two dims."""
        nd = len(self.shape)
        a = _sh.norm_dim("transpose", dim0, nd)
        b = _sh.norm_dim("transpose", dim1, nd)
        perm = list(range(nd))
        perm[a] = b
        perm[b] = a
        return self.permute(perm)

    @property
    def T(self):
        """Transpose of a tensor of at most 2 dims."""
        if len(self.shape) > 2:
            raise ValueError("T: expects a tensor of at most 2 dims, got shape " +
                             repr(self.shape) + "; use permute")
        return self.permute(tuple(range(len(self.shape) - 1, -1, -1)))

    def squeeze(self, dim=None):
        """Drop size-1 dims (all of them, or those listed in `dim`)."""
        dims = _sh.norm_dims("squeeze", dim, len(self.shape))
        shape = tuple(self.shape[i] for i in range(len(self.shape))
                      if not (i in dims and self.shape[i] == 1))
        return self._new(self.handle, shape)

    def unsqueeze(self, dim):
        """Insert a size-1 dim at position `dim`."""
        d = _sh.norm_dim("unsqueeze", dim, len(self.shape) + 1)
        return self._new(self.handle, self.shape[:d] + (1,) + self.shape[d:])

    def expand(self, *shape):
        """Broadcast size-1 dims (and new leading dims) to `shape`; -1 keeps a dim."""
        shape = _shape_args(shape)
        lead = len(shape) - len(self.shape)
        bad = lead < 0
        out = []
        for i in range(len(shape) if lead >= 0 else 0):
            s = shape[i]
            own = self.shape[i - lead] if i >= lead else 1
            if s == -1 and i >= lead:
                s = own
            if not is_int(s) or s < 0 or (own != s and own != 1):
                bad = True
            out.append(s)
        if bad:
            raise ValueError("expand: cannot expand shape " + repr(self.shape) + " to " +
                             repr(shape))
        out = tuple(out)
        if out == self.shape:
            return self
        h = self.backend.expand(self.handle, (1,) * lead + self.shape, out, self.dtype)
        return self._new(h, out)

    # -- elementwise -----------------------------------------------------------------------
    def _unary(self, op):
        dt = self.dtype
        if op == "not":
            if dt.is_float:
                raise TypeError("not: needs a bool or integer tensor, got " + repr(dt))
        elif op in _FLOAT_UNARY:
            if not dt.is_float:
                return self.float()._unary(op)
        elif dt is _dt.bool_:
            raise TypeError(op + ": not supported for burn.bool tensors; convert with .int() "
                            "or .float()")
        elif op in _ROUNDING and not dt.is_float:
            return self
        return self._new(self.backend.unary(op, self.handle, self.numel(), dt), self.shape)

    def _binary(self, op, other, reflected=False):
        a = self
        if isinstance(other, Tensor):
            if other.dtype is not a.dtype:
                raise TypeError(op + ": dtypes " + repr(a.dtype) + " and " + repr(other.dtype) +
                                " differ; convert one with .to(dtype)")
            if other.device != a.device:
                raise ValueError(op + ": tensors are on different devices " +
                                 repr(a.device.name) + " and " + repr(other.device.name))
            b = other
        elif is_number(other):
            if isinstance(other, float):
                if op in _LOGIC:
                    raise TypeError(op + ": needs bool or integer operands, got a float")
                a = a.float()
            else:
                other = int(other)
            b = filled(a, (), other, None) if reflected else other
        else:
            raise TypeError(op + ": unsupported operand of type " + type(other).__name__)
        if reflected:
            a, b = b, a
        dt = a.dtype
        if op in _LOGIC:
            if dt.is_float:
                raise TypeError(op + ": needs bool or integer tensors, got " + repr(dt))
        elif op not in _COMPARE:
            if dt is _dt.bool_:
                raise TypeError(op + ": not supported for burn.bool tensors; convert with "
                                ".int() or .float()")
            if op == "div" and not dt.is_float:
                raise TypeError("div: integer tensors cannot be divided with /; use .float() "
                                "first, or // for floor division")
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

    # -- reductions ----------------------------------------------------------------------
    def _reduce(self, op, dim, keepdim):
        t = self
        if op in ("sum", "prod") and not t.dtype.is_float and t.dtype is not _dt.int32:
            t = t.int()  # like torch, small ints accumulate in a wider type
        if dim is None:
            if op in ("max", "min", "argmax", "argmin") and t.numel() == 0:
                raise ValueError(op + ": cannot reduce an empty tensor")
            n = t.numel()
            h = t.backend.reduce(op, t.handle, (n,), 0, t.dtype)
            shape = (1,) * len(t.shape) if keepdim else ()
        else:
            dims = _sh.norm_dims(op, dim, len(t.shape))
            h = t.handle
            shape = t.shape
            for d in dims:
                if op in ("max", "min", "argmax", "argmin") and shape[d] == 0:
                    raise ValueError(op + ": cannot reduce an empty dim " + repr(d))
                h = t.backend.reduce(op, h, shape, d, t.dtype)
                shape = shape[:d] + (1,) + shape[d + 1:]
            if not keepdim:
                shape = tuple(shape[i] for i in range(len(shape)) if i not in dims)
        dtype = _dt.int32 if op in ("argmax", "argmin") else t.dtype
        return t._new(h, shape, dtype)

    def sum(self, dim=None, keepdim=False):
        """Sum over `dim` (an int, a tuple, or None for all)."""
        return self._reduce("sum", dim, keepdim)

    def mean(self, dim=None, keepdim=False):
        """Mean over `dim` (an int, a tuple, or None for all); float tensors only."""
        if not self.dtype.is_float:
            raise TypeError("mean: needs a float tensor, got " + repr(self.dtype) +
                            "; use .float()")
        count = 1
        for d in _sh.norm_dims("mean", dim, len(self.shape)):
            count *= self.shape[d]
        return self._reduce("sum", dim, keepdim) / count

    # -- elementwise methods (one line each: cheaper on MicroPython than generated ones) --
    def exp(self):
        """e**x, elementwise."""
        return self._unary("exp")

    def log(self):
        """Natural logarithm, elementwise."""
        return self._unary("log")

    def sqrt(self):
        """Square root, elementwise."""
        return self._unary("sqrt")

    def tanh(self):
        """Hyperbolic tangent, elementwise."""
        return self._unary("tanh")

    def sigmoid(self):
        """1 / (1 + exp(-x)), elementwise."""
        return self._unary("sigmoid")

    def relu(self):
        """max(x, 0), elementwise."""
        return self._unary("relu")

    def abs(self):
        """Absolute value, elementwise."""
        return self._unary("abs")

    def neg(self):
        """-x, elementwise."""
        return self._unary("neg")

    def add(self, other):
        """x + other, broadcasting; other may be a number."""
        return self._binary("add", other)

    def sub(self, other):
        """x - other, broadcasting; other may be a number."""
        return self._binary("sub", other)

    def mul(self, other):
        """x * other, broadcasting; other may be a number."""
        return self._binary("mul", other)

    def div(self, other):
        """x / other (float tensors), broadcasting; other may be a number."""
        return self._binary("div", other)

    def pow(self, other):
        """x ** other, broadcasting; other may be a number."""
        return self._binary("pow", other)

    def maximum(self, other):
        """Elementwise maximum, broadcasting; other may be a number."""
        return self._binary("maximum", other)

    def minimum(self, other):
        """Elementwise minimum, broadcasting; other may be a number."""
        return self._binary("minimum", other)

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

    __neg__ = neg
    __abs__ = abs
    __add__ = __radd__ = add
    __sub__ = sub
    __mul__ = __rmul__ = mul
    __truediv__ = div
    __pow__ = pow
    __rand__ = __and__
    __ror__ = __or__
    __rxor__ = __xor__

    # -- linear algebra --------------------------------------------------------------------
    def matmul(self, other):
        """Matrix product with torch's rules for 1-D, 2-D and batched operands."""
        return ops_module("linalg").matmul(self, other)

    __matmul__ = matmul

    def __getitem__(self, key):
        return ops_module("index").getitem(self, key)


def _shape_args(args):
    # reshape((2, 3)) and reshape(2, 3) both work.
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


def filled(like, shape, value, dtype):
    """A tensor of `shape` filled with `value` on the device of `like` (dtype defaults to
    like's)."""
    dtype = dtype or like.dtype
    return like._new(like.backend.full(_sh.numel(shape), value, dtype), shape, dtype)


def operand(op, t, ref):
    """`t` as a tensor: a number becomes a 0-d tensor of ref's dtype (float32 if it is a
    float and ref is not), a tensor passes through; TypeError naming `op` otherwise."""
    if isinstance(t, Tensor):
        return t
    if not is_number(t):
        raise TypeError(op + ": expected a tensor or a number, got " + type(t).__name__)
    dtype = _dt.float32 if isinstance(t, float) and not ref.dtype.is_float else None
    return filled(ref, (), t, dtype)
