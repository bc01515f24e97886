"""Lowering of the burn.nn leaf modules: convolutions (Conv2d, Conv1d as the 2-D one with
H = 1, ConvTranspose2d), BatchNorm, Linear and the pools, with their weights in the layouts
of the burn.graph kernels.
"""

import numpy as np

from burn import nn
from burn import shape as _sh

from ..convert import to_numpy
from .layout import chw


def _array(t):
    return to_numpy(t).astype(np.float64)


def _dense_transpose_kernel(w, groups, dilation):
    """A ConvTranspose2d weight [ic, oc / groups, kh, kw] as the one-group, undilated
    [ic, oc, kh', kw'] kernel of the .bst transpose_conv2d op: other groups' blocks and the
    taps a dilation skips are zeros, which add nothing (exactly, in float and in int8), at
    `groups` times the weights and multiplies."""
    if groups == 1 and tuple(dilation) == (1, 1):
        return w
    ic, ocg, kh, kw = w.shape
    dh, dw = dilation
    dense = np.zeros((ic, ocg * groups, (kh - 1) * dh + 1, (kw - 1) * dw + 1), w.dtype)
    icg = ic // groups
    for g in range(groups):
        dense[g * icg:(g + 1) * icg, g * ocg:(g + 1) * ocg, ::dh, ::dw] = w[g * icg:(g + 1) * icg]
    return dense


def _conv_geometry(m):
    """(kernel, stride, dilation, padding, weight [oc, ic / groups, kh, kw]) of a Conv2d, or
    of a Conv1d as the Conv2d with H = 1 (padding: a pair, 'same' or 'valid')."""
    w = _array(m.weight)
    if w.ndim == 4:
        return m.kernel_size, m.stride, m.dilation, m.padding, w
    pad = m.padding if isinstance(m.padding, str) else (0, m.padding[0])
    return (1, m.kernel_size[0]), (1, m.stride[0]), (1, m.dilation[0]), pad, w[:, :, None]


class ModuleLowering:
    """The lowerings of recorded module calls (a mixin of the tracer's lowering, over
    Layout's bookkeeping)."""

    def leaf(self, i):
        """A recorded leaf module call, lowered by the module's type."""
        m = self.nodes[i].module
        if isinstance(m, (nn.Conv2d, nn.Conv1d)):
            self.conv(i, m)
        elif isinstance(m, nn.ConvTranspose2d):
            self.transpose_conv(i, m)
        elif isinstance(m, nn.BatchNorm2d):
            self.batch_norm(i, m)
        elif isinstance(m, nn.Linear):
            self.linear(i, m)
        elif isinstance(m, nn.MaxPool2d):
            self.pool(i, m, "max_pool2d")
        elif isinstance(m, nn.AvgPool2d):
            self.pool(i, m, "avg_pool2d")
        else:
            self.adaptive(i, m)

    def conv(self, i, m):
        """Conv2d / Conv1d: a conv2d op (depthwise_conv2d when each group is one input
        channel), with a zero padding before it folded in."""
        j = self.nodes[i].ins[0]
        extra = self.pending_pad.pop(j, None)
        at, et, el = extra if extra is not None else (self.src(i), 0, 0)
        if at.flat:
            self.fail("needs a [N, C, H, W] input, got a flattened one")
        src = self.shaped(at, at.gshape)
        ic = at.gshape[3]
        (kh, kw), (sh, sw), (dh, dw), padding, w = _conv_geometry(m)
        # the bottom and right padding follow from the output size
        if padding == "same":
            pt, pl = _sh.same_padding(kh, dh)[0], _sh.same_padding(kw, dw)[0]
        elif padding == "valid":
            pt = pl = 0
        else:
            pt, pl = padding
        oc = w.shape[0]
        b = _array(m.bias) if m.bias is not None else np.zeros(oc)
        params = {"stride_h": sh, "stride_w": sw, "dil_h": dh, "dil_w": dw,
                  "pad_top": pt + et, "pad_left": pl + el}
        if m.groups == ic and ic > 1:
            params["depth_mult"] = oc // ic
            w = w.reshape(oc, kh, kw).transpose(1, 2, 0)[None]  # [1, kh, kw, oc]
            kind = "depthwise_conv2d"
        else:
            params["groups"] = m.groups
            w = w.transpose(0, 2, 3, 1)  # [oc, kh, kw, ic / groups]
            kind = "conv2d"
        self.add(kind, i, [src], w=w, b=b, params=params)

    def transpose_conv(self, i, m):
        """ConvTranspose2d: a transpose_conv2d op over the dense one-group kernel."""
        src, _ = self.nhwc_src(i)
        w = _dense_transpose_kernel(_array(m.weight), m.groups, m.dilation)
        b = _array(m.bias) if m.bias is not None else np.zeros(w.shape[1])
        params = {"stride_h": m.stride[0], "stride_w": m.stride[1], "pad_top": m.padding[0],
                  "pad_left": m.padding[1]}
        self.add("transpose_conv2d", i, [src], w=w.transpose(1, 2, 3, 0), b=b, params=params)

    def batch_norm(self, i, m):
        """BatchNorm2d (and BatchNorm1d, on [N, C, L] or [N, features]) folded into the op
        before it, else a 1x1 depthwise convolution (a diagonal fully connected one)."""
        at = self.src(i)
        if at.flat and not isinstance(m, nn.BatchNorm1d):
            self.fail("needs a [N, C, H, W] input, got a flattened one")
        if m.running_mean is None:
            self.fail("without running statistics it normalises with the batch's own, "
                      "which an exported model cannot")
        scale = 1.0 / np.sqrt(_array(m.running_var) + m.eps)
        if m.weight is not None:
            scale = scale * _array(m.weight)
        shift = -_array(m.running_mean) * scale
        if m.bias is not None:
            shift = shift + _array(m.bias)
        self.channel_affine(i, scale, shift)

    def pool(self, i, m, kind):
        """MaxPool2d / AvgPool2d: a `kind` pool (see `window`)."""
        kernel = _sh.pair(self.path, "kernel_size", m.kernel_size)
        stride = _sh.pair(self.path, "stride", m.stride)
        pad = _sh.pair(self.path, "padding", m.padding)
        dilation = _sh.pair(self.path, "dilation", getattr(m, "dilation", 1))
        self.window(i, kind, kernel, stride, pad, dilation,
                    kind == "avg_pool2d" and m.count_include_pad)

    def window(self, i, kind, kernel, stride, pad, dilation, count_include_pad):
        """A max or average pool: `pad` is (top, left); the bottom and right padding follow
        from the output size, which an average may not enlarge (ceil_mode)."""
        src, (_n, ih, iw, _c) = self.nhwc_src(i)
        (kh, kw), (sh, sw), (ph, pw) = kernel, stride, pad
        if tuple(dilation) != (1, 1):
            self.fail("dilated pooling is not supported")
        if kind == "avg_pool2d":
            floor = (_sh.pool_out(ih, kh, sh, ph, 1, False),
                     _sh.pool_out(iw, kw, sw, pw, 1, False))
            if self.nodes[i].shape[2:] != floor:
                self.fail("ceil_mode changes the output size; the exported average counts "
                          "only in-bounds cells")
            if (ph or pw) and count_include_pad:
                self.fail("padding with count_include_pad=True is not supported (the "
                          "exported average counts only in-bounds cells)")
        params = {"kh": kh, "kw": kw, "stride_h": sh, "stride_w": sw, "pad_top": ph,
                  "pad_left": pw}
        self.add(kind, i, [src], params=params)

    def adaptive(self, i, m):
        """AdaptiveAvgPool2d (1-D: as the 2-D one with H = 1): nothing at the input's
        size, a mean to 1x1, else an average pool over equal cells."""
        src, (_n, h, w, c) = self.nhwc_src(i)
        oh, ow = chw(self.nodes[i].shape)[1:]  # AdaptiveAvgPool1d: as the 2-D one, H = 1
        if (oh, ow) == (h, w):
            self.alias(i, self.src(i))
        elif (oh, ow) == (1, 1):
            self.add("mean", i, [src], params={"outer": 1, "reduce": h * w, "inner": c})
        elif h % oh == 0 and w % ow == 0:
            params = {"kh": h // oh, "kw": w // ow, "stride_h": h // oh,
                      "stride_w": w // ow, "pad_top": 0, "pad_left": 0}
            self.add("avg_pool2d", i, [src], params=params)
        else:
            self.fail("output size %s does not divide the %dx%d input" % ((oh, ow), h, w))

    def linear(self, i, m):
        """Linear: a fully_connected op, its columns in the graph's feature order."""
        at = self.src(i)
        if not at.flat:
            self.fail("needs a flattened [N, features] input; add nn.Flatten()")
        w = _array(m.weight)
        if at.perm is not None:
            w = w[:, at.perm]
        b = _array(m.bias) if m.bias is not None else np.zeros(m.out_features)
        self.add("fully_connected", i, [at.vid], w=w, b=b)
