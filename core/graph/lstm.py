"""LSTM (TFLite's UNIDIRECTIONAL_SEQUENCE_LSTM as TFLM's micro kernel runs it: four gates,
no peephole, projection or layer normalization), float32, and its prepare step (an
optional op: burn.graph.ops.OPTIONAL).

The input holds `steps` time steps of `input_size` values for each of `batch` sequences,
[batch, steps, input_size] ([steps, batch, input_size] when time_major); the output, laid
out alike, the hidden state after each step. Weights `w` [4 * units, input_size] and `r`
[4 * units, units] and `bias` [4 * units] stack the gates in TFLite's order: input,
forget, cell, output. One step of one sequence, from its hidden state h and cell state c:

    gate[k] = act_k(w[k] . x + bias[k] + r[k] . h)   sigmoid; tanh for the cell gate
    c = forget * c + input * cell, clipped to [-cell_clip, cell_clip] when cell_clip > 0
    h = output * tanh(c)

The states persist between inferences, outside the arena, in `state`: h of every sequence,
then c of every sequence, then room for the four gates of one step. They start at 0, and
Model.reset() sets them back to 0, as TFLM resets its variable tensors.
"""

import math


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


def prepare(step, ctx, variant):
    """Check an lstm op, make its state buffer (step.state, rest value step.rest, drawing on
    ctx.room as svdf's does) and bind its kernel (burn.bst_ops.prepare)."""
    from burn import bst_ops as b
    from burn.bst import numel, zeros

    b._arity(step, 1)
    dt = b._dtype(step, ctx)
    if dt != "float32":
        step.fail("%s input: float32 only" % dt)
    w, (gates, input_size) = b._const(step, ctx, "w", dt, rank=2)
    r, (r_gates, units) = b._const(step, ctx, "r", dt, rank=2)
    if gates != 4 * units or r_gates != gates:
        step.fail("w [%d, %d] and r [%d, %d] are not four gates of %d units"
                  % (gates, input_size, r_gates, units, units))
    bias = b._const(step, ctx, "bias", dt, count=gates)[0]
    batch, steps, time_major = step.ps((("batch", 1, b._I32), ("steps", 1, b._I32),
                                        ("time_major", 0, 1)))
    rows = batch * steps
    if numel(b._shape(step, ctx, step.ins[0], dt)) != rows * input_size or \
            numel(b._shape(step, ctx, step.outs[0], dt)) != rows * units:
        step.fail("input and output sizes do not fit %d steps of %d sequences of %d inputs "
                  "and %d units" % (steps, batch, input_size, units))
    count = (2 * batch + 4) * units
    left = ctx.room - ctx.arena_bytes
    if count * 4 > left:
        step.fail("a state of %d bytes: more than the %d the model may use beyond its arena"
                  % (count * 4, left))
    step.state = zeros("f", count)
    step.rest = 0.0
    ctx.room -= count * 4
    step.macs = rows * gates * (input_size + units)
    b._bind(step, "lstm", "lstm_f32", variant)
    step.a = (ctx.view(step.ins[0]), w, r, bias, step.state, ctx.view(step.outs[0]), batch,
              steps, input_size, units, time_major, step.num("cell_clip", 0.0))
