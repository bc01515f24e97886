"""LSTM (TFLite's UNIDIRECTIONAL_SEQUENCE_LSTM as TFLM's micro kernel runs it: four gates,
no peephole, projection or layer normalization), int8 and int16 bit-exact with TFLM's
integer LSTM and float32, and its prepare step (an optional op: burn.graph.ops.OPTIONAL).

The input holds `steps` time steps of `input_size` values for each of `batch` sequences,
[batch, steps, input_size] ([steps, batch, input_size] when time_major); the output, laid
out alike, the hidden state after each step. Weights `w` [4 * units, input_size] and `r`
[4 * units, units] and `bias` [4 * units] stack the gates in TFLite's order: input,
forget, cell, output. One step of one sequence, from its hidden state h and cell state c:

    gate[k] = act_k(w[k] . x + bias[k] + r[k] . h)   sigmoid; tanh for the cell gate
    c = forget * c + input * cell, clipped to [-cell_clip, cell_clip] when cell_clip > 0
    h = output * tanh(c)

int8 (TFLM's integer LSTM): int8 input, weights and hidden state, int32 biases, int16
gates and cell state. Each gate sums its input part (w . (x - in_zp) + bias) and its
recurrent part (r . (h - out_zp)), each requantized by its pair of `gate_q` (in_mult,
in_shift, rec_mult, rec_shift per gate, to Q3.12) and clamped to int16, with int16
saturation; sigmoid and tanh are TFLM's int16 ones (burn.graph.s16_sigmoid, `table`). The
cell state (scale 2**cell_power) is forget * c and input * cell, each requantized
(fc_mult, fc_shift; ic_mult, ic_shift) and clamped to int16, added with saturation and
clamped to +-cell_clip when cell_clip >= 0; h = tanh(c) * output requantized by
(hid_mult, hid_shift), offset by out_zp and clamped to int8.

int16 (TFLM's int16x8 LSTM, lstm_s16): the same on int16 input and hidden state (zero
points 0) and int8 weights, the biases int64 in the TFLite file (int32 values here): each
gate's two sums are int64 and requantized by TFLM's int64 MultiplyByQuantizedMultiplier
(its 16-bit multiplier; gate shifts up to 7), h clamped to int16.

The states persist between inferences, outside the arena, in `state`: h of every sequence,
then c of every sequence, then room for the four gates of one step (int16 elements for
int8 and int16, h held less its zero point). They start at 0, and Model.reset() sets them back to
0, as TFLM resets its variable tensors (an int8 one to its zero point).
"""

import math

from .fixedpoint import mbqm_wrapping

_KERNELS = {"int8": "lstm_s8", "int16": "lstm_s16", "float32": "lstm_f32"}


def _sigmoid(v):
    if v >= 0:
        return 1.0 / (1.0 + math.exp(-v))
    e = math.exp(v)
    return e / (1.0 + e)


def _row(b, t, batch, steps, time_major):
    """The row of sequence b's step t in the input and output."""
    return t * batch + b if time_major else b * steps + t


def lstm_f32(inp, w, r, bias, state, out, batch, steps, input_size, units, time_major,
             cell_clip):
    """float32 LSTM (see the module docstring), summed in TFLM's order."""
    n = batch * units
    g0 = 2 * n
    for b in range(batch):
        h0 = b * units
        for t in range(steps):
            row = _row(b, t, batch, steps, time_major)
            x0 = row * input_size
            for k in range(4 * units):
                acc = 0.0
                w0 = k * input_size
                for i in range(input_size):
                    acc += inp[x0 + i] * w[w0 + i]
                rec = 0.0
                w0 = k * units
                for j in range(units):
                    rec += state[h0 + j] * r[w0 + j]
                v = acc + bias[k] + rec
                state[g0 + k] = math.tanh(v) if k // units == 2 else _sigmoid(v)
            for u in range(units):
                c = state[g0 + units + u] * state[n + h0 + u] + \
                    state[g0 + u] * state[g0 + 2 * units + u]
                if cell_clip > 0:
                    c = -cell_clip if c < -cell_clip else (cell_clip if c > cell_clip else c)
                state[n + h0 + u] = c
                state[h0 + u] = state[g0 + 3 * units + u] * math.tanh(state[n + h0 + u])
                out[row * units + u] = state[h0 + u]


def _s16(v):
    return -32768 if v < -32768 else (32767 if v > 32767 else v)


def _wrap32(v):
    return ((v + 0x80000000) & 0xFFFFFFFF) - 0x80000000


def _mbqm(x, mult, shift):
    """mbqm_wrapping with a whole multiplier."""
    return mbqm_wrapping(x, mult - 0x40000000, shift)


def _tanh_scaling(cell_power):
    """(in_mult, in_left_shift) of TFLM's int16 tanh for a cell state of scale
    2**cell_power (its input read as Q3.12)."""
    shift = 12 + cell_power
    return (0, shift) if shift >= 0 else (3, -shift)


def lstm_s8(inp, w, r, bias, state, out, batch, steps, input_size, units, time_major, gate_q,
            table, in_zp, out_zp, cell_clip, cell_power, fc_mult, fc_shift, ic_mult, ic_shift,
            hid_mult, hid_shift):
    """int8 LSTM (see the module docstring), TFLM's integer arithmetic; inp, w and r may
    hold their bytes unsigned (bytes, a .bst blob's memoryview)."""
    _integer(inp, w, r, bias, state, out, batch, steps, input_size, units, time_major, gate_q,
             table, in_zp, out_zp, cell_clip, cell_power, fc_mult, fc_shift, ic_mult, ic_shift,
             hid_mult, hid_shift, None)


def lstm_s16(inp, w, r, bias, state, out, batch, steps, input_size, units, time_major, gate_q,
             table, in_zp, out_zp, cell_clip, cell_power, fc_mult, fc_shift, ic_mult, ic_shift,
             hid_mult, hid_shift):
    """int16x8 LSTM (see the module docstring): the int8 one on int16 input and hidden
    state, its gate sums (int64 bias) requantized by TFLM's int64 multiply; w and r may
    hold their bytes unsigned."""
    from .s16_arith import mbqm64

    _integer(inp, w, r, bias, state, out, batch, steps, input_size, units, time_major, gate_q,
             table, in_zp, out_zp, cell_clip, cell_power, fc_mult, fc_shift, ic_mult, ic_shift,
             hid_mult, hid_shift, mbqm64)


def _integer(inp, w, r, bias, state, out, batch, steps, input_size, units, time_major, gate_q,
             table, in_zp, out_zp, cell_clip, cell_power, fc_mult, fc_shift, ic_mult, ic_shift,
             hid_mult, hid_shift, wide):
    """TFLM's integer LSTM: int8 activations when `wide` is None, else int16 ones with the
    gate sums requantized by `wide` (TFLM's int64 MultiplyByQuantizedMultiplier)."""
    from .s16_sigmoid import logistic_s16, tanh_s16

    n = batch * units
    g0 = 2 * n
    mv = memoryview(state)
    gates = mv[g0:g0 + 4 * units]
    t_mult, t_shift = _tanh_scaling(cell_power)
    lo, hi = (-128, 127) if wide is None else (-32768, 32767)
    for b in range(batch):
        h0 = b * units
        for t in range(steps):
            row = _row(b, t, batch, steps, time_major)
            x0 = row * input_size
            for k in range(4 * units):
                q = 4 * (k // units)
                acc = bias[k]
                w0 = k * input_size
                for i in range(input_size):
                    x = inp[x0 + i]
                    if wide is None:
                        x = ((x + 128) & 255) - 128
                    acc += (((w[w0 + i] + 128) & 255) - 128) * (x - in_zp)
                v = _s16(_requantize(acc, gate_q[q], gate_q[q + 1], wide))
                acc = 0
                w0 = k * units
                for j in range(units):
                    acc += (((r[w0 + j] + 128) & 255) - 128) * state[h0 + j]
                state[g0 + k] = _s16(v + _s16(_requantize(acc, gate_q[q + 2], gate_q[q + 3],
                                                          wide)))
            logistic_s16(gates, gates, 2 * units, 0, 0, table)
            tanh_s16(gates[2 * units:], gates[2 * units:], units, 0, 0, table)
            logistic_s16(gates[3 * units:], gates[3 * units:], units, 0, 0, table)
            for u in range(units):
                c = _s16(_s16(_mbqm(state[g0 + units + u] * state[n + h0 + u], fc_mult,
                                    fc_shift)) +
                         _s16(_mbqm(state[g0 + u] * state[g0 + 2 * units + u], ic_mult,
                                    ic_shift)))
                if cell_clip >= 0:
                    c = -cell_clip if c < -cell_clip else (cell_clip if c > cell_clip else c)
                state[n + h0 + u] = c
            tanh_s16(mv[n + h0:], gates[units:], units, t_mult, t_shift, table)
            for u in range(units):
                v = _mbqm(state[g0 + units + u] * state[g0 + 3 * units + u], hid_mult,
                          hid_shift) + out_zp
                v = lo if v < lo else (hi if v > hi else v)
                state[h0 + u] = v - out_zp
                out[row * units + u] = v


def _requantize(acc, mult, shift, wide):
    """A gate's sum requantized: TFLM's int32 multiply on the wrapped sum, or `wide`."""
    return _mbqm(_wrap32(acc), mult, shift) if wide is None else wide(acc, mult, shift)


def _integer_tail(step, ctx, b, int16):
    """The integer kernels' trailing arguments, checked: an int16 one's zero points are 0
    and its gate shifts at most 7 (TFLM's int64 multiply)."""
    gate_q = b._const(step, ctx, "gate_q", "int32", count=16)[0]
    top = 7 if int16 else 31
    for i in range(16):
        if not (-31 <= gate_q[i] <= top if i % 2 else 0 <= gate_q[i]):
            step.fail("gate_q[%d] = %d: multipliers >= 0, shifts within -31..%d"
                      % (i, gate_q[i], top))
    table = b._const(step, ctx, "table", "int16", count=256)[0]
    zp = (0, 0) if int16 else (-128, 127)
    shift = (("fc_shift", -31, 31), ("ic_shift", -31, 31), ("hid_shift", -31, 31))
    return (gate_q, table) + step.ps((
        ("in_zp",) + zp, ("out_zp",) + zp, ("cell_clip", -1, 32767),
        ("cell_power", -43, 2), ("fc_mult", 0, b._I32), shift[0], ("ic_mult", 0, b._I32),
        shift[1], ("hid_mult", 0, b._I32), shift[2]))


def prepare(step, ctx, variant):
    """Check an lstm op, make its state buffer (step.state, rest value step.rest, drawing on
    ctx.room as svdf's does) and bind its kernel (burn.bst_ops.prepare)."""
    from burn import bst_ops as b
    from burn.bst import zeros
    from burn.shape import numel

    b._arity(step, 1)
    dt = b._dtype(step, ctx)
    if dt not in ("int8", "int16", "float32"):
        step.fail("%s input: int8, int16 or float32" % dt)
    integer = dt != "float32"
    wt = "int8" if integer else dt
    w, (gates, input_size) = b._const(step, ctx, "w", wt, rank=2)
    r, (r_gates, units) = b._const(step, ctx, "r", wt, rank=2)
    if gates != 4 * units or r_gates != gates:
        step.fail("w [%d, %d] and r [%d, %d] are not four gates of %d units"
                  % (gates, input_size, r_gates, units, units))
    bias = b._const(step, ctx, "bias", "int32" if integer else dt, count=gates)[0]
    batch, steps, time_major = step.ps((("batch", 1, b._I32), ("steps", 1, b._I32),
                                        ("time_major", 0, 1)))
    rows = batch * steps
    if numel(b._shape(step, ctx, step.ins[0], dt)) != rows * input_size or \
            numel(b._shape(step, ctx, step.outs[0], dt)) != rows * units:
        step.fail("input and output sizes do not fit %d steps of %d sequences of %d inputs "
                  "and %d units" % (steps, batch, input_size, units))
    if dt == "int16":
        from burn.graph.s16_prepare import MAX_DEPTH  # int64 sums within TFLM's 2**47
    if dt == "int16" and max(input_size, units) > MAX_DEPTH:
        step.fail("%d products per gate sum: more than %d" % (max(input_size, units),
                                                              MAX_DEPTH))
    tail = _integer_tail(step, ctx, b, dt == "int16") if integer else \
        (step.num("cell_clip", 0.0),)
    count = (2 * batch + 4) * units
    size = 2 if integer else 4
    left = ctx.room - ctx.arena_bytes
    if count * size > left:
        step.fail("a state of %d bytes: more than the %d the model may use beyond its arena"
                  % (count * size, left))
    step.state = zeros("h" if integer else "f", count)
    step.rest = 0 if integer else 0.0
    ctx.room -= count * size
    step.macs = rows * gates * (input_size + units)
    b._bind(step, "lstm", _KERNELS[dt], variant)
    step.a = (ctx.view(step.ins[0]), w, r, bias, step.state, ctx.view(step.outs[0]), batch,
              steps, input_size, units, time_major) + tail
