"""Strided walks over flat row-major arrays: the machinery behind broadcasting, permute,
expand, slice and pad in the pure backend.

Every walk first merges the axes of the output into as few as possible (size-1 axes are
dropped; neighbours that are contiguous in every operand become one), then visits the
output one innermost row at a time. Only the row starts use index arithmetic; each row is
moved with a slice, a repeat or one comprehension.
"""

from array import array

from burn.shape import numel

ITEMSIZE = {"f": 4, "b": 1, "B": 1, "i": 4}


def alloc(tc, n):
    """A zero-filled array of typecode `tc` and length `n`."""
    return array(tc, bytes(n * ITEMSIZE[tc]))


def strides(shape):
    """Row-major element strides of a contiguous array of `shape`."""
    st = [1] * len(shape)
    acc = 1
    for i in range(len(shape) - 1, -1, -1):
        st[i] = acc
        acc *= shape[i]
    return st


def broadcast_strides(shape, out_shape):
    """Strides of a contiguous `shape` seen as `out_shape` (numpy broadcasting): 0 on the
    axes it lacks or stretches from size 1."""
    lead = len(out_shape) - len(shape)
    st = strides(shape)
    return [0] * lead + [0 if shape[i] == 1 else st[i] for i in range(len(shape))]


def merge_axes(shape, stride_lists):
    """(dims, merged stride lists) equivalent to walking `shape` with every stride list."""
    dims = []
    merged = [[] for _ in stride_lists]
    for ax in range(len(shape)):
        size = shape[ax]
        if size == 1:
            continue
        if dims and all(m[-1] == s[ax] * size for m, s in zip(merged, stride_lists)):
            dims[-1] *= size
            for m, s in zip(merged, stride_lists):
                m[-1] = s[ax]
        else:
            dims.append(size)
            for m, s in zip(merged, stride_lists):
                m.append(s[ax])
    if not dims:
        return [1], [[0] for _ in stride_lists]
    return dims, merged


def row_starts(dims, stride_lists, offsets):
    """Yield, for every innermost row of `dims`, the list of operand offsets (updated in
    place: read it before advancing)."""
    cur = list(offsets)
    nd = len(dims) - 1
    idx = [0] * nd
    k = len(cur)
    while True:
        yield cur
        ax = nd - 1
        while ax >= 0:
            idx[ax] += 1
            for j in range(k):
                cur[j] += stride_lists[j][ax]
            if idx[ax] < dims[ax]:
                break
            for j in range(k):
                cur[j] -= stride_lists[j][ax] * dims[ax]
            idx[ax] = 0
            ax -= 1
        if ax < 0:
            return


def read_row(h, off, stride, n):
    """The `n` values of `h` from `off` by `stride` (0 repeats one value; any sign)."""
    if stride == 1:
        return h[off:off + n]
    if stride == 0:
        return [h[off]] * n
    return [h[i] for i in range(off, off + n * stride, stride)]


def strided_copy(src, src_off, src_strides, dst, dst_off, dst_strides, shape, tc):
    """Copy the block `shape` read from `src` with `src_strides` into `dst` laid out with
    `dst_strides` (both starting at the given offsets)."""
    if numel(shape) == 0:
        return
    dims, (ss, ds) = merge_axes(shape, [src_strides, dst_strides])
    n = dims[-1]
    sin = ss[-1]
    din = ds[-1]
    for s, d in row_starts(dims, [ss, ds], [src_off, dst_off]):
        if din == 1:
            row = read_row(src, s, sin, n)
            dst[d:d + n] = row if sin == 1 else array(tc, row)
        else:
            for i in range(n):
                dst[d + i * din] = src[s + i * sin]


def gather_view(h, offset, view_strides, out_shape, tc):
    """A new contiguous array of `out_shape` read from `h` at `offset` + view strides."""
    out = alloc(tc, numel(out_shape))
    strided_copy(h, offset, view_strides, out, 0, strides(out_shape), out_shape, tc)
    return out


# Rows longer than this are processed in pieces, bounding temporary lists on small heaps.
CHUNK = 256


def broadcast_map(fn, operands, out_shape, out):
    """Fill `out` (a contiguous array of `out_shape`) by applying the row function `fn` to
    broadcast operands, and return it.

    `operands` is a list of (array or Python scalar, shape); `fn` takes one sequence per
    operand (equal lengths) and returns an array of the typecode of `out`.
    """
    if numel(out_shape) == 0:
        return out
    dims, sts = merge_axes(out_shape, [broadcast_strides(s, out_shape) for _, s in operands])
    hs = [h for h, _ in operands]
    inner = [s[-1] for s in sts]
    row_len = dims[-1]
    pos = 0
    for offs in row_starts(dims, sts, [0] * len(hs)):
        for c in range(0, row_len, CHUNK):
            m = min(CHUNK, row_len - c)
            rows = [_operand_row(h, off + c * st, st, m)
                    for h, off, st in zip(hs, offs, inner)]
            out[pos:pos + m] = fn(*rows)
            pos += m
    return out


def _operand_row(h, off, stride, n):
    if isinstance(h, array):
        return read_row(h, off, stride, n)
    return [h] * n
