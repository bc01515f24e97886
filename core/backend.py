"""The primitive-op protocol every backend implements, and the backend registry.

The registry (register, get, names) and COMPARE_OPS live in `burn.backends`, so that a
board running the `pure` backend does not load the `Backend` class below; they are
re-exported here.

A backend owns storage. A storage *handle* is opaque to everyone but its backend (the
`pure` backend uses a flat, contiguous, row-major `array`; numpy uses an ndarray; Autodiff
wraps another backend's handle). `Tensor` keeps shape and dtype itself and passes them to
every primitive, so a backend never has to store them.

Conventions for all primitives:
- shapes are tuples of ints; `n` is an element count; every handle is contiguous row-major
  from the caller's point of view.
- `dtype` arguments are `burn.dtype` singletons; integer results wrap like C (two's
  complement), float results are float32.
- a primitive never validates user input: `Tensor` checks shapes and dtypes first and raises
  the user-facing error. Primitives may assume valid arguments.

Composite ops (softmax, layer norm, gelu, var, ...) are written once over these primitives in
`burn.ops`; a backend may override a composite by defining a method of the same name.
"""

from burn.backends import COMPARE_OPS, get, names, register  # noqa: F401

UNARY_OPS = (
    "neg", "abs", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid",
    "relu", "floor", "ceil", "round", "sign", "erf", "reciprocal", "not",
)
BINARY_OPS = (
    "add", "sub", "mul", "div", "floordiv", "mod", "pow", "maximum", "minimum",
    "eq", "ne", "lt", "le", "gt", "ge", "and", "or", "xor",
)
REDUCE_OPS = ("sum", "prod", "max", "min", "argmax", "argmin")
POOL_OPS = ("max", "avg")


class Backend:
    """Base class: documents each primitive. Subclasses implement all of them."""

    name = "base"

    # -- storage -----------------------------------------------------------------------
    def from_flat(self, values, dtype):
        """Handle holding `values` (a flat list or array of Python numbers) as `dtype`."""
        raise NotImplementedError(self.name + ".from_flat")

    def from_bytes(self, buf, dtype):
        """Handle from little-endian raw bytes (bytes, bytearray or memoryview)."""
        raise NotImplementedError(self.name + ".from_bytes")

    def to_flat(self, h, n, dtype):
        """Flat row-major sequence (list or array) of the `n` Python numbers in `h`."""
        raise NotImplementedError(self.name + ".to_flat")

    def to_bytes(self, h, n, dtype):
        """Little-endian raw bytes of `h`."""
        raise NotImplementedError(self.name + ".to_bytes")

    def full(self, n, value, dtype):
        """Handle of `n` copies of `value`."""
        raise NotImplementedError(self.name + ".full")

    def arange(self, start, step, n, dtype):
        """Handle of start, start+step, ... (`n` values)."""
        raise NotImplementedError(self.name + ".arange")

    def random(self, values, dtype):
        """Handle from a flat list of random floats made by burn.random (same stream on
        every backend and interpreter)."""
        return self.from_flat(values, dtype)

    def cast(self, h, n, src, dst):
        """Convert `n` elements from dtype `src` to `dst` (float->int truncates toward
        zero then wraps; anything->bool is `!= 0`)."""
        raise NotImplementedError(self.name + ".cast")

    # -- elementwise -------------------------------------------------------------------
    def unary(self, op, h, n, dtype):
        """Apply the UNARY_OPS entry `op` to every element; result has the same dtype."""
        raise NotImplementedError(self.name + ".unary")

    def binary(self, op, a, a_shape, b, b_shape, out_shape, dtype):
        """Elementwise BINARY_OPS entry `op` with numpy broadcasting. Inputs share `dtype`;
        the result is bool for COMPARE_OPS, else `dtype`. `b` may be a Python scalar, in
        which case `b_shape` is ()."""
        raise NotImplementedError(self.name + ".binary")

    def where(self, c, c_shape, a, a_shape, b, b_shape, out_shape, dtype):
        """Elementwise `a if c else b` with broadcasting; `c` is bool, `a`/`b` are `dtype`."""
        raise NotImplementedError(self.name + ".where")

    def clamp(self, h, n, lo, hi, dtype):
        """Clamp every element to [lo, hi]; either bound may be None."""
        raise NotImplementedError(self.name + ".clamp")

    # -- reductions --------------------------------------------------------------------
    def reduce(self, op, h, shape, dim, dtype):
        """Reduce REDUCE_OPS entry `op` over axis `dim` (an int). The result has `shape`
        with that axis set to 1. argmax/argmin give int32 (first index on ties); the rest
        keep `dtype`."""
        raise NotImplementedError(self.name + ".reduce")

    # -- layout ------------------------------------------------------------------------
    def permute(self, h, shape, perm, dtype):
        """Contiguous copy with axes reordered: output axis i is input axis perm[i]."""
        raise NotImplementedError(self.name + ".permute")

    def expand(self, h, shape, out_shape, dtype):
        """Broadcast `h` (same rank as out_shape, size-1 axes stretched) to `out_shape`."""
        raise NotImplementedError(self.name + ".expand")

    def slice(self, h, shape, starts, steps, out_shape, dtype):
        """Strided sub-block: output[i..] = input[starts[k] + i_k * steps[k] ...]; steps
        may be negative. One start/step per axis."""
        raise NotImplementedError(self.name + ".slice")

    def cat(self, hs, shapes, dim, dtype):
        """Concatenate handles along axis `dim` (shapes agree elsewhere)."""
        raise NotImplementedError(self.name + ".cat")

    def pad(self, h, shape, pads, value, dtype):
        """Constant padding; pads is a list of (before, after) per axis, all >= 0."""
        raise NotImplementedError(self.name + ".pad")

    def gather(self, h, shape, dim, idx, n_idx, dtype):
        """Select entries along axis `dim` by the int32 handle `idx` (n_idx valid,
        non-negative indices): output shape is shape with shape[dim] -> n_idx."""
        raise NotImplementedError(self.name + ".gather")

    # -- linear algebra and convolution ------------------------------------------------
    def matmul(self, a, a_shape, b, b_shape, out_shape, dtype):
        """Batched matmul of rank-3 operands [B?, M, K] @ [B?, K, N] -> out_shape
        [B, M, N]; a batch of 1 broadcasts. int dtypes accumulate in int32 and wrap to
        dtype."""
        raise NotImplementedError(self.name + ".matmul")

    def conv2d(self, x, x_shape, w, w_shape, bias, stride, padding, dilation, groups,
               out_shape, dtype):
        """NCHW x [N, C, H, W], OIHW w [O, C/groups, kh, kw], bias handle of [O] or None.
        stride, dilation are (sh, sw); padding is (top, bottom, left, right) with zeros."""
        raise NotImplementedError(self.name + ".conv2d")

    def pool2d(self, op, x, x_shape, kernel, stride, padding, dilation, ceil_mode,
               count_include_pad, out_shape, dtype):
        """POOL_OPS entry `op` over NCHW windows. padding is (top, bottom, left, right);
        max pads with -inf, avg divides by the window size inside the padded input when
        count_include_pad else by the number of real elements."""
        raise NotImplementedError(self.name + ".pool2d")
