"""burn.graph's int8 kernels (s8_*) on flex_c: the methods of GraphKernels that
micropython/burnflex_s8.c binds on the board.
"""

import numpy as np

from burn.host.flex.params import as_i8, as_i32, broadcast_dims, dims, quant, struct, window


class S8Kernels:
    """GraphKernels' int8 kernels; the composed class gives them `_run` and `_pool`."""

    def conv_s8(self, inp, w, bias, mult, shift, out, n, ih, iw, ic, oh, ow, oc, kh, kw,
                groups, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left, in_zp, out_zp,
                act_min, act_max):
        """int8 convolution with groups (burn.graph.s8_conv.conv_s8)."""
        wn = oc * kh * kw * (ic // groups if groups else 0)
        x, y = as_i8(inp, n * ih * iw * ic), as_i8(out, n * oh * ow * oc)
        b = None if bias is None else as_i32(bias, oc)
        self._run("flex_s8_conv2d", [
            dims(n, ih, iw, ic), x, x.size, as_i8(w, wn), wn, b, 0 if b is None else oc,
            as_i32(mult, oc), as_i32(shift, oc), oc,
            window(ih, iw, oh, ow, kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left),
            groups, quant(in_zp, out_zp, act_min, act_max), dims(n, oh, ow, oc), y, y.size],
            "input %s, output %s, kernel %dx%d, groups %d" % (
                (n, ih, iw, ic), (n, oh, ow, oc), kh, kw, groups))

    def depthwise_conv_s8(self, inp, w, bias, mult, shift, out, n, ih, iw, ic, oh, ow,
                          depth_mult, kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top,
                          pad_left, in_zp, out_zp, act_min, act_max):
        """int8 depthwise convolution (burn.graph.s8_depthwise_conv)."""
        oc = ic * depth_mult
        x, y = as_i8(inp, n * ih * iw * ic), as_i8(out, n * oh * ow * oc)
        b = None if bias is None else as_i32(bias, oc)
        self._run("flex_s8_depthwise_conv2d", [
            dims(n, ih, iw, ic), x, x.size, as_i8(w, kh * kw * oc), kh * kw * oc,
            b, 0 if b is None else oc, as_i32(mult, oc), as_i32(shift, oc), oc,
            window(ih, iw, oh, ow, kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left),
            depth_mult, quant(in_zp, out_zp, act_min, act_max), dims(n, oh, ow, oc), y, y.size],
            "input %s, output %s, kernel %dx%d" % ((n, ih, iw, ic), (n, oh, ow, oc), kh, kw))

    def fully_connected_s8(self, inp, w, bias, mult, shift, out, batches, in_features,
                           out_features, in_zp, out_zp, act_min, act_max):
        """int8 fully connected (burn.graph.s8_fully_connected). The input zero point is
        folded into the bias first (bias - in_zp * sum(row), wrapping like the int32
        accumulator), as a prepare step would, so the kernel runs with input offset 0;
        multipliers and shifts alike on every output go as one (quant_len 1)."""
        x, y = as_i8(inp, batches * in_features), as_i8(out, batches * out_features)
        wv = as_i8(w, out_features * in_features)
        b = None if bias is None else as_i32(bias, out_features)
        if in_zp:
            rows = wv.reshape(out_features, in_features).sum(axis=1, dtype=np.int64)
            folded = (0 if b is None else b.astype(np.int64)) - in_zp * rows
            b = ((folded + (1 << 31)) % (1 << 32) - (1 << 31)).astype(np.int32)
            in_zp = 0
        m, s = as_i32(mult, out_features), as_i32(shift, out_features)
        if out_features and (m == m[0]).all() and (s == s[0]).all():
            m, s = m[:1], s[:1]
        self._run("flex_s8_fully_connected", [
            batches, in_features, out_features, x, x.size, wv, wv.size, 0,
            b, 0 if b is None else out_features, m, s, m.size,
            quant(in_zp, out_zp, act_min, act_max),
            y, y.size], "%d x %d -> %d" % (batches, in_features, out_features))

    def add_s8(self, a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
               out_zp, out_mult, out_shift, left_shift, act_min, act_max):
        """int8 ADD with b broadcast along the innermost dims (burn.graph.s8_add)."""
        params = struct("flex_s8_add_params", locals())
        da, db = broadcast_dims(size, b_size)
        self._run("flex_s8_add", [da, as_i8(a, size), size, db, as_i8(b, b_size), b_size,
                                  params, da, as_i8(out, size), size],
                  "size %d, b_size %d" % (size, b_size))

    def mul_s8(self, a, b, out, size, b_size, a_zp, b_zp, out_zp, mult, shift, act_min,
               act_max):
        """int8 MUL with b broadcast along the innermost dims (burn.graph.s8_mul)."""
        params = struct("flex_s8_mul_params", locals())
        da, db = broadcast_dims(size, b_size)
        self._run("flex_s8_mul", [da, as_i8(a, size), size, db, as_i8(b, b_size), b_size,
                                  params, da, as_i8(out, size), size],
                  "size %d, b_size %d" % (size, b_size))

    def avg_pool_s8(self, *args):
        """int8 average pool (burn.graph.s8_pool.avg_pool_s8 arguments)."""
        self._pool("flex_s8_avg_pool2d", as_i8, *args)

    def max_pool_s8(self, *args):
        """int8 max pool (burn.graph.s8_pool.max_pool_s8 arguments)."""
        self._pool("flex_s8_max_pool2d", as_i8, *args)

    def mean_s8(self, inp, out, outer, reduce, inner, in_zp, out_zp, mult, shift):
        """int8 MEAN over the middle axis (burn.graph.s8_mean)."""
        x, y = as_i8(inp, outer * reduce * inner), as_i8(out, outer * inner)
        self._run("flex_s8_mean", [outer, reduce, inner, x, x.size, in_zp, mult, shift, out_zp,
                                   y, y.size], "[%d, %d, %d]" % (outer, reduce, inner))

    def softmax_s8(self, inp, out, rows, depth, in_mult, in_left_shift, diff_min):
        """int8 softmax over the last axis (burn.graph.s8_softmax)."""
        x, y = as_i8(inp, rows * depth), as_i8(out, rows * depth)
        self._run("flex_s8_softmax", [rows, depth, x, x.size, in_mult, in_left_shift, diff_min,
                                      y, y.size], "[%d, %d]" % (rows, depth))

    def logistic_s8(self, inp, out, size, in_zp, in_mult, in_left_shift, range_radius):
        """int8 logistic (burn.graph.s8_logistic)."""
        self._run("flex_s8_logistic", [size, as_i8(inp, size), in_zp, range_radius, in_mult,
                                       in_left_shift, as_i8(out, size)], "size %d" % size)

    def tanh_s8(self, inp, out, size, in_zp, in_mult, in_left_shift, range_radius):
        """int8 tanh (burn.graph.s8_tanh)."""
        self._run("flex_s8_tanh", [size, as_i8(inp, size), in_zp, range_radius, in_mult,
                                   in_left_shift, as_i8(out, size)], "size %d" % size)

    def requantize_s8(self, inp, out, size, in_zp, out_zp, mult, shift):
        """int8 -> int8 with a new scale (burn.graph.s8_quantize)."""
        self._run("flex_s8_requantize", [size, as_i8(inp, size), in_zp, mult, shift, out_zp,
                                         as_i8(out, size)], "size %d" % size)
