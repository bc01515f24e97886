"""burn.graph's float32 kernels (f32_*) and the float <-> int8 conversions on flex_c: the
methods of GraphKernels that micropython/burnflex_f32.c binds on the board.
"""

from burn.host.flex.params import as_f32, bias_f32, dims, window


class F32Kernels:
    """GraphKernels' float32 kernels; the composed class gives them `_run` and `_pool`."""

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

    def avg_pool_f32(self, *args):
        """float32 average pool (burn.graph.f32_pool.avg_pool_f32 arguments)."""
        self._pool("flex_f32_nhwc_avg_pool2d", as_f32, *args)

    def max_pool_f32(self, *args):
        """float32 max pool (burn.graph.f32_pool.max_pool_f32 arguments)."""
        self._pool("flex_f32_nhwc_max_pool2d", as_f32, *args)
