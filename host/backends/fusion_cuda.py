"""Fused CUDA kernels for Fusion over the cupy backend.

A pending chain (see burn.host.backends.fusion) becomes the body of one CuPy
`ElementwiseKernel`: one local variable per call, each computed as the numpy backend's
primitive computes it on CuPy (the same CUDA math functions in float32, NaN handling of
numpy's maximum and minimum), so results are bit for bit those of the unfused cupy
backend (contraction into fused multiply-adds is off, as it cannot happen across the
separate kernels of the unfused path). Inputs keep their own shapes and broadcast against
the output, as the calls did. Kernels are cached by their source, so one model compiles
each chain shape once.
"""

import numpy as np

_UNARY = {
    "neg": "-{0}", "abs": "fabs({0})", "exp": "exp({0})", "log": "log({0})",
    "sqrt": "sqrt({0})", "rsqrt": "1.0f / sqrt({0})", "sin": "sin({0})", "cos": "cos({0})",
    "tanh": "tanh({0})", "sigmoid": "1.0f / (1.0f + exp(-{0}))",
    "relu": "({0} >= 0.0f || {0} != {0}) ? {0} : 0.0f", "floor": "floor({0})",
    "ceil": "ceil({0})", "round": "rint({0})", "reciprocal": "1.0f / {0}",
    "sign": "{0} > 0.0f ? 1.0f : ({0} < 0.0f ? -1.0f : ({0} == 0.0f ? 0.0f : {0}))",
}
_MAXIMUM = "({0} >= {1} || {0} != {0}) ? {0} : {1}"
_MINIMUM = "({0} <= {1} || {0} != {0}) ? {0} : {1}"
_BINARY = {
    "add": "{0} + {1}", "sub": "{0} - {1}", "mul": "{0} * {1}", "div": "{0} / {1}",
    "maximum": _MAXIMUM, "minimum": _MINIMUM, "eq": "{0} == {1}", "ne": "{0} != {1}",
    "lt": "{0} < {1}", "le": "{0} <= {1}", "gt": "{0} > {1}", "ge": "{0} >= {1}",
}


def compiler_for(inner):
    """A fused-kernel compiler for the backend `inner`, or None where it has none (the
    chain is then replayed call by call)."""
    xp = getattr(inner, "xp", None)
    if xp is None or xp.__name__ != "cupy":
        return None
    return CudaFuser(xp)


class CudaFuser:
    """Turns a pending chain into one ElementwiseKernel launch; returns the flat result."""

    def __init__(self, cupy):
        self.cupy = cupy
        self.kernels = {}

    def __call__(self, root):
        source = _Source()
        out = source.node(root)
        key = (", ".join(source.params), source.ctype(root), "".join(source.lines))
        kernel = self.kernels.get(key)
        if kernel is None:
            out_type = "bool" if key[1] == "bool" else "float32"
            kernel = self.cupy.ElementwiseKernel(
                key[0], out_type + " out_", key[2] + "out_ = " + out + ";", "burn_fused",
                options=("--fmad=false",))
            self.kernels[key] = kernel
        result = self.cupy.empty(root.shape, np.bool_ if key[1] == "bool" else np.float32)
        kernel(*source.args, result)
        return result.reshape(-1)


class _Source:
    """The kernel body of one chain: parameters, their arguments and the statements."""

    def __init__(self):
        self.params, self.args, self.lines = [], [], []
        self.names = {}

    def ctype(self, node):
        return "bool" if node.dtype is not None and node.dtype.name == "bool" else "float"

    def scalar(self, value):
        name = "s%d" % len(self.args)
        self.params.append("float32 " + name)
        self.args.append(np.float32(value))
        return name

    def leaf(self, node, shape):
        key = (id(node), tuple(shape))
        name = self.names.get(key)
        if name is None:
            name = "a%d" % len(self.args)
            value = node.value
            self.params.append(("bool " if value.dtype == np.bool_ else "float32 ") + name)
            self.args.append(value.reshape(shape))
            self.names[key] = name
        return name

    def operand(self, x, shape):
        if not hasattr(x, "call"):
            return self.scalar(x)
        return self.leaf(x, shape) if x.call is None else self.node(x)

    def node(self, node):
        """The variable holding `node`'s value, emitting its statements first."""
        name = self.names.get(id(node))
        if name is not None:
            return name
        kind, args = node.call
        if kind == "unary":
            expr = _UNARY[args[0]].format(self.operand(args[1], node.shape))
        elif kind == "cast":
            expr = self.operand(args[0], node.shape) + " ? 1.0f : 0.0f"
        elif kind == "binary":
            op, a, a_shape, b, b_shape = args[:5]
            expr = _BINARY[op].format(self.operand(a, a_shape), self.operand(b, b_shape))
        elif kind == "where":
            c, a, b = (self.operand(args[i], args[i + 1]) for i in (0, 2, 4))
            expr = "%s ? %s : %s" % (c, a, b)
        else:  # clamp: numpy's maximum with lo, then minimum with hi
            x, lo, hi = self.operand(args[0], node.shape), args[2], args[3]
            if lo is not None:
                x = self._let(_MAXIMUM.format(x, self.scalar(lo)), "float")
            if hi is not None:
                x = self._let(_MINIMUM.format(x, self.scalar(hi)), "float")
            self.names[id(node)] = x
            return x
        name = self._let(expr, self.ctype(node))
        self.names[id(node)] = name
        return name

    def _let(self, expr, ctype):
        name = "t%d" % len(self.lines)
        self.lines.append("%s %s = %s;\n" % (ctype, name, expr))
        return name
