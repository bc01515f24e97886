"""The Tensor: a shape, a dtype and a device around a backend storage handle.

Every user-facing check (shapes, dtypes, dims, indices) happens here, before a primitive of
`burn.backend` is called, so errors name the op the user wrote and never come from deep
inside a backend. Handles are never mutated in place, so reshapes and views share them.

Elementwise methods are generated from tables at the end of this module:
  unary:  exp log sqrt rsqrt sin cos tanh sigmoid relu floor ceil round sign abs neg
          reciprocal erf (int tensors are converted to float32 where the op needs it)
  binary: add sub mul div floordiv mod pow maximum minimum eq ne lt le gt ge, the Python
          operators + - * / // % ** & | ^ ~ and their reflected forms.
Rarely used methods (softmax, var, split, ...) live in `burn.ops` and load on first use.
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
}


def ops_module(name):
    """The module burn.ops.<name>, imported on first use."""
    full = "burn.ops." + name
    m = sys.modules.get(full)
    if m is None:
        __import__(full)
        m = sys.modules[full]
    return m


def _is_scalar(v):
    return isinstance(v, (bool, int, float))


def _int_value(v):
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

    def is_floating_point(self):
        """True for float tensors."""
        return self.dtype.is_float

    # -- conversion to Python ----------------------------------------------------------
    def _py(self):
        flat = self.backend.to_flat(self.handle, self.numel(), self.dtype)
        if self.dtype.is_float:
            return [float(v) for v in flat]
        if self.dtype is _dt.bool_:
            return [bool(v) for v in flat]
        return [int(v) for v in flat]

    def tolist(self):
        """Nested Python lists (a plain number for a 0-d tensor)."""
        flat = self._py()
        if not self.shape:
            return flat[0]
        return _nest(flat, self.shape, 0, 0)

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
        flat = self._py()
        if self.shape:
            strides = _strides(self.shape)
            body = _fmt(flat, self.shape, strides, 0, 0, len(flat) > 1000, self.dtype)
        else:
            body = _fmt_value(flat[0], self.dtype)
        dev = "" if self.device.name == "pure" else ", device=" + repr(self.device.name)
        return "tensor(" + body + ", dtype=" + repr(self.dtype) + dev + ")"

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

    def clone(self):
        """An independent copy."""
        h = self.backend.permute(self.handle, self.shape, tuple(range(len(self.shape))),
                                 self.dtype)
        return self._new(h, self.shape)

    def contiguous(self):
        """The tensor itself: storage is always contiguous."""
        return self

    def detach(self):
        """The same values without autodiff history."""
        f = getattr(self.backend, "detach", None)
        return self._new(f(self.handle) if f else self.handle, self.shape)

    def requires_grad_(self, flag=True):
        """Mark this tensor as a leaf whose gradient is wanted; returns it."""
        self.requires_grad = flag
        return self

    def copy_(self, src):
        """Take the values of `src` (same shape; converted to this dtype and device)."""
        src = _operand("copy_", src, self)
        if not src.shape:
            src = src.expand(self.shape)
        if src.shape != self.shape:
            raise ValueError("copy_: shape " + repr(src.shape) + " does not match " +
                             repr(self.shape))
        flag = self.requires_grad
        grad = self.grad
        self.handle = src.to(self.dtype, self.device).detach().handle
        if flag:
            self.requires_grad = True
            self.grad = grad
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
            elif not _int_value(s) or s < 0:
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

    def flatten(self, start_dim=0, end_dim=-1):
        """Merge dims start_dim..end_dim into one."""
        if not self.shape:
            return self.reshape((1,))
        nd = len(self.shape)
        s = _sh.norm_dim("flatten", start_dim, nd)
        e = _sh.norm_dim("flatten", end_dim, nd)
        if s > e:
            raise ValueError("flatten: start_dim " + repr(start_dim) + " comes after end_dim " +
                             repr(end_dim))
        shape = self.shape
        return self.reshape(shape[:s] + (_sh.numel(shape[s:e + 1]),) + shape[e + 1:])

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
            if not _int_value(s) or s < 0 or (own != s and own != 1):
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

    def expand_as(self, other):
        """Broadcast to the shape of `other`."""
        return self.expand(other.shape)

    # -- indexing ------------------------------------------------------------------------
    def __getitem__(self, key):
        if isinstance(key, (Tensor, list)):
            return self._take(key)
        if not isinstance(key, tuple):
            key = (key,)
        if key and isinstance(key[0], (Tensor, list)):
            taken = self._take(key[0])
            return taken[(slice(None),) * (len(taken.shape) + 1 - len(self.shape)) + key[1:]]
        shape = self.shape
        nd = len(shape)
        real = 0
        ellipses = 0
        for k in key:
            if k is Ellipsis:
                ellipses += 1
            elif k is not None:
                real += 1
        if ellipses > 1:
            raise IndexError("index: an index can only have a single ellipsis")
        if real > nd:
            raise IndexError("index: too many indices for a tensor of " + repr(nd) + " dims")
        starts = []
        steps = []
        sizes = []
        final = []
        d = 0
        for k in key:
            if k is Ellipsis:
                for _ in range(nd - real):
                    starts.append(0)
                    steps.append(1)
                    sizes.append(shape[d])
                    final.append(shape[d])
                    d += 1
            elif k is None:
                final.append(1)
            elif isinstance(k, slice):
                start, step, length = _slice_range(k, shape[d])
                starts.append(start)
                steps.append(step)
                sizes.append(length)
                final.append(length)
                d += 1
            elif _int_value(k):
                i = k + shape[d] if k < 0 else k
                if i < 0 or i >= shape[d]:
                    raise IndexError("index " + repr(k) + " is out of range for dim " +
                                     repr(d) + " of size " + repr(shape[d]))
                starts.append(i)
                steps.append(1)
                sizes.append(1)
                d += 1
            elif isinstance(k, (Tensor, list)):
                raise IndexError("index: tensor indices are only supported along dim 0")
            else:
                raise TypeError("index: unsupported index " + repr(k))
        while d < nd:
            starts.append(0)
            steps.append(1)
            sizes.append(shape[d])
            final.append(shape[d])
            d += 1
        sizes = tuple(sizes)
        h = self.handle
        if sizes != shape or any(starts) or any(s != 1 for s in steps):
            h = self.backend.slice(h, shape, tuple(starts), tuple(steps), sizes, self.dtype)
        return self._new(h, tuple(final))

    def _take(self, idx):
        if not isinstance(idx, Tensor):
            for v in idx:
                if not _int_value(v):
                    raise TypeError("index: index lists must hold ints, got " + repr(v))
            idx = self._new(self.backend.from_flat(idx, _dt.int32), (len(idx),), _dt.int32)
        if idx.dtype.is_float or idx.dtype is _dt.bool_:
            raise TypeError("index: index tensors must hold integers, got " + repr(idx.dtype))
        if not self.shape:
            raise IndexError("index: a 0-d tensor cannot be indexed by a tensor")
        size = self.shape[0]
        vals = idx._py()
        for i in range(len(vals)):
            v = vals[i]
            if v < -size or v >= size:
                raise IndexError("index " + repr(v) + " is out of range for dim 0 of size " +
                                 repr(size))
            if v < 0:
                vals[i] = v + size
        b = self.backend
        n = len(vals)
        h = b.gather(self.handle, self.shape, 0, b.from_flat(vals, _dt.int32), n, self.dtype)
        return self._new(h, idx.shape + self.shape[1:])

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
        elif _is_scalar(other):
            if isinstance(other, float):
                if op in _LOGIC:
                    raise TypeError(op + ": needs bool or integer operands, got a float")
                a = a.float()
            else:
                other = int(other)
            b = _full(a, (), other, None) if reflected else other
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
        if not isinstance(other, Tensor) and not _is_scalar(other):
            return False
        return self._binary("eq", other)

    def __ne__(self, other):
        if not isinstance(other, Tensor) and not _is_scalar(other):
            return True
        return self._binary("ne", other)

    def __invert__(self):
        return self._unary("not")

    def __pos__(self):
        return self

    def clamp(self, min=None, max=None):
        """Limit every element to [min, max]; either bound may be None or a tensor."""
        if min is None and max is None:
            raise ValueError("clamp: at least one of min and max must be given")
        if isinstance(min, Tensor) or isinstance(max, Tensor):
            t = self if min is None else self.maximum(min)
            return t if max is None else t.minimum(max)
        t = self
        for v in (min, max):
            if v is not None and not _is_scalar(v):
                raise TypeError("clamp: bounds must be numbers or tensors, got " + repr(v))
            if isinstance(v, float) and not t.dtype.is_float:
                t = t.float()
        if t.dtype is _dt.bool_:
            raise TypeError("clamp: not supported for burn.bool tensors")
        h = t.backend.clamp(t.handle, t.numel(), min, max, t.dtype)
        return t._new(h, t.shape)

    clip = clamp

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

    def prod(self, dim=None, keepdim=False):
        """Product over `dim` (an int, a tuple, or None for all)."""
        return self._reduce("prod", dim, keepdim)

    def mean(self, dim=None, keepdim=False):
        """Mean over `dim` (an int, a tuple, or None for all); float tensors only."""
        if not self.dtype.is_float:
            raise TypeError("mean: needs a float tensor, got " + repr(self.dtype) +
                            "; use .float()")
        count = 1
        for d in _sh.norm_dims("mean", dim, len(self.shape)):
            count *= self.shape[d]
        return self._reduce("sum", dim, keepdim) / count

    def _extreme(self, op, dim, keepdim):
        if isinstance(dim, Tensor):
            return self._binary("maximum" if op == "max" else "minimum", dim)
        if dim is None:
            return self._reduce(op, None, keepdim)
        if not _int_value(dim):
            raise TypeError(op + ": dim must be an int, got " + repr(dim))
        return (self._reduce(op, dim, keepdim), self._reduce("arg" + op, dim, keepdim))

    def max(self, dim=None, keepdim=False):
        """Largest element; with an int `dim`, (values, indices) along it; with a tensor,
        the elementwise maximum."""
        return self._extreme("max", dim, keepdim)

    def min(self, dim=None, keepdim=False):
        """Smallest element; with an int `dim`, (values, indices) along it; with a tensor,
        the elementwise minimum."""
        return self._extreme("min", dim, keepdim)

    def amax(self, dim=None, keepdim=False):
        """Largest values over `dim` (an int, a tuple, or None for all)."""
        return self._reduce("max", dim, keepdim)

    def amin(self, dim=None, keepdim=False):
        """Smallest values over `dim` (an int, a tuple, or None for all)."""
        return self._reduce("min", dim, keepdim)

    def argmax(self, dim=None, keepdim=False):
        """Index of the largest element (of the flattened tensor when dim is None)."""
        return self._reduce("argmax", dim if dim is None else (dim,), keepdim)

    def argmin(self, dim=None, keepdim=False):
        """Index of the smallest element (of the flattened tensor when dim is None)."""
        return self._reduce("argmin", dim if dim is None else (dim,), keepdim)

    # -- linear algebra --------------------------------------------------------------------
    def matmul(self, other):
        """Matrix product with torch's rules for 1-D, 2-D and batched operands."""
        return matmul(self, other)

    def __matmul__(self, other):
        return matmul(self, other)


def _slice_range(s, size):
    # Python's slice semantics -> (start, step, length) without slice.indices(), which
    # some MicroPython ports lack.
    step = 1 if s.step is None else s.step
    if not _int_value(step) or step == 0:
        raise ValueError("index: slice step must be a non-zero int, got " + repr(s.step))
    lo, hi = (0, size) if step > 0 else (-1, size - 1)
    start = _slice_bound(s.start, size, lo, hi, hi if step < 0 else 0)
    stop = _slice_bound(s.stop, size, lo, hi, hi if step > 0 else lo)
    if step > 0:
        length = (stop - start + step - 1) // step if stop > start else 0
    else:
        length = (start - stop - step - 1) // -step if start > stop else 0
    return (start if length else 0), step, length


def _slice_bound(v, size, lo, hi, default):
    if v is None:
        return default
    if not _int_value(v):
        raise TypeError("index: slice bounds must be ints, got " + repr(v))
    if v < 0:
        v += size
    return lo if v < lo else (hi if v > hi else v)


def _shape_args(args):
    # reshape((2, 3)) and reshape(2, 3) both work.
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


def _strides(shape):
    out = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        out[i] = out[i + 1] * shape[i + 1]
    return out


def _nest(flat, shape, dim, offset):
    size = shape[dim]
    if dim == len(shape) - 1:
        return flat[offset:offset + size]
    step = _sh.numel(shape[dim + 1:])
    return [_nest(flat, shape, dim + 1, offset + i * step) for i in range(size)]


def _fmt_value(v, dtype):
    if not dtype.is_float:
        return repr(v)
    if v - v == 0 and v == int(v) and -1e8 < v < 1e8:  # finite and whole: "2.0"
        return "%.1f" % v
    return "%.6g" % v


def _fmt(flat, shape, strides, dim, offset, elide, dtype):
    size = shape[dim]
    if elide and size > 6:
        picks = (0, 1, 2, -1, size - 3, size - 2, size - 1)
    else:
        picks = range(size)
    parts = []
    for i in picks:
        if i < 0:
            parts.append("...")
        elif dim == len(shape) - 1:
            parts.append(_fmt_value(flat[offset + i], dtype))
        else:
            parts.append(_fmt(flat, shape, strides, dim + 1, offset + i * strides[dim], elide,
                              dtype))
    return "[" + ", ".join(parts) + "]"


def _full(like, shape, value, dtype):
    # A tensor of `shape` filled with `value` on the device of `like` (dtype defaults to
    # like's).
    dtype = dtype or like.dtype
    return like._new(like.backend.full(_sh.numel(shape), value, dtype), shape, dtype)


def _operand(op, t, ref):
    # A scalar becomes a 0-d tensor of ref's dtype (float32 if it is a float and ref is
    # not); a tensor passes through.
    if isinstance(t, Tensor):
        return t
    if not _is_scalar(t):
        raise TypeError(op + ": expected a tensor or a number, got " + type(t).__name__)
    dtype = _dt.float32 if isinstance(t, float) and not ref.dtype.is_float else None
    return _full(ref, (), t, dtype)


def matmul(a, b):
    """Matrix product: 1-D operands are promoted to a row/column and the added dim is
    dropped; leading batch dims broadcast."""
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise TypeError("matmul: both operands must be tensors")
    if a.dtype is not b.dtype:
        raise TypeError("matmul: dtypes " + repr(a.dtype) + " and " + repr(b.dtype) +
                        " differ; convert one with .to(dtype)")
    if a.dtype is _dt.bool_:
        raise TypeError("matmul: not supported for burn.bool tensors")
    if a.device != b.device:
        raise ValueError("matmul: tensors are on different devices " + repr(a.device.name) +
                         " and " + repr(b.device.name))
    if not a.shape or not b.shape:
        raise ValueError("matmul: both operands need at least 1 dim, got shapes " +
                         repr(a.shape) + " and " + repr(b.shape))
    sa = a.shape if len(a.shape) > 1 else (1,) + a.shape
    sb = b.shape if len(b.shape) > 1 else b.shape + (1,)
    m, k = sa[-2:]
    n = sb[-1]
    if k != sb[-2]:
        raise ValueError("matmul: shapes " + repr(a.shape) + " and " + repr(b.shape) +
                         " do not match")
    try:
        batch = _sh.broadcast("matmul", sa[:-2], sb[:-2])
    except ValueError:
        raise ValueError("matmul: shapes " + repr(a.shape) + " and " + repr(b.shape) +
                         " do not broadcast")
    nb = _sh.numel(batch)
    ah, a3 = _batch_operand(a, sa, batch, nb)
    bh, b3 = _batch_operand(b, sb, batch, nb)
    h = a.backend.matmul(ah, a3, bh, b3, (nb, m, n), a.dtype)
    shape = batch + ((m,) if len(a.shape) > 1 else ()) + ((n,) if len(b.shape) > 1 else ())
    return a._new(h, shape)


def _batch_operand(t, shape, batch, nb):
    # (handle, rank-3 shape) of `t` seen as [B, rows, cols]: batch 1 broadcasts inside the
    # primitive; a partial broadcast is materialised with expand.
    rows, cols = shape[-2:]
    own = shape[:-2]
    if _sh.numel(own) == 1:
        return t.handle, (1, rows, cols)
    if own != batch:
        t = t.reshape(shape).expand(batch + (rows, cols))
    return t.handle, (nb, rows, cols)


def where(cond, a, b):
    """Elementwise `a if cond else b` with broadcasting; a and b may be numbers."""
    if not isinstance(cond, Tensor) or cond.dtype is not _dt.bool_:
        got = repr(cond.dtype) if isinstance(cond, Tensor) else type(cond).__name__
        raise TypeError("where: condition must be a burn.bool tensor, got " + got)
    ref = a if isinstance(a, Tensor) else b
    if not isinstance(ref, Tensor):
        ref = _full(cond, (), 0, _dt.int32)
    if (isinstance(a, float) or isinstance(b, float)) and not ref.dtype.is_float:
        ref = ref.float()
        a = a.float() if isinstance(a, Tensor) else a
        b = b.float() if isinstance(b, Tensor) else b
    a = _operand("where", a, ref)
    b = _operand("where", b, ref)
    if a.dtype is not b.dtype:
        raise TypeError("where: dtypes " + repr(a.dtype) + " and " + repr(b.dtype) +
                        " differ; convert one with .to(dtype)")
    if a.device != cond.device or b.device != cond.device:
        raise ValueError("where: tensors are on different devices")
    try:
        out = _sh.broadcast("where", _sh.broadcast("where", cond.shape, a.shape), b.shape)
    except ValueError:
        raise ValueError("where: shapes " + repr(cond.shape) + ", " + repr(a.shape) +
                         " and " + repr(b.shape) + " do not broadcast")
    h = a.backend.where(cond.handle, cond.shape, a.handle, a.shape, b.handle, b.shape, out,
                        a.dtype)
    return a._new(h, out)


def maximum(a, b):
    """Elementwise maximum of two tensors (or a tensor and a number)."""
    return _operand("maximum", a, b)._binary("maximum", b)


def minimum(a, b):
    """Elementwise minimum of two tensors (or a tensor and a number)."""
    return _operand("minimum", a, b)._binary("minimum", b)


def _unary_method(op):
    def method(self):
        return self._unary(op)
    return method


def _binary_method(op, reflected):
    def method(self, other):
        return self._binary(op, other, reflected)
    return method


for _op in ("exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "relu", "floor",
            "ceil", "round", "sign", "abs", "neg", "reciprocal", "erf"):
    setattr(Tensor, _op, _unary_method(_op))
Tensor.__neg__ = Tensor.neg
Tensor.__abs__ = Tensor.abs

for _op, _names in (("add", ("add", "__add__", "__radd__")), ("sub", ("sub", "__sub__")),
                    ("mul", ("mul", "__mul__", "__rmul__")), ("div", ("div", "__truediv__")),
                    ("floordiv", ("__floordiv__",)), ("mod", ("__mod__",)),
                    ("pow", ("pow", "__pow__")), ("maximum", ("maximum",)),
                    ("minimum", ("minimum",)), ("and", ("__and__", "__rand__")),
                    ("or", ("__or__", "__ror__")), ("xor", ("__xor__", "__rxor__")),
                    ("eq", ("eq",)), ("ne", ("ne",)), ("lt", ("lt", "__lt__")),
                    ("le", ("le", "__le__")), ("gt", ("gt", "__gt__")),
                    ("ge", ("ge", "__ge__"))):
    for _name in _names:
        setattr(Tensor, _name, _binary_method(_op, False))
for _op, _name in (("sub", "__rsub__"), ("div", "__rtruediv__"),
                   ("floordiv", "__rfloordiv__"), ("mod", "__rmod__"), ("pow", "__rpow__")):
    setattr(Tensor, _name, _binary_method(_op, True))
