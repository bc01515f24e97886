"""The `pure` backend: the reference implementation of every primitive, in plain Python
over flat row-major `array` storage ('f' float32, 'b' int8, 'B' uint8 and bool, 'i' int32).

It runs unchanged on CPython and MicroPython; matmul, conv2d and pool2d call the hot loops
in `burn.kernels` (viper twins on MicroPython). Integer results wrap like C; float->int
casts truncate toward zero (NaN and infinities give 0); bools are 0/1.
"""

from burn.backends import COMPARE_OPS, register
from burn.backends import pure_storage as storage
from burn.backends.pure_layout import (
    alloc,
    broadcast_map,
    gather_view,
    numel,
    strided_copy,
    strides,
)
from burn.backends.pure_math import binary_row, clamp_row, unary_row, where_row
from burn.backends.pure_reduce import reduce as _reduce
from burn.dtype import bool_, int32


def _acc_typecode(dtype):
    # matmul/conv accumulate integers as exact int32 sums, floats as float32.
    return "f" if dtype.is_float else "i"


def _from_acc(out, dtype):
    # int32 accumulators wrap like C into narrower integer dtypes.
    if dtype.is_float or dtype is int32:
        return out
    return storage.pack(out, dtype)


class PureBackend:
    """Reference backend over flat `array` storage; `burn.backend.Backend` documents each
    primitive. It implements all of them itself and does not derive from that class, so a
    board never loads the protocol's documentation methods."""

    name = "pure"

    # -- storage -----------------------------------------------------------------------
    def from_flat(self, values, dtype):
        return storage.pack(values, dtype)

    def from_bytes(self, buf, dtype):
        return storage.from_bytes(buf, dtype)

    def to_flat(self, h, n, dtype):
        return h[:n]

    def to_bytes(self, h, n, dtype):
        return storage.to_bytes(h, n)

    def full(self, n, value, dtype):
        if value == 0:
            return alloc(dtype.typecode, n)
        return storage.pack([value] * n, dtype)

    def arange(self, start, step, n, dtype):
        return storage.pack([start + i * step for i in range(n)], dtype)

    def random(self, values, dtype):
        return storage.pack(values, dtype)

    def cast(self, h, n, src, dst):
        return storage.cast(h, n, src, dst)

    # -- elementwise -------------------------------------------------------------------
    def unary(self, op, h, n, dtype):
        out = alloc(dtype.typecode, n)
        return broadcast_map(unary_row(op, dtype), [(h, (n,))], (n,), out)

    def binary(self, op, a, a_shape, b, b_shape, out_shape, dtype):
        tc = "B" if op in COMPARE_OPS else dtype.typecode
        out = alloc(tc, numel(out_shape))
        return broadcast_map(binary_row(op, dtype), [(a, a_shape), (b, b_shape)],
                             out_shape, out)

    def where(self, c, c_shape, a, a_shape, b, b_shape, out_shape, dtype):
        out = alloc(dtype.typecode, numel(out_shape))
        return broadcast_map(where_row(dtype), [(c, c_shape), (a, a_shape), (b, b_shape)],
                             out_shape, out)

    def clamp(self, h, n, lo, hi, dtype):
        if lo is None and hi is None:
            return h[:n]
        out = alloc(dtype.typecode, n)
        return broadcast_map(clamp_row(lo, hi, dtype), [(h, (n,))], (n,), out)

    # -- reductions --------------------------------------------------------------------
    def reduce(self, op, h, shape, dim, dtype):
        return _reduce(op, h, shape, dim, dtype)

    # -- layout ------------------------------------------------------------------------
    def permute(self, h, shape, perm, dtype):
        st = strides(shape)
        return gather_view(h, 0, [st[p] for p in perm], [shape[p] for p in perm],
                           dtype.typecode)

    def expand(self, h, shape, out_shape, dtype):
        st = strides(shape)
        view = [0 if shape[i] == 1 else st[i] for i in range(len(shape))]
        return gather_view(h, 0, view, out_shape, dtype.typecode)

    def slice(self, h, shape, starts, steps, out_shape, dtype):
        st = strides(shape)
        offset = 0
        for i in range(len(shape)):
            offset += starts[i] * st[i]
        view = [st[i] * steps[i] for i in range(len(shape))]
        return gather_view(h, offset, view, out_shape, dtype.typecode)

    def cat(self, hs, shapes, dim, dtype):
        outer = numel(shapes[0][:dim])
        inner = numel(shapes[0][dim + 1:])
        blocks = [s[dim] * inner for s in shapes]
        total = sum(blocks)
        out = alloc(dtype.typecode, outer * total)
        pos = 0
        for o in range(outer):
            for h, blk in zip(hs, blocks):
                out[pos:pos + blk] = h[o * blk:(o + 1) * blk]
                pos += blk
        return out

    def pad(self, h, shape, pads, value, dtype):
        out_shape = [s + p[0] + p[1] for s, p in zip(shape, pads)]
        out = self.full(numel(out_shape), value, dtype)
        ost = strides(out_shape)
        off = 0
        for i in range(len(shape)):
            off += pads[i][0] * ost[i]
        strided_copy(h, 0, strides(shape), out, off, ost, shape, dtype.typecode)
        return out

    def gather(self, h, shape, dim, idx, n_idx, dtype):
        outer = numel(shape[:dim])
        size = shape[dim]
        inner = numel(shape[dim + 1:])
        out = alloc(dtype.typecode, outer * n_idx * inner)
        pos = 0
        for o in range(outer):
            for t in range(n_idx):
                s = (o * size + idx[t]) * inner
                out[pos:pos + inner] = h[s:s + inner]
                pos += inner
        return out

    # -- linear algebra and convolution ------------------------------------------------
    def matmul(self, a, a_shape, b, b_shape, out_shape, dtype):
        from burn.kernels.matmul import matmul

        batch, m, n = out_shape
        k = a_shape[2]
        out = alloc(_acc_typecode(dtype), batch * m * n)
        matmul(a, b, out, batch, m, k, n, m * k if a_shape[0] > 1 else 0,
               k * n if b_shape[0] > 1 else 0)
        return _from_acc(out, dtype)

    def conv2d(self, x, x_shape, w, w_shape, bias, stride, padding, dilation, groups,
               out_shape, dtype):
        from burn.kernels.conv import conv2d

        n, c, h, wd = x_shape
        o, _, kh, kw = w_shape
        oh, ow = out_shape[2], out_shape[3]
        out = alloc(_acc_typecode(dtype), n * o * oh * ow)
        conv2d(x, w, bias, out, n, c, h, wd, o, kh, kw, oh, ow, stride[0], stride[1],
               padding[0], padding[2], dilation[0], dilation[1], groups)
        return _from_acc(out, dtype)

    def pool2d(self, op, x, x_shape, kernel, stride, padding, dilation, ceil_mode,
               count_include_pad, out_shape, dtype):
        from burn.kernels.pool import pool2d

        n, c, h, wd = x_shape
        oh, ow = out_shape[2], out_shape[3]
        out = alloc(dtype.typecode, n * c * oh * ow)
        pool2d(op == "max", x, out, n, c, h, wd, kernel[0], kernel[1], oh, ow, stride[0],
               stride[1], padding[0], padding[2], dilation[0], dilation[1],
               count_include_pad, padding[1], padding[3])
        if dtype is bool_:
            return storage.pack(out, bool_)
        return out


PURE = register(PureBackend())
