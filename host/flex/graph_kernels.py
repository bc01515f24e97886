"""flex_c behind the signatures of `burn.graph`'s kernels (see burn/graph/__init__.py), so the
.bst runtime, the tests and the benchmarks can swap the pure kernels for C ones.

`GraphKernels(lib)` binds the kernels to one library: the host build (`binding.host()`) or an
emulated Cortex-M build (`burn.host.flex.emulator`). Buffers may be numpy arrays, array.array,
bytes or memoryviews; only their leading elements are used, as in burn.graph.
"""

import numpy as np

from burn.host.flex.binding import PtrList, Struct, host, run
from burn.host.flex.f32 import UNARY


def view(buf, dtype, count=None):
    """The first `count` elements (None: all) of `buf` as a numpy array of `dtype`, without
    copying."""
    if isinstance(buf, np.ndarray):
        arr = buf.reshape(-1)
        if arr.dtype != dtype:
            arr = arr.view(dtype)
    else:
        arr = np.frombuffer(buf, dtype=dtype)
    if count is None:
        return arr
    if arr.size < count:
        raise ValueError("flex: buffer holds %d elements, %d needed" % (arr.size, count))
    return arr[:count]


def pad_after(in_size, out_size, k, stride, dilation, pad_before):
    """Trailing padding that makes out_size the floor-mode output size (the C kernels check
    the full window geometry)."""
    eff = dilation * (k - 1) + 1
    return max(0, (out_size - 1) * stride + eff - in_size - pad_before)


# flex.h's parameter structs, field by field in the struct's order: "field=arg" fills the
# field from the burn.graph.ops argument `arg` ("-arg": minus it, flex_c takes offsets where
# burn has zero points); a lone "field" is the argument of that name. Checked against flex.h
# by tests/core/test_op_table.py.
STRUCTS = {
    "flex_dims4": "n h w c",
    "flex_window": "kernel_h=kh kernel_w=kw stride_h stride_w dilation_h=dil_h "
                   "dilation_w=dil_w pad_top pad_bottom pad_left pad_right",
    "flex_s8_quant": "input_offset=-in_zp output_offset=out_zp act_min act_max",
    "flex_s8_add_params": "input1_offset=-a_zp input1_multiplier=a_mult input1_shift=a_shift "
                          "input2_offset=-b_zp input2_multiplier=b_mult input2_shift=b_shift "
                          "left_shift output_offset=out_zp output_multiplier=out_mult "
                          "output_shift=out_shift act_min act_max",
    "flex_s8_mul_params": "input1_offset=-a_zp input2_offset=-b_zp output_offset=out_zp "
                          "output_multiplier=mult output_shift=shift act_min act_max",
    "flex_transpose_window": "kernel_h=kh kernel_w=kw stride_h stride_w pad_top pad_left",
    "flex_s8_prelu_params": "input_offset=-in_zp alpha_offset=-alpha_zp output_offset=out_zp "
                            "pos_mult pos_shift neg_mult neg_shift",
    "flex_svdf_dims": "batch input_size filters memory rank",
    "flex_svdf_quant": "input_zero_point=in_zp state_zero_point=state_zp "
                       "output_zero_point=out_zp multiplier1=state_mult shift1=state_shift "
                       "multiplier2=out_mult shift2=out_shift state_bits",
    "flex_s16_quant": "input_offset=-in_zp output_offset=out_zp act_min act_max",
    "flex_matmul_dims": "batches m k n a_step b_step adj_x adj_y",
    "flex_s8_compare_params": "input1_offset=-a_zp input1_multiplier=a_mult "
                              "input1_shift=a_shift input2_offset=-b_zp "
                              "input2_multiplier=b_mult input2_shift=b_shift",
    "flex_s8_div_params": "swap input1_offset=-a_zp input2_offset=-b_zp output_offset=out_zp "
                          "output_multiplier=mult output_shift=shift act_min act_max",


    "flex_lstm_dims": "batch steps input_size units time_major",
    "flex_lstm_quant": "input_zero_point=in_zp output_zero_point=out_zp cell_clip cell_power "
                       "forget_multiplier=fc_mult forget_shift=fc_shift "
                       "input_multiplier=ic_mult input_shift=ic_shift "
                       "hidden_multiplier=hid_mult hidden_shift=hid_shift",
}


# flex.h's FLEX_ARITH_* codes, in order (checked against flex.h by tests/host/test_arith_ops.py)
ARITH = ("maximum", "minimum", "sub", "sub_swapped", "squared_difference",
         "div", "div_swapped", "floor_div", "floor_div_swapped", "floor_mod", "floor_mod_swapped")


def struct(name, args):
    """flex.h parameter struct `name` filled from `args`, a kernel's arguments by name, in
    the field order of STRUCTS."""
    fields = []
    for spec in STRUCTS[name].split():
        arg = spec.split("=")[-1]
        value = args[arg.lstrip("-")]
        fields.append(-value if arg[0] == "-" else value)
    return Struct(name, tuple(fields))


def window(ih, iw, oh, ow, kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left):
    """A flex_window parameter block from burn.graph's geometry arguments."""
    pad_bottom = pad_after(ih, oh, kh, stride_h, dil_h, pad_top)
    pad_right = pad_after(iw, ow, kw, stride_w, dil_w, pad_left)
    return struct("flex_window", locals())


def dims(n, h, w, c):
    """A flex_dims4 parameter block."""
    return struct("flex_dims4", locals())


def quant(in_zp, out_zp, act_min, act_max):
    """A flex_s8_quant parameter block."""
    return struct("flex_s8_quant", locals())


def _i8(buf, n):
    return view(buf, np.int8, n)


def _i16(buf, n):
    return view(buf, np.int16, n)


def _i32(buf, n):
    return view(buf, np.int32, n)


def _f32(buf, n):
    return view(buf, np.float32, n)


def _bias_f32(bias, n):
    b = None if bias is None else _f32(bias, n)
    return b, 0 if b is None else n


class GraphKernels:
    """burn.graph's int8 and float32 kernels (and the layout kernels) running in one flex_c
    build."""

    def __init__(self, lib=None):
        self.lib = lib or host()

    def _run(self, name, args, context):
        run(self.lib, name, args, context)

    def conv_s8(self, inp, w, bias, mult, shift, out, n, ih, iw, ic, oh, ow, oc, kh, kw,
                groups, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left, in_zp, out_zp,
                act_min, act_max):
        """int8 convolution with groups (burn.graph.s8_conv.conv_s8)."""
        wn = oc * kh * kw * (ic // groups if groups else 0)
        x, y = _i8(inp, n * ih * iw * ic), _i8(out, n * oh * ow * oc)
        b = None if bias is None else _i32(bias, oc)
        self._run("flex_s8_conv2d", [
            dims(n, ih, iw, ic), x, x.size, _i8(w, wn), wn, b, 0 if b is None else oc,
            _i32(mult, oc), _i32(shift, oc), oc,
            window(ih, iw, oh, ow, kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left),
            groups, quant(in_zp, out_zp, act_min, act_max), dims(n, oh, ow, oc), y, y.size],
            "input %s, output %s, kernel %dx%d, groups %d" % (
                (n, ih, iw, ic), (n, oh, ow, oc), kh, kw, groups))

    def transpose_conv_s8(self, inp, w, bias, mult, shift, out, n, ih, iw, ic, oh, ow, oc,
                          kh, kw, stride_h, stride_w, pad_top, pad_left, in_zp, out_zp,
                          act_min, act_max):
        """int8 transposed convolution (burn.graph.transpose_conv2d)."""
        wn = oc * kh * kw * ic
        x, y = _i8(inp, n * ih * iw * ic), _i8(out, n * oh * ow * oc)
        b = None if bias is None else _i32(bias, oc)
        self._run("flex_s8_transpose_conv2d", [
            dims(n, ih, iw, ic), x, x.size, _i8(w, wn), wn, b, 0 if b is None else oc,
            _i32(mult, oc), _i32(shift, oc), oc, struct("flex_transpose_window", locals()),
            quant(in_zp, out_zp, act_min, act_max), dims(n, oh, ow, oc), y, y.size],
            "input %s, output %s, kernel %dx%d" % ((n, ih, iw, ic), (n, oh, ow, oc), kh, kw))

    def depthwise_conv_s8(self, inp, w, bias, mult, shift, out, n, ih, iw, ic, oh, ow,
                          depth_mult, kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top,
                          pad_left, in_zp, out_zp, act_min, act_max):
        """int8 depthwise convolution (burn.graph.s8_depthwise_conv)."""
        oc = ic * depth_mult
        x, y = _i8(inp, n * ih * iw * ic), _i8(out, n * oh * ow * oc)
        b = None if bias is None else _i32(bias, oc)
        self._run("flex_s8_depthwise_conv2d", [
            dims(n, ih, iw, ic), x, x.size, _i8(w, kh * kw * oc), kh * kw * oc,
            b, 0 if b is None else oc, _i32(mult, oc), _i32(shift, oc), oc,
            window(ih, iw, oh, ow, kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left),
            depth_mult, quant(in_zp, out_zp, act_min, act_max), dims(n, oh, ow, oc), y, y.size],
            "input %s, output %s, kernel %dx%d" % ((n, ih, iw, ic), (n, oh, ow, oc), kh, kw))

    def fully_connected_s8(self, inp, w, bias, mult, shift, out, batches, in_features,
                           out_features, in_zp, out_zp, act_min, act_max):
        """int8 fully connected (burn.graph.s8_fully_connected). The input zero point is
        folded into the bias first (bias - in_zp * sum(row), wrapping like the int32
        accumulator), as a prepare step would, so the kernel runs with input offset 0."""
        x, y = _i8(inp, batches * in_features), _i8(out, batches * out_features)
        wv = _i8(w, out_features * in_features)
        b = None if bias is None else _i32(bias, out_features)
        if in_zp:
            rows = wv.reshape(out_features, in_features).sum(axis=1, dtype=np.int64)
            folded = (0 if b is None else b.astype(np.int64)) - in_zp * rows
            b = ((folded + (1 << 31)) % (1 << 32) - (1 << 31)).astype(np.int32)
            in_zp = 0
        self._run("flex_s8_fully_connected", [
            batches, in_features, out_features, x, x.size, wv, wv.size, 0,
            b, 0 if b is None else out_features, _i32(mult, out_features),
            _i32(shift, out_features), out_features, quant(in_zp, out_zp, act_min, act_max),
            y, y.size], "%d x %d -> %d" % (batches, in_features, out_features))

    def _broadcast_dims(self, size, b_size):
        if b_size < 1 or size % b_size:
            raise ValueError("flex: b_size %d does not divide size %d" % (b_size, size))
        return dims(1, 1, size // b_size, b_size), dims(1, 1, 1, b_size)

    def add_s8(self, a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
               out_zp, out_mult, out_shift, left_shift, act_min, act_max):
        """int8 ADD with b broadcast along the innermost dims (burn.graph.s8_add)."""
        params = struct("flex_s8_add_params", locals())
        da, db = self._broadcast_dims(size, b_size)
        self._run("flex_s8_add", [da, _i8(a, size), size, db, _i8(b, b_size), b_size, params,
                                  da, _i8(out, size), size], "size %d, b_size %d" % (size, b_size))

    def mul_s8(self, a, b, out, size, b_size, a_zp, b_zp, out_zp, mult, shift, act_min,
               act_max):
        """int8 MUL with b broadcast along the innermost dims (burn.graph.s8_mul)."""
        params = struct("flex_s8_mul_params", locals())
        da, db = self._broadcast_dims(size, b_size)
        self._run("flex_s8_mul", [da, _i8(a, size), size, db, _i8(b, b_size), b_size, params,
                                  da, _i8(out, size), size], "size %d, b_size %d" % (size, b_size))

    def _pool(self, name, inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w,
              pad_top, pad_left, act_min, act_max):
        x, y = _i8(inp, n * ih * iw * c), _i8(out, n * oh * ow * c)
        self._run(name, [dims(n, ih, iw, c), x, x.size,
                         window(ih, iw, oh, ow, kh, kw, stride_h, stride_w, 1, 1, pad_top,
                                pad_left),
                         act_min, act_max, dims(n, oh, ow, c), y, y.size],
                  "input %s, output %s, window %dx%d" % ((n, ih, iw, c), (n, oh, ow, c), kh, kw))

    def avg_pool_s8(self, *args):
        """int8 average pool (burn.graph.s8_pool.avg_pool_s8 arguments)."""
        self._pool("flex_s8_avg_pool2d", *args)

    def max_pool_s8(self, *args):
        """int8 max pool (burn.graph.s8_pool.max_pool_s8 arguments)."""
        self._pool("flex_s8_max_pool2d", *args)

    def mean_s8(self, inp, out, outer, reduce, inner, in_zp, out_zp, mult, shift):
        """int8 MEAN over the middle axis (burn.graph.s8_mean)."""
        x, y = _i8(inp, outer * reduce * inner), _i8(out, outer * inner)
        self._run("flex_s8_mean", [outer, reduce, inner, x, x.size, in_zp, mult, shift, out_zp,
                                   y, y.size], "[%d, %d, %d]" % (outer, reduce, inner))

    def softmax_s8(self, inp, out, rows, depth, in_mult, in_left_shift, diff_min):
        """int8 softmax over the last axis (burn.graph.s8_softmax)."""
        x, y = _i8(inp, rows * depth), _i8(out, rows * depth)
        self._run("flex_s8_softmax", [rows, depth, x, x.size, in_mult, in_left_shift, diff_min,
                                      y, y.size], "[%d, %d]" % (rows, depth))

    def logistic_s8(self, inp, out, size, in_zp, in_mult, in_left_shift, range_radius):
        """int8 logistic (burn.graph.s8_logistic)."""
        self._run("flex_s8_logistic", [size, _i8(inp, size), in_zp, range_radius, in_mult,
                                       in_left_shift, _i8(out, size)], "size %d" % size)

    def tanh_s8(self, inp, out, size, in_zp, in_mult, in_left_shift, range_radius):
        """int8 tanh (burn.graph.s8_tanh)."""
        self._run("flex_s8_tanh", [size, _i8(inp, size), in_zp, range_radius, in_mult,
                                   in_left_shift, _i8(out, size)], "size %d" % size)

    def quantize_s8(self, inp, out, size, scale, zp):
        """float32 -> int8 (burn.graph.s8_quantize)."""
        self._run("flex_s8_quantize", [size, view(inp, np.float32, size), float(scale), zp,
                                       _i8(out, size)], "size %d" % size)

    def dequantize_s8(self, inp, out, size, scale, zp):
        """int8 -> float32 (burn.graph.s8_quantize)."""
        self._run("flex_s8_dequantize", [size, _i8(inp, size), float(scale), zp,
                                         view(out, np.float32, size)], "size %d" % size)

    def requantize_s8(self, inp, out, size, in_zp, out_zp, mult, shift):
        """int8 -> int8 with a new scale (burn.graph.s8_quantize)."""
        self._run("flex_s8_requantize", [size, _i8(inp, size), in_zp, mult, shift, out_zp,
                                         _i8(out, size)], "size %d" % size)

    def pad(self, inp, out, d0, d1, d2, d3, b0, b1, b2, b3, a0, a1, a2, a3, value):
        """Constant pad of a 4-D tensor (burn.graph.layout.pad); int8 or float32 by `inp`."""
        dtype = np.float32 if _is_float(inp) else np.int8
        x = view(inp, dtype, d0 * d1 * d2 * d3)
        count = (d0 + b0 + a0) * (d1 + b1 + a1) * (d2 + b2 + a2) * (d3 + b3 + a3)
        y = view(out, dtype, count)
        self._run("flex_pad", [x.itemsize, dims(d0, d1, d2, d3), x, x.size,
                               np.array([b0, a0, b1, a1, b2, a2, b3, a3], np.int32),
                               np.array([value], dtype), y, y.size],
                  "input %s" % ((d0, d1, d2, d3),))

    def concat(self, inputs, inner_sizes, out, outer):
        """Concatenate [outer, inner_k] buffers along the inner axis (burn.graph.layout)."""
        dtype = _dtype(out)
        sizes = [int(s) for s in inner_sizes]
        xs = [view(b, dtype, outer * s) for b, s in zip(inputs, sizes)]
        y = view(out, dtype, outer * sum(sizes))
        self._run("flex_concat", [y.itemsize, len(xs), PtrList(xs), np.array(sizes, np.int32),
                                  outer, 1, y, y.size], "inner sizes %s" % (sizes,))

    def transpose_conv_f32(self, inp, w, bias, out, n, ih, iw, ic, oh, ow, oc, kh, kw,
                           stride_h, stride_w, pad_top, pad_left, act):
        """float32 transposed convolution (burn.graph.transpose_conv2d)."""
        x, y = _f32(inp, n * ih * iw * ic), _f32(out, n * oh * ow * oc)
        self._run("flex_f32_nhwc_transpose_conv2d", [
            dims(n, ih, iw, ic), x, x.size, _f32(w, oc * kh * kw * ic), oc * kh * kw * ic,
            *_bias_f32(bias, oc), struct("flex_transpose_window", locals()), act,
            dims(n, oh, ow, oc), y, y.size],
            "input %s, output %s, kernel %dx%d" % ((n, ih, iw, ic), (n, oh, ow, oc), kh, kw))

    def conv_f32(self, inp, w, bias, out, n, ih, iw, ic, oh, ow, oc, kh, kw, groups,
                 stride_h, stride_w, dil_h, dil_w, pad_top, pad_left, act):
        """float32 convolution with groups (burn.graph.f32_conv.conv_f32)."""
        wn = oc * kh * kw * (ic // groups if groups else 0)
        x, y = _f32(inp, n * ih * iw * ic), _f32(out, n * oh * ow * oc)
        self._run("flex_f32_nhwc_conv2d", [
            dims(n, ih, iw, ic), x, x.size, _f32(w, wn), wn, *_bias_f32(bias, oc),
            window(ih, iw, oh, ow, kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left),
            groups, act, dims(n, oh, ow, oc), y, y.size],
            "input %s, output %s, kernel %dx%d, groups %d" % (
                (n, ih, iw, ic), (n, oh, ow, oc), kh, kw, groups))

    def depthwise_conv_f32(self, inp, w, bias, out, n, ih, iw, ic, oh, ow, depth_mult, kh, kw,
                           stride_h, stride_w, dil_h, dil_w, pad_top, pad_left, act):
        """float32 depthwise convolution (burn.graph.f32_depthwise_conv)."""
        oc = ic * depth_mult
        x, y = _f32(inp, n * ih * iw * ic), _f32(out, n * oh * ow * oc)
        self._run("flex_f32_nhwc_depthwise_conv2d", [
            dims(n, ih, iw, ic), x, x.size, _f32(w, kh * kw * oc), kh * kw * oc,
            *_bias_f32(bias, oc),
            window(ih, iw, oh, ow, kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left),
            depth_mult, act, dims(n, oh, ow, oc), y, y.size],
            "input %s, output %s, kernel %dx%d" % ((n, ih, iw, ic), (n, oh, ow, oc), kh, kw))

    def fully_connected_f32(self, inp, w, bias, out, batches, in_features, out_features, act):
        """float32 fully connected (burn.graph.f32_fully_connected)."""
        x, y = _f32(inp, batches * in_features), _f32(out, batches * out_features)
        wv = _f32(w, out_features * in_features)
        self._run("flex_f32_fully_connected", [
            batches, in_features, out_features, x, x.size, wv, wv.size,
            *_bias_f32(bias, out_features), act, y, y.size],
            "%d x %d -> %d" % (batches, in_features, out_features))

    def add_f32(self, a, b, out, size, b_size, act):
        """float32 ADD with b broadcast along the innermost dims (burn.graph.f32_elementwise)."""
        self._run("flex_f32_add_act", [size, _f32(a, size), _f32(b, b_size), b_size, act,
                                       _f32(out, size)], "size %d, b_size %d" % (size, b_size))

    def mul_f32(self, a, b, out, size, b_size, act):
        """float32 MUL with b broadcast along the innermost dims (burn.graph.f32_elementwise)."""
        self._run("flex_f32_mul_act", [size, _f32(a, size), _f32(b, b_size), b_size, act,
                                       _f32(out, size)], "size %d, b_size %d" % (size, b_size))

    def clamp_f32(self, inp, out, size, act):
        """A lone float32 RELU / RELU6 / RELU_N1_TO_1 (burn.graph.f32_elementwise)."""
        self._run("flex_f32_act", [size, _f32(inp, size), act, _f32(out, size)],
                  "size %d" % size)

    def _unary(self, op, inp, out, size):
        self._run("flex_f32_unary", [op, size, _f32(inp, size), _f32(out, size)],
                  "size %d" % size)

    def logistic_f32(self, inp, out, size):
        """float32 logistic (burn.graph.f32_elementwise)."""
        self._unary(UNARY.index("sigmoid"), inp, out, size)

    def tanh_f32(self, inp, out, size):
        """float32 tanh (burn.graph.f32_elementwise)."""
        self._unary(UNARY.index("tanh"), inp, out, size)

    def _pool_f32(self, name, inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w,
                  pad_top, pad_left, act):
        x, y = _f32(inp, n * ih * iw * c), _f32(out, n * oh * ow * c)
        self._run(name, [dims(n, ih, iw, c), x, x.size,
                         window(ih, iw, oh, ow, kh, kw, stride_h, stride_w, 1, 1, pad_top,
                                pad_left),
                         act, dims(n, oh, ow, c), y, y.size],
                  "input %s, output %s, window %dx%d" % ((n, ih, iw, c), (n, oh, ow, c), kh, kw))

    def avg_pool_f32(self, *args):
        """float32 average pool (burn.graph.f32_pool.avg_pool_f32 arguments)."""
        self._pool_f32("flex_f32_nhwc_avg_pool2d", *args)

    def max_pool_f32(self, *args):
        """float32 max pool (burn.graph.f32_pool.max_pool_f32 arguments)."""
        self._pool_f32("flex_f32_nhwc_max_pool2d", *args)

    def mean_f32(self, inp, out, outer, reduce, inner):
        """float32 MEAN over the middle axis (burn.graph.f32_mean)."""
        x, y = _f32(inp, outer * reduce * inner), _f32(out, outer * inner)
        self._run("flex_f32_mean", [outer, reduce, inner, x, x.size, y, y.size],
                  "[%d, %d, %d]" % (outer, reduce, inner))

    def softmax_f32(self, inp, out, rows, depth, beta):
        """float32 softmax over the last axis (burn.graph.f32_softmax)."""
        x, y = _f32(inp, rows * depth), _f32(out, rows * depth)
        self._run("flex_f32_softmax_beta", [rows, depth, x, x.size, float(beta), y, y.size],
                  "[%d, %d]" % (rows, depth))

    def lookup_s8(self, inp, out, size, table):
        """An int8 op as a 256-entry table lookup (burn.graph.unary, optional)."""
        self._run("flex_s8_lookup", [size, _i8(inp, size), _i8(table, 256), _i8(out, size)],
                  "size %d" % size)

    def unary_f32(self, inp, out, size, fn, alpha):
        """A float32 unary activation by flex_c op code (burn.graph.unary, optional)."""
        self._run("flex_f32_activation", [fn, size, _f32(inp, size), float(alpha),
                                          _f32(out, size)], "size %d, fn %d" % (size, fn))

    def prelu_s8(self, inp, alpha, out, size, alpha_size, in_zp, alpha_zp, out_zp, pos_mult,
                 pos_shift, neg_mult, neg_shift):
        """int8 PRELU, alpha broadcast along the innermost dims (burn.graph.prelu)."""
        params = struct("flex_s8_prelu_params", locals())
        self._run("flex_s8_prelu", [size, _i8(inp, size), _i8(alpha, alpha_size), alpha_size,
                                    params, _i8(out, size)],
                  "size %d, alpha_size %d" % (size, alpha_size))

    def log_softmax_s8(self, inp, out, rows, depth, in_mult, in_left_shift, reverse_mult,
                       reverse_shift, diff_min):
        """int8 log softmax over the last axis (burn.graph.log_softmax)."""
        x, y = _i8(inp, rows * depth), _i8(out, rows * depth)
        self._run("flex_s8_log_softmax", [rows, depth, x, x.size, in_mult, in_left_shift,
                                          reverse_mult, reverse_shift, diff_min, y, y.size],
                  "[%d, %d]" % (rows, depth))

    def log_softmax_f32(self, inp, out, rows, depth):
        """float32 log softmax over the last axis (burn.graph.log_softmax)."""
        x, y = _f32(inp, rows * depth), _f32(out, rows * depth)
        self._run("flex_f32_log_softmax", [rows, depth, 1, x, x.size, y, y.size],
                  "[%d, %d]" % (rows, depth))

    def prelu_f32(self, inp, alpha, out, size, alpha_size):
        """float32 PRELU (burn.graph.prelu)."""
        self._run("flex_f32_prelu", [size, _f32(inp, size), _f32(alpha, alpha_size),
                                     alpha_size, _f32(out, size)],
                  "size %d, alpha_size %d" % (size, alpha_size))
    def _svdf(self, name, bufs, views, tail, batch, input_size, filters, memory, rank):
        """bufs: (inp, wf, out, wt, bias, state); views: the element views of the first
        three and of the last three."""
        d = struct("flex_svdf_dims", locals())
        units = filters // rank
        counts = (batch * input_size, filters * input_size, batch * units, filters * memory,
                  units, batch * filters * memory)
        x, w, y, t, b, s = [views[k // 3](buf, n) for k, (buf, n) in
                            enumerate(zip(bufs, counts))]
        self._run(name, [d, x, x.size, w, w.size, t, t.size, b, b.size, s, s.size, tail, y,
                         y.size], "batch %d, %d inputs, %d filters of rank %d, memory %d"
                  % (batch, input_size, filters, rank, memory))

    def svdf_s8(self, inp, wf, wt, bias, state, out, batch, input_size, filters, memory, rank,
                in_zp, state_zp, out_zp, state_mult, state_shift, out_mult, out_shift,
                state_bits):
        """int8 SVDF, int16 or int8 weights_time and state in int32 elements
        (burn.graph.svdf)."""
        self._svdf("flex_s8_svdf", (inp, wf, out, wt, bias, state), (_i8, _i32),
                   struct("flex_svdf_quant", locals()), batch, input_size, filters, memory,
                   rank)

    def svdf_f32(self, inp, wf, wt, bias, state, out, batch, input_size, filters, memory, rank,
                 act):
        """float32 SVDF (burn.graph.svdf)."""
        self._svdf("flex_f32_svdf", (inp, wf, out, wt, bias, state), (_f32, _f32), act, batch,
                   input_size, filters, memory, rank)
    # -- int16x8 (flex_c/src/extra) ----------------------------------------------------------
    def quantize_s16(self, inp, out, size, scale, zp):
        """float32 -> int16 (burn.graph.s16_quantize)."""
        self._run("flex_s16_quantize", [size, view(inp, np.float32, size), float(scale), zp,
                                        _i16(out, size)], "size %d" % size)

    def dequantize_s16(self, inp, out, size, scale, zp):
        """int16 -> float32 (burn.graph.s16_quantize)."""
        self._run("flex_s16_dequantize", [size, _i16(inp, size), float(scale), zp,
                                          view(out, np.float32, size)], "size %d" % size)

    def _requantize16(self, in_bits, out_bits, inp, out, size, in_zp, out_zp, mult, shift):
        x = (_i8 if in_bits == 8 else _i16)(inp, size)
        y = (_i8 if out_bits == 8 else _i16)(out, size)
        self._run("flex_s16_requantize", [size, x, in_bits, in_zp, mult, shift, out_zp,
                                          out_bits, y], "size %d" % size)

    def requantize_s16(self, inp, out, size, in_zp, out_zp, mult, shift):
        """int16 -> int16 with a new scale (burn.graph.s16_quantize)."""
        self._requantize16(16, 16, inp, out, size, in_zp, out_zp, mult, shift)

    def requantize_s8_s16(self, inp, out, size, in_zp, out_zp, mult, shift):
        """int8 -> int16 (burn.graph.s16_quantize)."""
        self._requantize16(8, 16, inp, out, size, in_zp, out_zp, mult, shift)

    def requantize_s16_s8(self, inp, out, size, in_zp, out_zp, mult, shift):
        """int16 -> int8 (burn.graph.s16_quantize)."""
        self._requantize16(16, 8, inp, out, size, in_zp, out_zp, mult, shift)

    def fully_connected_s16(self, inp, w, bias, mult, shift, out, batches, in_features,
                            out_features, wide, in_zp, out_zp, act_min, act_max):
        """int16x8 fully connected (burn.graph.s16_fully_connected)."""
        x, y = _i16(inp, batches * in_features), _i16(out, batches * out_features)
        wv = _i8(w, out_features * in_features)
        self._run("flex_s16_fully_connected", [
            batches, in_features, out_features, x, x.size, wv, wv.size,
            _i32(bias, out_features), out_features, _i32(mult, out_features),
            _i32(shift, out_features), out_features, wide,
            struct("flex_s16_quant", locals()), y, y.size],
            "%d x %d -> %d" % (batches, in_features, out_features))

    def conv_s16(self, inp, w, bias, mult, shift, out, n, ih, iw, ic, oh, ow, oc, kh, kw,
                 groups, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left, wide, act_min,
                 act_max):
        """int16x8 convolution with groups (burn.graph.s16_conv)."""
        wn = oc * kh * kw * (ic // groups if groups else 0)
        x, y = _i16(inp, n * ih * iw * ic), _i16(out, n * oh * ow * oc)
        self._run("flex_s16_conv2d", [
            dims(n, ih, iw, ic), x, x.size, _i8(w, wn), wn, _i32(bias, oc), oc,
            _i32(mult, oc), _i32(shift, oc), oc,
            window(ih, iw, oh, ow, kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left),
            groups, wide, act_min, act_max, dims(n, oh, ow, oc), y, y.size],
            "input %s, output %s, kernel %dx%d, groups %d" % (
                (n, ih, iw, ic), (n, oh, ow, oc), kh, kw, groups))

    def depthwise_conv_s16(self, inp, w, bias, mult, shift, out, n, ih, iw, ic, oh, ow,
                           depth_mult, kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top,
                           pad_left, act_min, act_max):
        """int16x8 depthwise convolution (burn.graph.s16_depthwise_conv)."""
        oc = ic * depth_mult
        x, y = _i16(inp, n * ih * iw * ic), _i16(out, n * oh * ow * oc)
        self._run("flex_s16_depthwise_conv2d", [
            dims(n, ih, iw, ic), x, x.size, _i8(w, kh * kw * oc), kh * kw * oc,
            _i32(bias, oc), oc, _i32(mult, oc), _i32(shift, oc), oc,
            window(ih, iw, oh, ow, kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left),
            depth_mult, act_min, act_max, dims(n, oh, ow, oc), y, y.size],
            "input %s, output %s, kernel %dx%d" % ((n, ih, iw, ic), (n, oh, ow, oc), kh, kw))

    def add_s16(self, a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
                out_zp, out_mult, out_shift, left_shift, act_min, act_max):
        """int16 ADD with b broadcast along the innermost dims (burn.graph.s16_elementwise)."""
        self._run("flex_s16_add", [size, _i16(a, size), _i16(b, b_size), b_size,
                                   struct("flex_s8_add_params", locals()), _i16(out, size)],
                  "size %d, b_size %d" % (size, b_size))

    def mul_s16(self, a, b, out, size, b_size, a_zp, b_zp, out_zp, mult, shift, act_min,
                act_max):
        """int16 MUL with b broadcast along the innermost dims (burn.graph.s16_elementwise)."""
        self._run("flex_s16_mul", [size, _i16(a, size), _i16(b, b_size), b_size,
                                   struct("flex_s8_mul_params", locals()), _i16(out, size)],
                  "size %d, b_size %d" % (size, b_size))

    def _pool16(self, name, inp, out, n, ih, iw, c, oh, ow, kh, kw, stride_h, stride_w,
                pad_top, pad_left, act_min, act_max):
        x, y = _i16(inp, n * ih * iw * c), _i16(out, n * oh * ow * c)
        self._run(name, [dims(n, ih, iw, c), x, x.size,
                         window(ih, iw, oh, ow, kh, kw, stride_h, stride_w, 1, 1, pad_top,
                                pad_left),
                         act_min, act_max, dims(n, oh, ow, c), y, y.size],
                  "input %s, output %s, window %dx%d" % ((n, ih, iw, c), (n, oh, ow, c), kh, kw))

    def avg_pool_s16(self, *args):
        """int16 average pool (burn.graph.s16_pool.avg_pool_s16 arguments)."""
        self._pool16("flex_s16_avg_pool2d", *args)

    def max_pool_s16(self, *args):
        """int16 max pool (burn.graph.s16_pool.max_pool_s16 arguments)."""
        self._pool16("flex_s16_max_pool2d", *args)

    def softmax_s16(self, inp, out, rows, depth, in_mult, in_left_shift, exp_lut, inv_lut):
        """int16 softmax over the last axis (burn.graph.s16_softmax)."""
        x, y = _i16(inp, rows * depth), _i16(out, rows * depth)
        self._run("flex_s16_softmax", [rows, depth, x, x.size, in_mult, in_left_shift,
                                       _i16(exp_lut, 513), 513, _i16(inv_lut, 513), 513, y,
                                       y.size], "[%d, %d]" % (rows, depth))

    def logistic_s16(self, inp, out, size, in_mult, in_left_shift, table):
        """int16 LOGISTIC (burn.graph.s16_sigmoid)."""
        self._sigmoid16("flex_s16_logistic", inp, out, size, in_mult, in_left_shift, table)

    def tanh_s16(self, inp, out, size, in_mult, in_left_shift, table):
        """int16 TANH (burn.graph.s16_sigmoid)."""
        self._sigmoid16("flex_s16_tanh", inp, out, size, in_mult, in_left_shift, table)

    def _sigmoid16(self, name, inp, out, size, in_mult, in_left_shift, table):
        self._run(name, [size, _i16(inp, size), in_mult, in_left_shift, _i16(table, 256), 256,
                         _i16(out, size)], "size %d" % size)

    def strided(self, inp, out, offset, d0, d1, d2, d3, d4, d5, s0, s1, s2, s3, s4, s5):
        """Strided copy over the box [d0, ..., d5] (burn.graph.strided); int8 or float32 by
        `out`; the C kernel checks every read against the whole input buffer."""
        dtype = np.float32 if _is_float(out) else np.int8
        dims = np.array([d0, d1, d2, d3, d4, d5], np.int32)
        x, y = view(inp, dtype), view(out, dtype, int(np.prod(dims, dtype=np.int64)))
        self._run("flex_strided", [y.itemsize, x, x.size, offset, dims,
                                   np.array([s0, s1, s2, s3, s4, s5], np.int32), y, y.size],
                  "box %s, strides %s" % (dims.tolist(), [s0, s1, s2, s3, s4, s5]))

    strided_s8 = strided
    def reduce_s8(self, inp, out, outer, reduce, mid, reduce2, inner, op, in_zp, out_zp, mult,
                  shift):
        """int8 reduction over axes 1 and 3 of five (burn.graph.reduce)."""
        d = np.array([outer, reduce, mid, reduce2, inner], np.int32)
        x, y = _i8(inp, int(np.prod(d, dtype=np.int64))), _i8(out, outer * mid * inner)
        self._run("flex_s8_reduce_axes", [d, op, x, x.size, in_zp, mult, shift, out_zp, y, y.size],
                  "%s op %d" % (d.tolist(), op))

    def reduce_f32(self, inp, out, outer, reduce, mid, reduce2, inner, op):
        """float32 reduction over axes 1 and 3 of five (burn.graph.reduce)."""
        d = np.array([outer, reduce, mid, reduce2, inner], np.int32)
        x, y = _f32(inp, int(np.prod(d, dtype=np.int64))), _f32(out, outer * mid * inner)
        self._run("flex_f32_reduce_axes", [d, op, x, x.size, y, y.size],
                  "%s op %d" % (d.tolist(), op))

    def resize_s8(self, inp, out, n, ih, iw, c, oh, ow, ys, xs):
        """int8 resize through sampling tables (burn.graph.resize)."""
        x, y = _i8(inp, n * ih * iw * c), _i8(out, n * oh * ow * c)
        self._run("flex_s8_resize", [dims(n, ih, iw, c), x, x.size, _i32(ys, 3 * oh), 3 * oh,
                                     _i32(xs, 3 * ow), 3 * ow, dims(n, oh, ow, c), y, y.size],
                  "%s -> %s" % ((n, ih, iw, c), (n, oh, ow, c)))

    def resize_f32(self, inp, out, n, ih, iw, c, oh, ow, ys, xs, fy, fx):
        """float32 resize through sampling tables (burn.graph.resize)."""
        x, y = _f32(inp, n * ih * iw * c), _f32(out, n * oh * ow * c)
        self._run("flex_f32_resize", [dims(n, ih, iw, c), x, x.size, _i32(ys, 3 * oh), 3 * oh,
                                      _i32(xs, 3 * ow), 3 * ow, _f32(fy, oh), _f32(fx, ow),
                                      dims(n, oh, ow, c), y, y.size],
                  "%s -> %s" % ((n, ih, iw, c), (n, oh, ow, c)))

    def arg_s8(self, inp, out, outer, reduce, inner, op):
        """int8 arg max / min with float32 or int32 indices (burn.graph.arg)."""
        x, y = _i8(inp, outer * reduce * inner), _f32(out, outer * inner)
        self._run("flex_s8_arg", [outer, reduce, inner, op, x, x.size, y, y.size],
                  "[%d, %d, %d] op %d" % (outer, reduce, inner, op))

    def arg_f32(self, inp, out, outer, reduce, inner, op):
        """float32 arg max / min with float32 or int32 indices (burn.graph.arg)."""
        x, y = _f32(inp, outer * reduce * inner), _f32(out, outer * inner)
        self._run("flex_f32_arg", [outer, reduce, inner, op, x, x.size, y, y.size],
                  "[%d, %d, %d] op %d" % (outer, reduce, inner, op))

    def l2norm_s8(self, inp, out, rows, depth, in_zp):
        """int8 L2 normalization over the last axis (burn.graph.l2norm)."""
        x, y = _i8(inp, rows * depth), _i8(out, rows * depth)
        self._run("flex_s8_l2norm", [rows, depth, x, x.size, in_zp, y, y.size],
                  "[%d, %d]" % (rows, depth))

    def l2norm_f32(self, inp, out, rows, depth):
        """float32 L2 normalization over the last axis (burn.graph.l2norm)."""
        x, y = _f32(inp, rows * depth), _f32(out, rows * depth)
        self._run("flex_f32_l2norm", [rows, depth, x, x.size, y, y.size],
                  "[%d, %d]" % (rows, depth))

    def _matmul(self, name, a, b, out, batches, m, k, n, a_step, b_step, adj_x, adj_y, view,
                quant=()):
        d = struct("flex_matmul_dims", locals())
        x = view(a, (batches - 1) * a_step + m * k)
        w = view(b, (batches - 1) * b_step + k * n)
        y = view(out, batches * m * n)
        self._run(name, [d, x, x.size, w, w.size, *quant, y, y.size],
                  "%d x [%d, %d] @ [%d, %d]" % (batches, m, k, k, n))

    def batch_matmul_s8(self, a, b, out, batches, m, k, n, a_step, b_step, adj_x, adj_y, a_zp,
                        b_zp, out_zp, mult, shift):
        """int8 batched matrix product (burn.graph.batch_matmul)."""
        self._matmul("flex_s8_batch_matmul", a, b, out, batches, m, k, n, a_step, b_step,
                     adj_x, adj_y, _i8, (a_zp, b_zp, out_zp, mult, shift))

    def batch_matmul_f32(self, a, b, out, batches, m, k, n, a_step, b_step, adj_x, adj_y):
        """float32 batched matrix product (burn.graph.batch_matmul)."""
        self._matmul("flex_f32_batch_matmul", a, b, out, batches, m, k, n, a_step, b_step,
                     adj_x, adj_y, _f32)

    # -- optional ops: elementwise arithmetic (flex_c/src/extra) ---------------------------

    def _add_like(self, name, args):
        """flex_s8_sub or flex_s8_squared_difference (flex_s8_add's arguments) from the
        burn.graph arguments `args`; a swap (SUB's b - a) passes b as flex's first input."""
        size, b_size = args["size"], args["b_size"]
        da, db = self._broadcast_dims(size, b_size)
        first, second = (da, _i8(args["a"], size)), (db, _i8(args["b"], b_size))
        if args.get("swap"):
            first, second = second, first
            args = dict(args)
            for field in ("zp", "mult", "shift"):
                args["a_" + field], args["b_" + field] = args["b_" + field], args["a_" + field]
        self._run(name, [first[0], first[1], first[1].size, second[0], second[1],
                         second[1].size, struct("flex_s8_add_params", args), da,
                         _i8(args["out"], size), size], "size %d, b_size %d" % (size, b_size))

    def sub_s8(self, a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
               out_zp, out_mult, out_shift, left_shift, act_min, act_max, swap):
        """int8 SUB, a - b (b - a when swap is 1), b broadcast (burn.graph.s8_arith)."""
        self._add_like("flex_s8_sub", locals())

    def squared_difference_s8(self, a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp,
                              b_mult, b_shift, out_zp, out_mult, out_shift, left_shift,
                              act_min, act_max):
        """int8 SQUARED_DIFFERENCE, b broadcast (burn.graph.s8_arith)."""
        self._add_like("flex_s8_squared_difference", locals())

    def _arith(self, name, op, a, b, out, size, b_size, dtype, *act):
        self._run(name, [ARITH.index(op), size, view(a, dtype, size), view(b, dtype, b_size),
                         b_size, *act, view(out, dtype, size)],
                  "size %d, b_size %d" % (size, b_size))

    def maximum_s8(self, a, b, out, size, b_size):
        """int8 MAXIMUM of the stored values, b broadcast (burn.graph.s8_arith)."""
        self._arith("flex_s8_arith", "maximum", a, b, out, size, b_size, np.int8)

    def minimum_s8(self, a, b, out, size, b_size):
        """int8 MINIMUM of the stored values, b broadcast (burn.graph.s8_arith)."""
        self._arith("flex_s8_arith", "minimum", a, b, out, size, b_size, np.int8)

    def sub_f32(self, a, b, out, size, b_size, act, swap):
        """float32 SUB, a - b (b - a when swap is 1), b broadcast (burn.graph.f32_arith)."""
        self._arith("flex_f32_arith", "sub_swapped" if swap else "sub", a, b, out, size,
                    b_size, np.float32, act)

    def squared_difference_f32(self, a, b, out, size, b_size):
        """float32 SQUARED_DIFFERENCE, b broadcast (burn.graph.f32_arith)."""
        self._arith("flex_f32_arith", "squared_difference", a, b, out, size, b_size,
                    np.float32, 0)

    def maximum_f32(self, a, b, out, size, b_size):
        """float32 MAXIMUM, b broadcast (burn.graph.f32_arith)."""
        self._arith("flex_f32_arith", "maximum", a, b, out, size, b_size, np.float32, 0)

    def minimum_f32(self, a, b, out, size, b_size):
        """float32 MINIMUM, b broadcast (burn.graph.f32_arith)."""
        self._arith("flex_f32_arith", "minimum", a, b, out, size, b_size, np.float32, 0)

    def div_f32(self, a, b, out, size, b_size, op, swap, act):
        """float32 DIV, FLOOR_DIV, FLOOR_MOD (op 0, 1, 2), b op a when swap is 1, b broadcast
        (burn.graph.div)."""
        name = ("div", "floor_div", "floor_mod")[op] + ("_swapped" if swap else "")
        self._arith("flex_f32_arith", name, a, b, out, size, b_size, np.float32, act)

    # -- optional ops: comparisons and selection (flex_c/src/extra) ------------------------

    def compare_s8(self, a, b, out, size, b_size, op, a_zp, a_mult, a_shift, b_zp, b_mult,
                   b_shift):
        """int8 comparison of the rescaled operands into 0/1, b broadcast (burn.graph.logic)."""
        self._run("flex_s8_compare", [op, size, _i8(a, size), _i8(b, b_size), b_size,
                                      struct("flex_s8_compare_params", locals()),
                                      _i8(out, size)], "size %d, b_size %d" % (size, b_size))

    def compare_f32(self, a, b, out, size, b_size, op):
        """float32 comparison into int8 0/1, b broadcast (burn.graph.logic)."""
        self._run("flex_f32_compare", [op, size, _f32(a, size), _f32(b, b_size), b_size,
                                       _i8(out, size)], "size %d, b_size %d" % (size, b_size))

    def _select(self, cond, x, y, out, size, c_size, x_size, y_size, dtype):
        self._run("flex_select", [np.dtype(dtype).itemsize, size, _i8(cond, c_size), c_size,
                                  view(x, dtype, x_size), x_size, view(y, dtype, y_size),
                                  y_size, view(out, dtype, size)],
                  "size %d, sizes %d, %d, %d" % (size, c_size, x_size, y_size))

    def select_s8(self, cond, x, y, out, size, c_size, x_size, y_size):
        """int8 SELECT_V2, each operand broadcast (burn.graph.logic)."""
        self._select(cond, x, y, out, size, c_size, x_size, y_size, np.int8)

    def select_f32(self, cond, x, y, out, size, c_size, x_size, y_size):
        """float32 SELECT_V2, each operand broadcast (burn.graph.logic)."""
        self._select(cond, x, y, out, size, c_size, x_size, y_size, np.float32)

    # -- optional op: int8 division (flex_c/src/extra) ---------------------------------------

    def div_s8(self, a, b, out, size, b_size, swap, a_zp, b_zp, out_zp, mult, shift, act_min,
               act_max):
        """int8 DIV, b / a when swap is 1, b broadcast (burn.graph.div)."""
        self._run("flex_s8_div", [size, _i8(a, size), _i8(b, b_size), b_size,
                                  struct("flex_s8_div_params", locals()), _i8(out, size)],
                  "size %d, b_size %d" % (size, b_size))

    def _lstm(self, name, bufs, views, tail, batch, steps, input_size, units, time_major):
        """bufs: (inp, w, out, r, bias, state); views: their element views; tail: the
        kernel's arguments after the bias (the state goes before tail's last)."""
        d = struct("flex_lstm_dims", locals())
        rows, gates = batch * steps, 4 * units
        counts = (rows * input_size, gates * input_size, rows * units, gates * units, gates,
                  (2 * batch + 4) * units)
        x, w, y, r, b, s = [v(buf, n) for v, buf, n in zip(views, bufs, counts)]
        self._run(name, [d, x, x.size, w, w.size, r, r.size, b, b.size, *tail[:-1], s, s.size,
                         tail[-1], y, y.size], "%d steps of %d sequences, %d inputs, %d units"
                  % (steps, batch, input_size, units))

    def lstm_f32(self, inp, w, r, bias, state, out, batch, steps, input_size, units,
                 time_major, cell_clip):
        """float32 LSTM (burn.graph.lstm)."""
        self._lstm("flex_f32_lstm", (inp, w, out, r, bias, state), (_f32,) * 6,
                   (float(cell_clip),), batch, steps, input_size, units,
                   time_major)

    def lstm_s8(self, inp, w, r, bias, state, out, batch, steps, input_size, units,
                time_major, gate_q, table, in_zp, out_zp, cell_clip, cell_power, fc_mult,
                fc_shift, ic_mult, ic_shift, hid_mult, hid_shift):
        """int8 LSTM, int16 gates and states (burn.graph.lstm)."""
        q, t = _i32(gate_q, 16), _i16(table, 256)
        self._lstm("flex_s8_lstm", (inp, w, out, r, bias, state),
                   (_i8, _i8, _i8, _i8, _i32, _i16),
                   (q, q.size, t, t.size, struct("flex_lstm_quant", locals())), batch, steps,
                   input_size, units, time_major)

    # -- optional op: gather at run-time positions (flex_c/src/extra) ------------------------

    def _gather(self, inp, pos, out, outer, size, inner, count, dtype):
        x, y = view(inp, dtype, outer * size * inner), view(out, dtype, outer * count * inner)
        self._run("flex_gather", [x.itemsize, outer, size, inner, count, x, x.size,
                                  _i32(pos, count), count, y, y.size],
                  "[%d, %d, %d] at %d positions (each must lie in [0, %d))"
                  % (outer, size, inner, count, size))

    def gather_s8(self, inp, pos, out, outer, size, inner, count):
        """int8 rows at run-time positions (burn.graph.gather)."""
        self._gather(inp, pos, out, outer, size, inner, count, np.int8)

    def gather_f32(self, inp, pos, out, outer, size, inner, count):
        """float32 rows at run-time positions (burn.graph.gather)."""
        self._gather(inp, pos, out, outer, size, inner, count, np.float32)


def _is_float(buf):
    if isinstance(buf, np.ndarray):
        return buf.dtype == np.float32
    return getattr(buf, "typecode", None) == "f" or (
        isinstance(buf, memoryview) and buf.format == "f")


def _dtype(buf):
    """float32, int16 or int8: the element type of a layout kernel's buffer."""
    if _is_float(buf):
        return np.float32
    if isinstance(buf, np.ndarray):
        return np.int16 if buf.dtype == np.int16 else np.int8
    return np.int16 if getattr(buf, "typecode", None) == "h" or (
        isinstance(buf, memoryview) and buf.format == "h") else np.int8
