"""`Autodiff(backend)`: reverse-mode differentiation as a backend decorator.

Every primitive runs the inner backend's forward and, when an input requires grad, records
a Node whose backward rule sits right here, next to the forward. Gradients are inner
handles computed with the inner backend's own primitives, so Autodiff works over any
backend (pure, numpy, flex, cupy). Composite ops (softmax, layer norm, ...) decompose into
these primitives, so they need no rules of their own.
"""

from burn import backend as _backend
from burn import dtype as _dt

from ..backends.window import pool_divisors
from . import fused
from .graph import Node, grad_enabled, run_backward
from .helpers import Inner


class Autodiff(_backend.Backend):
    """Wraps `inner` (a Backend) and records the operations needed for `backward`."""

    def __init__(self, inner):
        self.inner = inner
        self.name = "autodiff<" + inner.name + ">"
        self.k = Inner(inner)

    # -- graph helpers -----------------------------------------------------------------
    def _out(self, value, size, parents, backward):
        if grad_enabled() and any(p.requires_grad for p in parents):
            return Node(value, size, tuple(parents), backward, True)
        return Node(value, size)

    def _leaf(self, value, size):
        return Node(value, size)

    # Composite ops recorded as one node each (Tensor and the losses find them by name).
    batch_norm = fused.batch_norm
    log_softmax = fused.log_softmax
    cross_entropy = fused.cross_entropy
    linear = fused.linear

    # -- gradient API used by Tensor ---------------------------------------------------
    def requires_grad(self, h):
        """Whether `h` takes part in differentiation."""
        return h.requires_grad

    def set_requires_grad(self, h, flag):
        """Mark a leaf as a parameter (or not)."""
        if not h.is_leaf and not flag:
            raise RuntimeError("requires_grad_: only leaf tensors can stop requiring grad; "
                               "use detach()")
        h.requires_grad = bool(flag)

    def grad(self, h):
        """Accumulated gradient of a leaf (inner handle) or None."""
        return h.grad

    def set_grad(self, h, g):
        """Replace (or clear with None) the accumulated gradient of a leaf."""
        h.grad = g

    def detach(self, h):
        """A new leaf sharing the value of `h`, cut from the graph."""
        return Node(h.value, h.size)

    def unwrap(self, h):
        """The inner backend's handle."""
        return h.value

    def wrap(self, value, n):
        """A leaf around an inner handle of n elements."""
        return Node(value, n)

    def backward(self, h, shape, grad=None):
        """Run reverse mode from `h` with seed `grad` (an Autodiff handle or None = 1)."""
        if not h.requires_grad:
            raise RuntimeError("backward: the tensor does not require grad; mark a "
                               "parameter with requires_grad=True before the forward")
        if grad is None:
            if self.k.numel(shape) != 1:
                raise RuntimeError("backward: grad can be implied only for a tensor of one "
                                   "element; pass grad= for shape " + repr(tuple(shape)))
            seed = self.inner.full(1, 1.0, _dt.float32)
        else:
            seed = grad.value
        run_backward(h, seed, self.k.add)

    # -- storage -----------------------------------------------------------------------
    def from_flat(self, values, dtype):
        return self._leaf(self.inner.from_flat(values, dtype), len(values))

    def from_bytes(self, buf, dtype):
        return self._leaf(self.inner.from_bytes(buf, dtype), len(buf) // dtype.itemsize)

    def to_flat(self, h, n, dtype):
        return self.inner.to_flat(h.value, n, dtype)

    def to_bytes(self, h, n, dtype):
        return self.inner.to_bytes(h.value, n, dtype)

    def full(self, n, value, dtype):
        return self._leaf(self.inner.full(n, value, dtype), n)

    def arange(self, start, step, n, dtype):
        return self._leaf(self.inner.arange(start, step, n, dtype), n)

    def random(self, values, dtype):
        return self._leaf(self.inner.random(values, dtype), len(values))

    def cast(self, h, n, src, dst):
        out = self.inner.cast(h.value, n, src, dst)
        if not (src.is_float and dst.is_float):
            return self._leaf(out, n)
        return self._out(out, n, (h,), lambda g: (g,))

    # -- elementwise -------------------------------------------------------------------
    def unary(self, op, h, n, dtype):
        x = h.value
        y = self.inner.unary(op, x, n, dtype)
        rule = _UNARY_RULES.get(op) if dtype.is_float else None
        if rule is None:
            return self._leaf(y, n)
        k = self.k
        return self._out(y, n, (h,), lambda g: (rule(k, x, y, g, n),))

    def binary(self, op, a, a_shape, b, b_shape, out_shape, dtype):
        b_is_node = isinstance(b, Node)
        x = a.value
        y = b.value if b_is_node else b
        out = self.inner.binary(op, x, a_shape, y, b_shape, out_shape, dtype)
        rule = _BINARY_RULES.get(op) if dtype.is_float else None
        if rule is None:
            return self._leaf(out, self.k.numel(out_shape))
        parents = (a, b) if b_is_node else (a,)
        k = self.k

        def backward(g):
            # Gradients are computed only for the inputs that want one (data, one-hot
            # targets and constants do not).
            ga, gb = rule(k, x, a_shape, y, b_shape, out, out_shape, g, a.requires_grad,
                          b_is_node and b.requires_grad)
            ga = k.sum_to(ga, out_shape, a_shape) if ga is not None else None
            if not b_is_node:
                return (ga,)
            gb = k.sum_to(gb, out_shape, b_shape) if gb is not None else None
            return (ga, gb)

        return self._out(out, self.k.numel(out_shape), parents, backward)

    def where(self, c, c_shape, a, a_shape, b, b_shape, out_shape, dtype):
        out = self.inner.where(c.value, c_shape, a.value, a_shape, b.value, b_shape,
                               out_shape, dtype)
        if not dtype.is_float:
            return self._leaf(out, self.k.numel(out_shape))
        k = self.k
        cond = c.value

        def backward(g):
            zero = k.zeros(out_shape)
            ga = k.inner.where(cond, c_shape, g, out_shape, zero, out_shape, out_shape,
                               _dt.float32)
            gb = k.inner.where(cond, c_shape, zero, out_shape, g, out_shape, out_shape,
                               _dt.float32)
            return (k.sum_to(ga, out_shape, a_shape), k.sum_to(gb, out_shape, b_shape))

        return self._out(out, self.k.numel(out_shape), (a, b), backward)

    def clamp(self, h, n, lo, hi, dtype):
        x = h.value
        out = self.inner.clamp(x, n, lo, hi, dtype)
        if not dtype.is_float:
            return self._leaf(out, n)
        k = self.k

        def backward(g):
            mask = k.inner.full(n, 1.0, _dt.float32)
            if lo is not None:
                mask = k.mul(mask, k.compare("ge", x, lo, n), n)
            if hi is not None:
                mask = k.mul(mask, k.compare("le", x, hi, n), n)
            return (k.mul(g, mask, n),)

        return self._out(out, n, (h,), backward)

    # -- reductions --------------------------------------------------------------------
    def reduce(self, op, h, shape, dim, dtype):
        x = h.value
        out = self.inner.reduce(op, x, shape, dim, dtype)
        if not dtype.is_float or op in ("argmax", "argmin"):
            return self._leaf(out, self.k.numel(shape) // max(shape[dim], 1))
        k = self.k
        out_shape = tuple(1 if i == dim else s for i, s in enumerate(shape))
        n = k.numel(shape)

        def backward(g):
            ge = k.inner.expand(g, out_shape, shape, _dt.float32)
            if op == "sum":
                return (ge,)
            ye = k.inner.expand(out, out_shape, shape, _dt.float32)
            if op == "prod":
                return (k.div(k.mul(ge, ye, n), x, n),)
            # max/min: split the gradient evenly between tied extremes.
            mask = k.cast_float(k.inner.binary("eq", x, shape, ye, shape, shape,
                                               _dt.float32), n)
            count = k.inner.reduce("sum", mask, shape, dim, _dt.float32)
            count = k.inner.expand(count, out_shape, shape, _dt.float32)
            return (k.div(k.mul(ge, mask, n), count, n),)

        return self._out(out, self.k.numel(out_shape), (h,), backward)

    # -- layout ------------------------------------------------------------------------
    def permute(self, h, shape, perm, dtype):
        out = self.inner.permute(h.value, shape, perm, dtype)
        inverse = [0] * len(perm)
        for i, p in enumerate(perm):
            inverse[p] = i
        out_shape = tuple(shape[p] for p in perm)
        return self._out(out, self.k.numel(shape), (h,), lambda g: (
            self.inner.permute(g, out_shape, tuple(inverse), dtype),))

    def expand(self, h, shape, out_shape, dtype):
        out = self.inner.expand(h.value, shape, out_shape, dtype)
        return self._out(out, self.k.numel(out_shape), (h,),
                         lambda g: (self.k.sum_to(g, out_shape, shape),))

    def slice(self, h, shape, starts, steps, out_shape, dtype):
        out = self.inner.slice(h.value, shape, starts, steps, out_shape, dtype)
        return self._out(out, self.k.numel(out_shape), (h,), lambda g: (
            self.k.unslice(g, shape, starts, steps, out_shape),))

    def cat(self, hs, shapes, dim, dtype):
        out = self.inner.cat([h.value for h in hs], shapes, dim, dtype)
        out_shape = list(shapes[0])
        out_shape[dim] = sum(s[dim] for s in shapes)
        out_shape = tuple(out_shape)

        def backward(g):
            grads, offset = [], 0
            for s in shapes:
                starts = tuple(offset if i == dim else 0 for i in range(len(s)))
                grads.append(self.inner.slice(g, out_shape, starts, (1,) * len(s), s,
                                              _dt.float32))
                offset += s[dim]
            return tuple(grads)

        return self._out(out, self.k.numel(out_shape), tuple(hs), backward)

    def pad(self, h, shape, pads, value, dtype):
        out = self.inner.pad(h.value, shape, pads, value, dtype)
        out_shape = tuple(s + p[0] + p[1] for s, p in zip(shape, pads))
        starts = tuple(p[0] for p in pads)
        return self._out(out, self.k.numel(out_shape), (h,), lambda g: (
            self.inner.slice(g, out_shape, starts, (1,) * len(shape), shape, dtype),))

    def gather(self, h, shape, dim, idx, n_idx, dtype):
        index = idx.value if isinstance(idx, Node) else idx
        out = self.inner.gather(h.value, shape, dim, index, n_idx, dtype)
        return self._out(out, self.k.numel(shape) // max(shape[dim], 1) * n_idx, (h,), lambda g: (
            self.k.scatter_add(g, shape, dim, index, n_idx),))

    # -- linear algebra and convolution ------------------------------------------------
    def matmul(self, a, a_shape, b, b_shape, out_shape, dtype):
        x, y = a.value, b.value
        out = self.inner.matmul(x, a_shape, y, b_shape, out_shape, dtype)
        k = self.k

        def backward(g):
            bt_shape = (b_shape[0], b_shape[2], b_shape[1])
            at_shape = (a_shape[0], a_shape[2], a_shape[1])
            bt = k.inner.permute(y, b_shape, (0, 2, 1), dtype) if a.requires_grad else None
            at = k.inner.permute(x, a_shape, (0, 2, 1), dtype) if b.requires_grad else None
            ga_shape = (out_shape[0], a_shape[1], a_shape[2])
            gb_shape = (out_shape[0], b_shape[1], b_shape[2])
            ga = gb = None
            if a.requires_grad:
                ga = k.sum_to(k.inner.matmul(g, out_shape, bt, bt_shape, ga_shape, dtype),
                              ga_shape, a_shape)
            if b.requires_grad:
                gb = k.sum_to(k.inner.matmul(at, at_shape, g, out_shape, gb_shape, dtype),
                              gb_shape, b_shape)
            return (ga, gb)

        return self._out(out, self.k.numel(out_shape), (a, b), backward)

    def conv2d(self, x, x_shape, w, w_shape, bias, stride, padding, dilation, groups,
               out_shape, dtype):
        bias_value = bias.value if bias is not None else None
        parents = (x, w) if bias is None else (x, w, bias)
        k = self.k
        args = (x.value, x_shape, w.value, w_shape, bias_value, stride, padding, dilation,
                groups, out_shape, dtype)
        # The weight gradient reads the input's columns that the forward pass gathered,
        # where the inner backend keeps them (k.conv2d_keep_columns).
        keep = w.requires_grad and hasattr(k, "conv2d_keep_columns")
        out, saved = k.conv2d_keep_columns(*args) if keep else (self.inner.conv2d(*args),
                                                                   x.value)
        wv = w.value

        def backward(g):
            gx = gw = None
            if x.requires_grad:
                gx = k.conv2d_grad_input(g, out_shape, wv, w_shape, x_shape, stride, padding,
                                         dilation, groups)
            if keep:
                gw = k.conv2d_grad_weight_kept(g, out_shape, saved, w_shape, groups)
            elif w.requires_grad:
                gw = k.conv2d_grad_weight(g, out_shape, saved, x_shape, w_shape, stride,
                                          padding, dilation, groups)
            if bias is None:
                return (gx, gw)
            gb = k.inner.permute(g, out_shape, (1, 0, 2, 3), _dt.float32)
            o = out_shape[1]
            rest = out_shape[0] * out_shape[2] * out_shape[3]
            gb = k.inner.reduce("sum", gb, (o, rest), 1, _dt.float32)
            return (gx, gw, gb)

        return self._out(out, self.k.numel(out_shape), parents, backward)

    def pool2d(self, op, x, x_shape, kernel, stride, padding, dilation, ceil_mode,
               count_include_pad, out_shape, dtype):
        xv = x.value
        out = self.inner.pool2d(op, xv, x_shape, kernel, stride, padding, dilation,
                                ceil_mode, count_include_pad, out_shape, dtype)
        if not dtype.is_float:
            return self._leaf(out, self.k.numel(out_shape))
        k = self.k

        def backward(g):
            if op == "max":
                return (k.max_pool_grad(g, out, xv, x_shape, kernel, stride, padding,
                                        dilation, out_shape),)
            divisors = pool_divisors(x_shape, kernel, stride, padding, dilation, out_shape,
                                     count_include_pad)
            return (k.avg_pool_grad(g, divisors, x_shape, kernel, stride, padding,
                                    dilation, out_shape),)

        return self._out(out, self.k.numel(out_shape), (x,), backward)


def _unary_rules():
    """Backward of each differentiable unary op: (k, x, y, g, n) -> grad of x."""
    f32 = _dt.float32

    def zero(k, x, y, g, n):
        return k.inner.full(n, 0.0, f32)

    return {
        "neg": lambda k, x, y, g, n: k.inner.unary("neg", g, n, f32),
        "abs": lambda k, x, y, g, n: k.mul(g, k.inner.unary("sign", x, n, f32), n),
        "exp": lambda k, x, y, g, n: k.mul(g, y, n),
        "log": lambda k, x, y, g, n: k.div(g, x, n),
        "sqrt": lambda k, x, y, g, n: k.div(k.scale(g, 0.5, n), y, n),
        "rsqrt": lambda k, x, y, g, n: k.mul(g, k.scale(k.mul(y, k.mul(y, y, n), n), -0.5, n),
                                             n),
        "sin": lambda k, x, y, g, n: k.mul(g, k.inner.unary("cos", x, n, f32), n),
        "cos": lambda k, x, y, g, n: k.mul(g, k.inner.unary(
            "neg", k.inner.unary("sin", x, n, f32), n, f32), n),
        "tanh": lambda k, x, y, g, n: k.mul(g, k.one_minus(k.mul(y, y, n), n), n),
        "sigmoid": lambda k, x, y, g, n: k.mul(g, k.mul(y, k.one_minus(y, n), n), n),
        "relu": lambda k, x, y, g, n: k.mul(g, k.compare("gt", x, 0.0, n), n),
        "erf": lambda k, x, y, g, n: k.mul(g, k.scale(k.inner.unary(
            "exp", k.inner.unary("neg", k.mul(x, x, n), n, f32), n, f32),
            1.1283791670955126, n), n),
        "reciprocal": lambda k, x, y, g, n: k.mul(g, k.inner.unary(
            "neg", k.mul(y, y, n), n, f32), n),
        "floor": zero, "ceil": zero, "round": zero, "sign": zero,
    }


def _binary_rules():
    """Backward of each differentiable binary op, before un-broadcasting.

    (k, a, a_shape, b, b_shape, out, out_shape, g, need_a, need_b) -> (grad a, grad b), each
    in out_shape, or None where not needed.
    """

    def bmul(k, g, out_shape, v, v_shape):
        return k.inner.binary("mul", g, out_shape, v, v_shape, out_shape, _dt.float32)

    def bdiv(k, g, out_shape, v, v_shape):
        return k.inner.binary("div", g, out_shape, v, v_shape, out_shape, _dt.float32)

    def add(k, a, sa, b, sb, out, so, g, na, bn):
        return g, g

    def sub(k, a, sa, b, sb, out, so, g, na, bn):
        return g, (k.inner.unary("neg", g, k.numel(so), _dt.float32) if bn else None)

    def mul(k, a, sa, b, sb, out, so, g, na, bn):
        return (bmul(k, g, so, b, sb) if na else None), (bmul(k, g, so, a, sa) if bn else None)

    def div(k, a, sa, b, sb, out, so, g, na, bn):
        ga = bdiv(k, g, so, b, sb) if na else None
        gb = None
        if bn:
            gb = k.inner.unary("neg", bdiv(k, bmul(k, g, so, out, so), so, b, sb),
                               k.numel(so), _dt.float32)
        return ga, gb

    def pow_(k, a, sa, b, sb, out, so, g, na, bn):
        n = k.numel(so)
        # d/da a**b = b * a**(b-1) = b * out / a, computed without dividing by a = 0.
        bm1 = k.inner.binary("sub", b, sb, 1.0, (), sb, _dt.float32) if bn else b - 1.0
        a_pow = k.inner.binary("pow", a, sa, bm1, sb if bn else (), so, _dt.float32)
        ga = bmul(k, bmul(k, g, so, a_pow, so), so, b, sb if bn else ())
        gb = None
        if bn:
            if tuple(sa) != tuple(so):
                a = k.inner.expand(a, (1,) * (len(so) - len(sa)) + tuple(sa), so, _dt.float32)
            log_a = k.inner.unary("log", a, n, _dt.float32)
            gb = k.mul(k.mul(g, out, n), log_a, n)
        return ga, gb

    def extreme(op):
        def rule(k, a, sa, b, sb, out, so, g, na, bn):
            n = k.numel(so)
            win_a = k.cast_float(k.inner.binary(op, a, sa, b, sb, so, _dt.float32), n)
            tie = k.cast_float(k.inner.binary("eq", a, sa, b, sb, so, _dt.float32), n)
            share_a = k.add(win_a, k.scale(tie, 0.5, n), n)
            ga = k.mul(g, share_a, n)
            gb = k.mul(g, k.one_minus(share_a, n), n) if bn else None
            return ga, gb
        return rule

    return {"add": add, "sub": sub, "mul": mul, "div": div, "pow": pow_,
            "maximum": extreme("gt"), "minimum": extreme("lt")}


_UNARY_RULES = _unary_rules()
_BINARY_RULES = _binary_rules()

