"""burn.graph's float32 kernels (f32_*) and the float <-> int8 conversions on flex_c: the
methods of GraphKernels that micropython/burnflex_f32.c binds on the board.
"""

import numpy as np

from burn.host.flex.f32 import UNARY
from burn.host.flex.params import as_f32, as_i8, bias_f32, dims, view, window


class F32Kernels:
    """GraphKernels' float32 kernels; the composed class gives them `_run` and `_pool`."""

    def quantize_s8(self, inp, out, size, scale, zp):
        """float32 -> int8 (burn.graph.s8_quantize)."""
        self._run("flex_s8_quantize", [size, view(inp, np.float32, size), float(scale), zp,
                                       as_i8(out, size)], "size %d" % size)

    def dequantize_s8(self, inp, out, size, scale, zp):
        """int8 -> float32 (burn.graph.s8_quantize)."""
        self._run("flex_s8_dequantize", [size, as_i8(inp, size), float(scale), zp,
                                         view(out, np.float32, size)], "size %d" % size)

    def conv_f32(self, inp, w, bias, out, n, ih, iw, ic, oh, ow, oc, kh, kw, groups,
                 stride_h, stride_w, dil_h, dil_w, pad_top, pad_left, act):
        """float32 convolution with groups (burn.graph.f32_conv.conv_f32)."""
        wn = oc * kh * kw * (ic // groups if groups else 0)
        x, y = as_f32(inp, n * ih * iw * ic), as_f32(out, n * oh * ow * oc)
        self._run("flex_f32_nhwc_conv2d", [
            dims(n, ih, iw, ic), x, x.size, as_f32(w, wn), wn, *bias_f32(bias, oc),
            window(ih, iw, oh, ow, kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left),
            groups, act, dims(n, oh, ow, oc), y, y.size],
            "input %s, output %s, kernel %dx%d, groups %d" % (
                (n, ih, iw, ic), (n, oh, ow, oc), kh, kw, groups))

    def depthwise_conv_f32(self, inp, w, bias, out, n, ih, iw, ic, oh, ow, depth_mult, kh, kw,
                           stride_h, stride_w, dil_h, dil_w, pad_top, pad_left, act):
        """float32 depthwise convolution (burn.graph.f32_depthwise_conv)."""
        oc = ic * depth_mult
        x, y = as_f32(inp, n * ih * iw * ic), as_f32(out, n * oh * ow * oc)
        self._run("flex_f32_nhwc_depthwise_conv2d", [
            dims(n, ih, iw, ic), x, x.size, as_f32(w, kh * kw * oc), kh * kw * oc,
            *bias_f32(bias, oc),
            window(ih, iw, oh, ow, kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left),
            depth_mult, act, dims(n, oh, ow, oc), y, y.size],
            "input %s, output %s, kernel %dx%d" % ((n, ih, iw, ic), (n, oh, ow, oc), kh, kw))

    def fully_connected_f32(self, inp, w, bias, out, batches, in_features, out_features, act):
        """float32 fully connected (burn.graph.f32_fully_connected)."""
        x, y = as_f32(inp, batches * in_features), as_f32(out, batches * out_features)
        wv = as_f32(w, out_features * in_features)
        self._run("flex_f32_fully_connected", [
            batches, in_features, out_features, x, x.size, wv, wv.size,
            *bias_f32(bias, out_features), act, y, y.size],
            "%d x %d -> %d" % (batches, in_features, out_features))

    def add_f32(self, a, b, out, size, b_size, act):
        """float32 ADD with b broadcast along the innermost dims (burn.graph.f32_elementwise)."""
        self._run("flex_f32_add_act", [size, as_f32(a, size), as_f32(b, b_size), b_size, act,
                                       as_f32(out, size)], "size %d, b_size %d" % (size, b_size))

    def mul_f32(self, a, b, out, size, b_size, act):
        """float32 MUL with b broadcast along the innermost dims (burn.graph.f32_elementwise)."""
        self._run("flex_f32_mul_act", [size, as_f32(a, size), as_f32(b, b_size), b_size, act,
                                       as_f32(out, size)], "size %d, b_size %d" % (size, b_size))

    def clamp_f32(self, inp, out, size, act):
        """A lone float32 RELU / RELU6 / RELU_N1_TO_1 (burn.graph.f32_elementwise)."""
        self._run("flex_f32_act", [size, as_f32(inp, size), act, as_f32(out, size)],
                  "size %d" % size)

    def _unary(self, op, inp, out, size):
        self._run("flex_f32_unary", [op, size, as_f32(inp, size), as_f32(out, size)],
                  "size %d" % size)

    def logistic_f32(self, inp, out, size):
        """float32 logistic (burn.graph.f32_elementwise)."""
        self._unary(UNARY.index("sigmoid"), inp, out, size)

    def tanh_f32(self, inp, out, size):
        """float32 tanh (burn.graph.f32_elementwise)."""
        self._unary(UNARY.index("tanh"), inp, out, size)

    def avg_pool_f32(self, *args):
        """float32 average pool (burn.graph.f32_pool.avg_pool_f32 arguments)."""
        self._pool("flex_f32_nhwc_avg_pool2d", as_f32, *args)

    def max_pool_f32(self, *args):
        """float32 max pool (burn.graph.f32_pool.max_pool_f32 arguments)."""
        self._pool("flex_f32_nhwc_max_pool2d", as_f32, *args)

    def mean_f32(self, inp, out, outer, reduce, inner):
        """float32 MEAN over the middle axis (burn.graph.f32_mean)."""
        x, y = as_f32(inp, outer * reduce * inner), as_f32(out, outer * inner)
        self._run("flex_f32_mean", [outer, reduce, inner, x, x.size, y, y.size],
                  "[%d, %d, %d]" % (outer, reduce, inner))

    def softmax_f32(self, inp, out, rows, depth, beta):
        """float32 softmax over the last axis (burn.graph.f32_softmax)."""
        x, y = as_f32(inp, rows * depth), as_f32(out, rows * depth)
        self._run("flex_f32_softmax_beta", [rows, depth, x, x.size, float(beta), y, y.size],
                  "[%d, %d]" % (rows, depth))
