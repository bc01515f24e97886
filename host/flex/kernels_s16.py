"""burn.graph's int16x8 kernels (s16_*: int16 activations, int8 weights; flex_c/src/extra)
on flex_c: the methods of GraphKernels that micropython/burnflex_extra_s16.c binds.
"""


from burn.host.flex.params import as_i8, as_i16, as_i32, dims, struct, window


class S16Kernels:
    """GraphKernels' int16x8 kernels; the composed class gives them `_run` and `_pool`."""

    def _requantize(self, in_bits, out_bits, inp, out, size, in_zp, out_zp, mult, shift):
        view = {8: as_i8, 16: as_i16, 32: as_i32}
        x, y = view[in_bits](inp, size), view[out_bits](out, size)
        self._run("flex_s16_requantize", [size, x, in_bits, in_zp, mult, shift, out_zp,
                                          out_bits, y], "size %d" % size)

    def fully_connected_s16(self, inp, w, bias, mult, shift, out, batches, in_features,
                            out_features, wide, in_zp, out_zp, act_min, act_max):
        """int16x8 fully connected (burn.graph.s16_fully_connected)."""
        x, y = as_i16(inp, batches * in_features), as_i16(out, batches * out_features)
        wv = as_i8(w, out_features * in_features)
        self._run("flex_s16_fully_connected", [
            batches, in_features, out_features, x, x.size, wv, wv.size,
            as_i32(bias, out_features), out_features, as_i32(mult, out_features),
            as_i32(shift, out_features), out_features, wide,
            struct("flex_s16_quant", locals()), y, y.size],
            "%d x %d -> %d" % (batches, in_features, out_features))

    def conv_s16(self, inp, w, bias, mult, shift, out, n, ih, iw, ic, oh, ow, oc, kh, kw,
                 groups, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left, wide, act_min,
                 act_max):
        """int16x8 convolution with groups (burn.graph.s16_conv)."""
        wn = oc * kh * kw * (ic // groups if groups else 0)
        x, y = as_i16(inp, n * ih * iw * ic), as_i16(out, n * oh * ow * oc)
        self._run("flex_s16_conv2d", [
            dims(n, ih, iw, ic), x, x.size, as_i8(w, wn), wn, as_i32(bias, oc), oc,
            as_i32(mult, oc), as_i32(shift, oc), oc,
            window(ih, iw, oh, ow, kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left),
            groups, wide, act_min, act_max, dims(n, oh, ow, oc), y, y.size],
            "input %s, output %s, kernel %dx%d, groups %d" % (
                (n, ih, iw, ic), (n, oh, ow, oc), kh, kw, groups))

    def depthwise_conv_s16(self, inp, w, bias, mult, shift, out, n, ih, iw, ic, oh, ow,
                           depth_mult, kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top,
                           pad_left, act_min, act_max):
        """int16x8 depthwise convolution (burn.graph.s16_depthwise_conv)."""
        oc = ic * depth_mult
        x, y = as_i16(inp, n * ih * iw * ic), as_i16(out, n * oh * ow * oc)
        self._run("flex_s16_depthwise_conv2d", [
            dims(n, ih, iw, ic), x, x.size, as_i8(w, kh * kw * oc), kh * kw * oc,
            as_i32(bias, oc), oc, as_i32(mult, oc), as_i32(shift, oc), oc,
            window(ih, iw, oh, ow, kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left),
            depth_mult, act_min, act_max, dims(n, oh, ow, oc), y, y.size],
            "input %s, output %s, kernel %dx%d" % ((n, ih, iw, ic), (n, oh, ow, oc), kh, kw))

    def avg_pool_s16(self, *args):
        """int16 average pool (burn.graph.s16_pool.avg_pool_s16 arguments)."""
        self._pool("flex_s16_avg_pool2d", as_i16, *args)

    def max_pool_s16(self, *args):
        """int16 max pool (burn.graph.s16_pool.max_pool_s16 arguments)."""
        self._pool("flex_s16_max_pool2d", as_i16, *args)


def _requantizer(in_bits, out_bits):
    def requantize(self, inp, out, size, in_zp, out_zp, mult, shift):
        self._requantize(in_bits, out_bits, inp, out, size, in_zp, out_zp, mult, shift)
    requantize.__doc__ = "int%d -> int%d with a new scale (burn.graph.s16_quantize)." % (
        in_bits, out_bits)
    return requantize


# requantize_s16, requantize_s8_s16, ...: the requantizations between int8, int16 and int32
for _name, _bits in (("s16", (16, 16)), ("s8_s16", (8, 16)), ("s16_s8", (16, 8)),
                     ("s8_s32", (8, 32)), ("s16_s32", (16, 32)), ("s32_s8", (32, 8)),
                     ("s32_s16", (32, 16))):
    setattr(S16Kernels, "requantize_" + _name, _requantizer(*_bits))
