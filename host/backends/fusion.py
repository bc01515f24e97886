"""`Fusion(backend)`: a backend decorator that defers float32 elementwise ops and runs each
chain of them as one kernel.

Elementwise primitives (`unary`, `binary`, `where`, `clamp`, the bool-to-float `cast`) on
float32 values are not run at once: each returns a pending handle that records the call.
Any other primitive, or reading a value, *materialises* its pending inputs: the recorded
chain runs as one generated kernel where the inner backend can compile one (CuPy:
burn.host.backends.fusion_cuda), else call by call on the inner backend, exactly as
unfused. Everything else is forwarded to the inner backend op by op. It composes like
Autodiff: `Autodiff(Fusion(cupy))` is `autodiff<fusion<cupy>>`.
"""

import types

import burn
from burn import backend as _backend
from burn import dtype as _dt

F32 = _dt.float32
BOOL = _dt.bool_

# Ops a generated kernel computes as the inner backend does (see fusion_cuda).
FUSED_UNARY = ("neg", "abs", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh",
               "sigmoid", "relu", "floor", "ceil", "round", "sign", "reciprocal")
FUSED_BINARY = ("add", "sub", "mul", "div", "maximum", "minimum",
                "eq", "ne", "lt", "le", "gt", "ge")
# A chain longer than this is cut: its inputs are materialised first.
MAX_CHAIN = 48
# The gradient and composite fast paths of an inner backend, forwarded over handles.
FAST_PATHS = ("conv2d_grad_input", "conv2d_grad_weight", "max_pool_grad", "avg_pool_grad",
              "log_softmax_forward", "linear_forward", "linear_backward",
              "conv2d_keep_columns", "conv2d_grad_weight_kept",
              "batch_norm_forward", "batch_norm_backward", "cross_entropy_forward",
              "cross_entropy_backward")
_PLAIN = (int, float, bool, str, type(None))


class Lazy:
    """A Fusion handle: an inner handle (`value`), or a pending elementwise call
    (`call`: the primitive's name and arguments, with Lazy inputs) of `shape` and `dtype`.
    `ops` counts the pending calls the chain holds."""

    __slots__ = ("call", "dtype", "ops", "shape", "value")

    def __init__(self, value=None, call=None, shape=None, dtype=None, ops=0):
        self.value = value
        self.call = call
        self.shape = shape
        self.dtype = dtype
        self.ops = ops


class Fusion(_backend.Backend):
    """Wraps `inner` (a Backend); `compiler` makes the fused kernels (None: replay the
    chain call by call). `fusion_cuda.compiler_for(inner)` picks one."""

    def __init__(self, inner, compiler=None):
        self.inner = inner
        self.compiler = compiler
        self.name = "fusion<" + inner.name + ">"
        for name in FAST_PATHS:
            if getattr(inner, name, None) is not None:
                setattr(self, name, types.MethodType(_passthrough(name), self))

    # -- pending chains ----------------------------------------------------------------
    def run(self, h):
        """The inner handle of `h`, running its pending chain if it has one."""
        if h.call is None:
            return h.value
        value = self.compiler(h) if self.compiler is not None else self._replay(h, {})
        h.value, h.call, h.ops = value, None, 0
        return value

    unwrap = run

    def wrap(self, value, n):
        """A Fusion handle around the inner handle `value` (of n elements)."""
        return Lazy(value)

    def _replay(self, h, done):
        """Run `h`'s chain call by call on the inner backend (`done`: results by node)."""
        if h.call is None:
            return h.value
        key = id(h)
        if key not in done:
            name, args = h.call
            done[key] = getattr(self.inner, name)(*[
                self._replay(a, done) if isinstance(a, Lazy) else a for a in args])
        return done[key]

    def _input(self, h, shape):
        """`h` as an input of a new pending call that sees it with `shape`: a pending
        chain is extended only when its own shape lines up with `shape` (right-aligned)
        and it is short enough, else it is materialised first."""
        if h.call is not None and (h.ops >= MAX_CHAIN or
                                   _squeezed(h.shape) != _squeezed(shape)):
            self.run(h)
        return h

    def _pending(self, name, args, shape, dtype):
        ops = 1 + sum(a.ops for a in args if isinstance(a, Lazy))
        return Lazy(call=(name, args), shape=tuple(shape), dtype=dtype, ops=ops)

    def _unwrap(self, a):
        if isinstance(a, Lazy):
            return self.run(a)
        if isinstance(a, (list, tuple)):
            return type(a)(self._unwrap(x) for x in a)
        return a

    def _wrap(self, r):
        if isinstance(r, (list, tuple)):
            return type(r)(self._wrap(x) for x in r)
        if isinstance(r, _PLAIN) or hasattr(r, "is_float"):
            return r
        return Lazy(r)

    # -- storage -----------------------------------------------------------------------
    def to_flat(self, h, n, dtype):
        return self.inner.to_flat(self.run(h), n, dtype)

    def to_bytes(self, h, n, dtype):
        return self.inner.to_bytes(self.run(h), n, dtype)

    # -- fused elementwise -------------------------------------------------------------
    def cast(self, h, n, src, dst):
        if src is BOOL and dst is F32:
            shape = h.shape if h.call is not None else (n,)
            return self._pending("cast", (self._input(h, shape), n, src, dst), shape, F32)
        return self._wrap(self.inner.cast(self.run(h), n, src, dst))

    def unary(self, op, h, n, dtype):
        if dtype is F32 and op in FUSED_UNARY:
            shape = h.shape if h.call is not None else (n,)
            return self._pending("unary", (op, self._input(h, shape), n, dtype), shape, F32)
        return self._wrap(self.inner.unary(op, self.run(h), n, dtype))

    def binary(self, op, a, a_shape, b, b_shape, out_shape, dtype):
        if dtype is F32 and op in FUSED_BINARY:
            lb = self._input(b, b_shape) if isinstance(b, Lazy) else b
            out = BOOL if op in _backend.COMPARE_OPS else F32
            return self._pending("binary", (op, self._input(a, a_shape), a_shape, lb, b_shape,
                                            out_shape, dtype), out_shape, out)
        b = self.run(b) if isinstance(b, Lazy) else b
        return self._wrap(self.inner.binary(op, self.run(a), a_shape, b, b_shape, out_shape,
                                            dtype))

    def where(self, c, c_shape, a, a_shape, b, b_shape, out_shape, dtype):
        if dtype is F32:
            args = (self._input(c, c_shape), c_shape, self._input(a, a_shape), a_shape,
                    self._input(b, b_shape), b_shape, out_shape, dtype)
            return self._pending("where", args, out_shape, F32)
        return self._wrap(self.inner.where(self.run(c), c_shape, self.run(a), a_shape,
                                           self.run(b), b_shape, out_shape, dtype))

    def clamp(self, h, n, lo, hi, dtype):
        if dtype is F32:
            shape = h.shape if h.call is not None else (n,)
            return self._pending("clamp", (self._input(h, shape), n, lo, hi, dtype), shape,
                                 F32)
        return self._wrap(self.inner.clamp(self.run(h), n, lo, hi, dtype))


def _squeezed(shape):
    """`shape` without leading 1s: two shapes equal so broadcast alike."""
    shape = tuple(shape)
    while shape and shape[0] == 1:
        shape = shape[1:]
    return shape


def _passthrough(name):
    """A method running the inner primitive `name` over materialised handles, its result
    wrapped."""

    def call(self, *args):
        return self._wrap(getattr(self.inner, name)(*[self._unwrap(a) for a in args]))

    call.__name__ = name
    return call


for _name in ("from_flat", "from_bytes", "full", "arange", "random", "reduce", "permute",
              "expand", "slice", "cat", "pad", "gather", "matmul", "conv2d", "pool2d"):
    setattr(Fusion, _name, _passthrough(_name))


def fusion_device(inner="numpy"):
    """The Device `fusion<inner>` (registered on first use), with CUDA kernels when `inner`
    is a cupy backend."""
    name = "fusion<" + inner + ">"
    if name not in _backend.names():
        from .fusion_cuda import compiler_for

        base = burn.device(inner).backend
        _backend.register(Fusion(base, compiler_for(base)))
    return burn.device(name)
