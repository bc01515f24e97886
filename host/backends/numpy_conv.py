"""Convolution and pooling for the numpy backend, forward and backward.

A convolution is one batched matmul (BLAS) over im2col columns; pooling uses strided
window views of the padded input; the gradients scatter window contributions back with
strided adds or one bincount, instead of the generic per-offset primitives.
"""

import numpy as np

from .blas import small_gemm
from .window import pool_frame


def padded(xp, x, pads, fill):
    """`x` [n, c, h, w] with constant padding (top, bottom, left, right)."""
    pt, pb, pl, pr = pads
    if not (pt or pb or pl or pr):
        return x
    n, c, h, w = x.shape
    out = xp.full((n, c, h + pt + pb, w + pl + pr), fill, dtype=x.dtype)
    out[:, :, pt:pt + h, pl:pl + w] = x  # much cheaper than numpy's general pad
    return out


def windows(xp, xpad, kernel, stride, dilation, out_hw):
    """Strided view [n, c, oh, ow, kh, kw] of the windows of an already padded input."""
    n, c = xpad.shape[:2]
    sn, sc, sh_, sw_ = xpad.strides
    oh, ow = out_hw
    return xp.lib.stride_tricks.as_strided(
        xpad, (n, c, oh, ow, kernel[0], kernel[1]),
        (sn, sc, sh_ * stride[0], sw_ * stride[1], sh_ * dilation[0], sw_ * dilation[1]))


def _offset_slices(kernel, stride, dilation, out_hw):
    """(i, j, row slice, column slice) of each kernel offset over a padded input."""
    oh, ow = out_hw
    for i in range(kernel[0]):
        r0 = i * dilation[0]
        for j in range(kernel[1]):
            c0 = j * dilation[1]
            yield (i, j, slice(r0, r0 + (oh - 1) * stride[0] + 1, stride[0]),
                   slice(c0, c0 + (ow - 1) * stride[1] + 1, stride[1]))


def window_max(xp, xpad, kernel, stride, dilation, out_hw):
    """Max over each window of a padded input [n, c, h, w] -> [n, c, oh, ow], as a running
    maximum of one strided slice per kernel offset (faster than reducing a window view)."""
    out = None
    for _, _, rows, cols in _offset_slices(kernel, stride, dilation, out_hw):
        part = xpad[:, :, rows, cols]
        out = part.copy() if out is None else xp.maximum(out, part, out=out)
    return out


def im2col(xp, x, kernel, stride, padding, dilation, out_hw):
    """Columns [c, kh, kw, n, oh, ow] of the zero-padded input: one strided slice copy per
    kernel offset, which numpy does far faster than copying a 6-d window view (an array
    module with its own one-kernel `im2col` does float32 there)."""
    fast = getattr(xp, "im2col", None)
    if fast is not None and x.dtype == np.float32:
        return fast(x, kernel, stride, padding, dilation, out_hw)
    n, c = x.shape[:2]
    kh, kw = kernel
    oh, ow = out_hw
    xpad = padded(xp, x, pool_frame(x.shape, kernel, stride, padding, dilation, out_hw), 0)
    xpad = xpad.transpose(1, 0, 2, 3)
    cols = xp.empty((c, kh, kw, n, oh, ow), dtype=x.dtype)
    for i, j, rows, cols_ in _offset_slices(kernel, stride, dilation, out_hw):
        cols[:, i, j] = xpad[:, :, rows, cols_]
    return cols


def _by_image(xp, groups, *arrays):
    """Whether the array module multiplies per image (its own `conv2d_by_image` and
    `grad_weight_by_image`, for float32 with one group) rather than over columns of the
    whole batch."""
    return getattr(xp, "conv2d_by_image", None) is not None and groups == 1 and \
        all(a.dtype == np.float32 for a in arrays)


def conv2d_columns(xp, x, w, groups, stride, padding, dilation, out_hw):
    """(conv2d's output, the im2col columns it multiplied): conv2d_grad_weight_columns
    reads those columns again instead of gathering the windows a second time."""
    if _by_image(xp, groups, x, w):
        return xp.conv2d_by_image(x, w, stride, padding, dilation, out_hw)
    o, cg, kh, kw = w.shape
    n = x.shape[0]
    oh, ow = out_hw
    cols = im2col(xp, x, (kh, kw), stride, padding, dilation, out_hw)
    cols = cols.reshape(groups, cg * kh * kw, n * oh * ow)
    with small_gemm(xp, o * cg * kh * kw * n * oh * ow):
        out = xp.matmul(w.reshape(groups, o // groups, cg * kh * kw), cols)  # [g, og, n*oh*ow]
    return out.reshape(o, n, oh, ow).transpose(1, 0, 2, 3), cols


def conv2d(xp, x, w, groups, stride, padding, dilation, out_hw):
    """Float or int conv of x [n, c, h, w] with w [o, c/groups, kh, kw] -> [n, o, oh, ow].
    An array module with its own `conv2d_by_image` does float32 with one group there."""
    return conv2d_columns(xp, x, w, groups, stride, padding, dilation, out_hw)[0]


def conv2d_grad_weight(xp, g, x, w_shape, groups, stride, padding, dilation):
    """d(loss)/d(w) from the output gradient g [n, o, oh, ow] and the input x: its columns
    gathered as conv2d_columns gathers them, then conv2d_grad_weight_columns."""
    _o, cg, kh, kw = w_shape
    n, _, oh, ow = g.shape
    if _by_image(xp, groups, x, g):
        cols = xp.windows_by_image(x, w_shape, stride, padding, dilation, (oh, ow))
    else:
        cols = im2col(xp, x, (kh, kw), stride, padding, dilation, (oh, ow))
        cols = cols.reshape(groups, cg * kh * kw, n * oh * ow)
    return conv2d_grad_weight_columns(xp, g, cols, w_shape, groups)


def conv2d_grad_weight_columns(xp, g, cols, w_shape, groups):
    """d(loss)/d(w) [o, c/groups, kh, kw] from the output gradient g [n, o, oh, ow] and the
    input's columns as conv2d_columns returned them."""
    if _by_image(xp, groups, cols, g):
        return xp.grad_weight_by_image(g, cols, w_shape)
    o, cg, kh, kw = w_shape
    n, _, oh, ow = g.shape
    gm = g.transpose(1, 0, 2, 3).reshape(groups, o // groups, n * oh * ow)
    with small_gemm(xp, o * cg * kh * kw * n * oh * ow):
        return xp.matmul(gm, cols.transpose(0, 2, 1)).reshape(o, cg, kh, kw)


def conv2d_grad_input(xp, g, w, x_shape, groups, stride, padding, dilation):
    """d(loss)/d(x) from the output gradient g [n, o, oh, ow] and the weight w."""
    o, cg, kh, kw = w.shape
    n, _, oh, ow = g.shape
    c = x_shape[1]
    if stride == (1, 1):
        # A stride-1 convolution's input gradient is a convolution of g with the weights
        # flipped in space and swapped in/out per group: one im2col and one matmul.
        eh, ew = (kh - 1) * dilation[0], (kw - 1) * dilation[1]
        pads = (eh - padding[0], x_shape[2] + eh - oh - (eh - padding[0]),
                ew - padding[2], x_shape[3] + ew - ow - (ew - padding[2]))
        if min(pads) >= 0:
            flipped = w[:, :, ::-1, ::-1].reshape(groups, o // groups, cg, kh, kw)
            swapped = flipped.transpose(0, 2, 1, 3, 4).reshape(c, o // groups, kh, kw)
            return conv2d(xp, g, xp.ascontiguousarray(swapped), groups, (1, 1), pads,
                          dilation, tuple(x_shape[2:]))
    if _by_image(xp, groups, g, w):
        return grad_input_by_image(xp, g, w, x_shape, stride, padding, dilation)
    gm = g.transpose(1, 0, 2, 3).reshape(groups, o // groups, n * oh * ow)
    wm = w.reshape(groups, o // groups, cg * kh * kw).transpose(0, 2, 1)
    with small_gemm(xp, o * cg * kh * kw * n * oh * ow):
        cols = xp.matmul(wm, gm).reshape(c, kh, kw, n, oh, ow)
    # Scatter channel-first, where every kernel offset's block cols[:, i, j] is contiguous.
    grid = _scatter_windows(xp, cols, (c, n) + tuple(x_shape[2:]), (kh, kw), stride,
                            padding, dilation, (oh, ow))
    return grid.transpose(1, 0, 2, 3)


def grad_input_by_image(xp, g, w, x_shape, stride, padding, dilation):
    """conv2d_grad_input with one group, image by image: each image's window contributions
    w^T g [c*kh*kw, oh*ow] (one batched product) summed straight into [n, c, h, w], with no
    copy of g or of the result to move the channels (as the product over the whole batch
    needs)."""
    o, c, kh, kw = w.shape
    n, _, oh, ow = g.shape
    cols = xp.matmul(w.reshape(1, o, c * kh * kw).transpose(0, 2, 1),
                     g.reshape(n, o, oh * ow))
    blocks = cols.reshape(n, c, kh, kw, oh, ow).transpose(0, 2, 3, 1, 4, 5)
    return _scatter_windows(xp, blocks, (n, c) + tuple(x_shape[2:]), (kh, kw), stride,
                            padding, dilation, (oh, ow))


def _scatter_windows(xp, blocks, shape, kernel, stride, padding, dilation, out_hw):
    """Sum window contributions back onto an input grid of `shape` [a, b, h, w]:
    blocks[:, i, j] ([a, kh, kw, b, oh, ow]) is the contribution of kernel offset (i, j).
    An array module with its own one-kernel `scatter_windows` does float32 there."""
    fast = getattr(xp, "scatter_windows", None)
    if fast is not None and blocks.dtype == np.float32:
        return fast(blocks, shape, kernel, stride, padding, dilation, out_hw)
    pads = pool_frame(shape, kernel, stride, padding, dilation, out_hw)
    a, b, h, w = shape
    grid = xp.zeros((a, b, h + pads[0] + pads[1], w + pads[2] + pads[3]), dtype=blocks.dtype)
    for i, j, rows, cols in _offset_slices(kernel, stride, dilation, out_hw):
        grid[:, :, rows, cols] += blocks[:, i, j]
    return grid[:, :, pads[0]:pads[0] + h, pads[2]:pads[2] + w]


def max_pool_grad(xp, g, x, kernel, stride, padding, dilation):
    """Gradient of max pooling: each window's gradient goes to its first maximum."""
    n, c, oh, ow = g.shape
    kh, kw = kernel
    if (tuple(stride) == (kh, kw) and tuple(dilation) == (1, 1) and not any(padding)
            and x.shape[2] == oh * kh and x.shape[3] == ow * kw):
        # Windows tile the input exactly: route each gradient to its window's first
        # maximum in the [n, c, oh, ow, kh*kw] layout, then fold the windows back.
        win = x.reshape(n, c, oh, kh, ow, kw).transpose(0, 1, 2, 4, 3, 5)
        pick = win.reshape(n, c, oh, ow, kh * kw).argmax(axis=4)[..., None]
        out = xp.zeros((n, c, oh, ow, kh * kw), dtype=g.dtype)
        xp.put_along_axis(out, pick, g[..., None], axis=4)
        return out.reshape(n, c, oh, ow, kh, kw).transpose(0, 1, 2, 4, 3, 5).reshape(x.shape)
    pads = pool_frame(x.shape, kernel, stride, padding, dilation, (oh, ow))
    xpad = padded(xp, x, pads, -np.inf)
    hp, wp = xpad.shape[2], xpad.shape[3]
    win = windows(xp, xpad, kernel, stride, dilation, (oh, ow))
    pick = win.reshape(n, c, oh, ow, kernel[0] * kernel[1]).argmax(axis=4)
    rows = xp.arange(oh).reshape(1, 1, oh, 1) * stride[0] + (pick // kernel[1]) * dilation[0]
    cols = xp.arange(ow).reshape(1, 1, 1, ow) * stride[1] + (pick % kernel[1]) * dilation[1]
    plane = xp.arange(n * c).reshape(n, c, 1, 1) * (hp * wp)
    flat = (plane + rows * wp + cols).reshape(-1)
    grid = xp.bincount(flat, weights=g.reshape(-1), minlength=n * c * hp * wp)
    grid = grid.reshape(n, c, hp, wp).astype(np.float32)
    return grid[:, :, pads[0]:pads[0] + x.shape[2], pads[2]:pads[2] + x.shape[3]]


def avg_pool_grad(xp, g, divisors, x_shape, kernel, stride, padding, dilation):
    """Gradient of average pooling given each output position's divisor [oh, ow]."""
    share = g / divisors
    n, c, oh, ow = share.shape
    blocks = xp.broadcast_to(share[:, None, None], (n, kernel[0], kernel[1], c, oh, ow))
    return _scatter_windows(xp, blocks, x_shape, kernel, stride, padding, dilation, (oh, ow))
