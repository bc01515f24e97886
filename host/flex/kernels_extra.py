"""The optional ops of burn.graph over windows, rows, axes and sequences (flex_c/src/extra)
on flex_c: transposed convolution (micropython/burnflex_extra_conv.c), log softmax, L2
normalization, arg max / min, reductions, resizes, batched matrix products, SVDF and LSTM
(burnflex_extra_<op>.c).
"""

import numpy as np

from burn.host.flex.params import (
    as_f32,
    as_i8,
    as_i16,
    as_i32,
    bias_f32,
    dims,
    quant,
    struct,
)


class ExtraKernels:
    """GraphKernels' optional kernels over windows, rows and axes (the composed class gives
    them `_run`)."""

    def transpose_conv_s8(self, inp, w, bias, mult, shift, out, n, ih, iw, ic, oh, ow, oc,
                          kh, kw, stride_h, stride_w, pad_top, pad_left, in_zp, out_zp,
                          act_min, act_max):
        """int8 transposed convolution (burn.graph.transpose_conv2d)."""
        self._transpose_conv("flex_s8_transpose_conv2d", as_i8, inp, w, bias, mult, shift,
                             out, n, ih, iw, ic, oh, ow, oc, kh, kw, stride_h, stride_w,
                             pad_top, pad_left, in_zp, out_zp, act_min, act_max)

    def transpose_conv_s16(self, inp, w, bias, mult, shift, out, n, ih, iw, ic, oh, ow, oc,
                           kh, kw, stride_h, stride_w, pad_top, pad_left, in_zp, out_zp,
                           act_min, act_max):
        """int16x8 transposed convolution (burn.graph.transpose_conv2d)."""
        self._transpose_conv("flex_s16_transpose_conv2d", as_i16, inp, w, bias, mult, shift,
                             out, n, ih, iw, ic, oh, ow, oc, kh, kw, stride_h, stride_w,
                             pad_top, pad_left, in_zp, out_zp, act_min, act_max)

    def _transpose_conv(self, name, view, inp, w, bias, mult, shift, out, n, ih, iw, ic, oh,
                        ow, oc, kh, kw, stride_h, stride_w, pad_top, pad_left, in_zp, out_zp,
                        act_min, act_max):
        """A quantized transposed convolution through flex_c function `name`, its input and
        output viewed by `view` (int8 weights)."""
        wn = oc * kh * kw * ic
        x, y = view(inp, n * ih * iw * ic), view(out, n * oh * ow * oc)
        b = None if bias is None else as_i32(bias, oc)
        self._run(name, [
            dims(n, ih, iw, ic), x, x.size, as_i8(w, wn), wn, b, 0 if b is None else oc,
            as_i32(mult, oc), as_i32(shift, oc), oc, struct("flex_transpose_window", locals()),
            quant(in_zp, out_zp, act_min, act_max), dims(n, oh, ow, oc), y, y.size],
            "input %s, output %s, kernel %dx%d" % ((n, ih, iw, ic), (n, oh, ow, oc), kh, kw))

    def transpose_conv_f32(self, inp, w, bias, out, n, ih, iw, ic, oh, ow, oc, kh, kw,
                           stride_h, stride_w, pad_top, pad_left, act):
        """float32 transposed convolution (burn.graph.transpose_conv2d)."""
        x, y = as_f32(inp, n * ih * iw * ic), as_f32(out, n * oh * ow * oc)
        self._run("flex_f32_nhwc_transpose_conv2d", [
            dims(n, ih, iw, ic), x, x.size, as_f32(w, oc * kh * kw * ic), oc * kh * kw * ic,
            *bias_f32(bias, oc), struct("flex_transpose_window", locals()), act,
            dims(n, oh, ow, oc), y, y.size],
            "input %s, output %s, kernel %dx%d" % ((n, ih, iw, ic), (n, oh, ow, oc), kh, kw))

    def arg_s8(self, inp, out, outer, reduce, inner, op):
        """int8 arg max / min with float32 or int32 indices (burn.graph.arg)."""
        x, y = as_i8(inp, outer * reduce * inner), as_f32(out, outer * inner)
        self._run("flex_s8_arg", [outer, reduce, inner, op, x, x.size, y, y.size],
                  "[%d, %d, %d] op %d" % (outer, reduce, inner, op))

    def arg_f32(self, inp, out, outer, reduce, inner, op):
        """float32 arg max / min with float32 or int32 indices (burn.graph.arg)."""
        x, y = as_f32(inp, outer * reduce * inner), as_f32(out, outer * inner)
        self._run("flex_f32_arg", [outer, reduce, inner, op, x, x.size, y, y.size],
                  "[%d, %d, %d] op %d" % (outer, reduce, inner, op))

    def reduce_s8(self, inp, out, outer, reduce, mid, reduce2, inner, op, in_zp, out_zp, mult,
                  shift):
        """int8 reduction over axes 1 and 3 of five (burn.graph.reduce)."""
        d = np.array([outer, reduce, mid, reduce2, inner], np.int32)
        x, y = as_i8(inp, int(np.prod(d, dtype=np.int64))), as_i8(out, outer * mid * inner)
        self._run("flex_s8_reduce_axes", [d, op, x, x.size, in_zp, mult, shift, out_zp, y, y.size],
                  "%s op %d" % (d.tolist(), op))

    def reduce_f32(self, inp, out, outer, reduce, mid, reduce2, inner, op):
        """float32 reduction over axes 1 and 3 of five (burn.graph.reduce)."""
        d = np.array([outer, reduce, mid, reduce2, inner], np.int32)
        x, y = as_f32(inp, int(np.prod(d, dtype=np.int64))), as_f32(out, outer * mid * inner)
        self._run("flex_f32_reduce_axes", [d, op, x, x.size, y, y.size],
                  "%s op %d" % (d.tolist(), op))

    def resize_s8(self, inp, out, n, ih, iw, c, oh, ow, ys, xs):
        """int8 resize through sampling tables (burn.graph.resize)."""
        x, y = as_i8(inp, n * ih * iw * c), as_i8(out, n * oh * ow * c)
        self._run("flex_s8_resize", [dims(n, ih, iw, c), x, x.size, as_i32(ys, 3 * oh), 3 * oh,
                                     as_i32(xs, 3 * ow), 3 * ow, dims(n, oh, ow, c), y, y.size],
                  "%s -> %s" % ((n, ih, iw, c), (n, oh, ow, c)))

    def resize_f32(self, inp, out, n, ih, iw, c, oh, ow, ys, xs, fy, fx):
        """float32 resize through sampling tables (burn.graph.resize)."""
        x, y = as_f32(inp, n * ih * iw * c), as_f32(out, n * oh * ow * c)
        self._run("flex_f32_resize", [dims(n, ih, iw, c), x, x.size, as_i32(ys, 3 * oh), 3 * oh,
                                      as_i32(xs, 3 * ow), 3 * ow, as_f32(fy, oh), as_f32(fx, ow),
                                      dims(n, oh, ow, c), y, y.size],
                  "%s -> %s" % ((n, ih, iw, c), (n, oh, ow, c)))

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
                     adj_x, adj_y, as_i8, (a_zp, b_zp, out_zp, mult, shift))

    def batch_matmul_s16(self, a, b, out, batches, m, k, n, a_step, b_step, adj_x, adj_y, a_zp,
                         b_zp, out_zp, mult, shift):
        """int16 batched matrix product (burn.graph.batch_matmul)."""
        self._matmul("flex_s16_batch_matmul", a, b, out, batches, m, k, n, a_step, b_step,
                     adj_x, adj_y, as_i16, (a_zp, b_zp, out_zp, mult, shift))

    def batch_matmul_f32(self, a, b, out, batches, m, k, n, a_step, b_step, adj_x, adj_y):
        """float32 batched matrix product (burn.graph.batch_matmul)."""
        self._matmul("flex_f32_batch_matmul", a, b, out, batches, m, k, n, a_step, b_step,
                     adj_x, adj_y, as_f32)

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
        self._svdf("flex_s8_svdf", (inp, wf, out, wt, bias, state), (as_i8, as_i32),
                   struct("flex_svdf_quant", locals()), batch, input_size, filters, memory,
                   rank)

    def svdf_f32(self, inp, wf, wt, bias, state, out, batch, input_size, filters, memory, rank,
                 act):
        """float32 SVDF (burn.graph.svdf)."""
        self._svdf("flex_f32_svdf", (inp, wf, out, wt, bias, state), (as_f32, as_f32), act, batch,
                   input_size, filters, memory, rank)

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
        self._lstm("flex_f32_lstm", (inp, w, out, r, bias, state), (as_f32,) * 6,
                   (float(cell_clip),), batch, steps, input_size, units,
                   time_major)

    def lstm_s8(self, inp, w, r, bias, state, out, batch, steps, input_size, units,
                time_major, gate_q, table, in_zp, out_zp, cell_clip, cell_power, fc_mult,
                fc_shift, ic_mult, ic_shift, hid_mult, hid_shift):
        """int8 LSTM, int16 gates and states (burn.graph.lstm)."""
        self._integer_lstm("flex_s8_lstm", as_i8, locals())

    def lstm_s16(self, inp, w, r, bias, state, out, batch, steps, input_size, units,
                 time_major, gate_q, table, in_zp, out_zp, cell_clip, cell_power, fc_mult,
                 fc_shift, ic_mult, ic_shift, hid_mult, hid_shift):
        """int16x8 LSTM: int16 activations, int64 gate sums (burn.graph.lstm)."""
        self._integer_lstm("flex_s16_lstm", as_i16, locals())

    def _integer_lstm(self, name, view, a):
        """An integer LSTM whose input and output `view` reads; a: its arguments by name."""
        q, t = as_i32(a["gate_q"], 16), as_i16(a["table"], 256)
        self._lstm(name, (a["inp"], a["w"], a["out"], a["r"], a["bias"], a["state"]),
                   (view, as_i8, view, as_i8, as_i32, as_i16),
                   (q, q.size, t, t.size, struct("flex_lstm_quant", a)), a["batch"],
                   a["steps"], a["input_size"], a["units"], a["time_major"])
