"""SVDF (TFLite's singular value decomposition filter), int8 bit-exact with TFLM's integer
SVDF and float32, and its prepare step (an optional op: burn.graph.ops.OPTIONAL).

Each of the `filters` filters keeps the last `memory` values of its feature in `state`
([batch, filters, memory]), which persists from one inference to the next. One inference:
shift every filter's history one step to the left (TFLM shifts the whole state buffer by
one element; each row's last value is then overwritten), put the new feature
`wf[f] . (x - in_zp)` at its end, then `out[b, u] = bias[u] + sum over the rank filters f of
unit u of wt[f] . (state[b, f] - state_zp)`.

int8: input and wf int8, bias int32, wt and the state values of `state_bits` bits (16, or
8: TFLM's two integer SVDFs) held in int32 elements. The feature is requantized by
(state_mult, state_shift), clamped to that width, offset by state_zp and stored at that
width (wrapping, as C's conversion does); the output sum wraps to
int32 (as the C kernels' unsigned sums) and is requantized by (out_mult, out_shift), offset
by out_zp and clamped to int8. TFLM's integer SVDF applies no fused activation, so none is
applied here.
float32: the feature unscaled, the output clamped by the fused activation `act`.

The state lives outside the arena. It starts at its rest value, and Model.reset() sets it
back: the zero point for an int8 state, else 0, as TFLM resets variable tensors.
"""

import sys

from .f32_activation import apply_act
from .fixedpoint import mbqm_wrapping, mult_offsets

MAX_INPUT = 1 << 15  # input_size: the int32 feature sum of 255 * 255 products stays exact


def _shift(state, count):
    """Move state[1:count] to state[0:count - 1] (TFLM's shift of the whole buffer)."""
    for i in range(count - 1):
        state[i] = state[i + 1]


def svdf_s8_plain(inp, wf, wt, bias, state, out, batch, input_size, filters, memory, rank,
                  in_zp, state_zp, out_zp, state_mult, state_shift, out_mult, out_shift,
                  state_bits, mult_off=None):
    """Reference int8 SVDF (see the module docstring); mult_off: mult_offsets(state_mult,
    out_mult) (here when None)."""
    m1, m2 = mult_offsets(state_mult, out_mult) if mult_off is None else mult_off
    _shift(state, batch * filters * memory)
    units = filters // rank
    half = 1 << (state_bits - 1)
    for b in range(batch):
        x0 = b * input_size
        for f in range(filters):
            acc = 0
            w0 = f * input_size
            for i in range(input_size):
                acc += (((wf[w0 + i] + 128) & 255) - 128) * \
                    ((((inp[x0 + i] + 128) & 255) - 128) - in_zp)
            v = mbqm_wrapping(acc, m1, state_shift)
            v = (-half if v < -half else (half - 1 if v >= half else v)) + state_zp
            state[(b * filters + f) * memory + memory - 1] = ((v + half) & (2 * half - 1)) - half
        for u in range(units):
            acc = bias[u]
            for f in range(u * rank, u * rank + rank):
                s0 = (b * filters + f) * memory
                w0 = f * memory
                for j in range(memory):
                    acc += wt[w0 + j] * (state[s0 + j] - state_zp)
            acc = ((acc + 0x80000000) & 0xFFFFFFFF) - 0x80000000
            v = mbqm_wrapping(acc, m2, out_shift) + out_zp
            out[b * units + u] = -128 if v < -128 else (127 if v > 127 else v)


svdf_s8_fast = None
if sys.implementation.name == "micropython":
    try:  # the viper twins; a port without native code (webassembly) cannot compile them
        from .svdf_viper import svdf_s8_fast
    except SyntaxError:
        pass

svdf_s8 = svdf_s8_fast or svdf_s8_plain


def svdf_f32(inp, wf, wt, bias, state, out, batch, input_size, filters, memory, rank, act):
    """float32 SVDF (see the module docstring), summed in TFLM's order."""
    _shift(state, batch * filters * memory)
    units = filters // rank
    for b in range(batch):
        x0 = b * input_size
        for f in range(filters):
            acc = 0.0
            w0 = f * input_size
            for i in range(input_size):
                acc += wf[w0 + i] * inp[x0 + i]
            state[(b * filters + f) * memory + memory - 1] = acc
        for u in range(units):
            acc = bias[u]
            for f in range(u * rank, u * rank + rank):
                s0 = (b * filters + f) * memory
                w0 = f * memory
                dot = 0.0
                for j in range(memory):
                    dot += wt[w0 + j] * state[s0 + j]
                acc += dot
            out[b * units + u] = apply_act(acc, act)


def prepare(step, ctx, variant):
    """Check an svdf op, make its state buffer (step.state and its rest value step.rest,
    which Model.reset() fills in; it draws on ctx.room, the arena cap less the states made
    so far, with the arena) and bind its kernel (burn.bst_ops.prepare)."""
    from burn import bst_ops as b
    from burn.bst import zeros
    from burn.shape import numel

    b._arity(step, 1)
    dt = b._dtype(step, ctx)
    int8 = dt == "int8"
    wf, (filters, input_size) = b._const(step, ctx, "wf", dt, rank=2)
    wt, (wt_filters, memory) = b._const(step, ctx, "wt", "int32" if int8 else dt, rank=2)
    rank = step.p("rank", 1, filters)
    if wt_filters != filters or filters % rank or input_size > MAX_INPUT:
        step.fail("weights_feature [%d, %d] and weights_time [%d, %d] do not fit rank %d "
                  "(input size at most %d)" % (filters, input_size, wt_filters, memory, rank,
                                               MAX_INPUT))
    units = filters // rank
    size = numel(b._shape(step, ctx, step.ins[0], dt))
    batch = size // input_size
    if size != batch * input_size or \
            numel(b._shape(step, ctx, step.outs[0], dt)) != batch * units:
        step.fail("input and output sizes do not fit batches of %d inputs and %d units"
                  % (input_size, units))
    bias = b._const(step, ctx, "bias", "int32" if int8 else dt, count=units)[0]
    count = batch * filters * memory
    left = ctx.room - ctx.arena_bytes
    if count * 4 > left:
        step.fail("a state of %d bytes: more than the %d the model may use beyond its arena"
                  % (count * 4, left))
    if int8:
        bits = step.p("state_bits", 8, 16)
        half = 1 << (bits - 1)
        if bits not in (8, 16):
            step.fail("state_bits %d: 8 or 16" % bits)
        for i in range(len(wt)):
            if not -half <= wt[i] < half:
                step.fail("weights_time value %d at %d is not int%d" % (wt[i], i, bits))
    step.state = zeros("i" if int8 else "f", count)
    step.rest = 0 if int8 else 0.0
    ctx.room -= count * 4
    step.macs = batch * filters * (input_size + memory)
    b._bind(step, "svdf", "svdf_s8" if int8 else "svdf_f32", variant)
    step.a = (ctx.view(step.ins[0]), wf, wt, bias, step.state, ctx.view(step.outs[0]), batch,
              input_size, filters, memory, rank)
    if int8:
        step.a += step.ps((("in_zp", -128, 127), ("state_zp", -half, half - 1),
                           ("out_zp", -128, 127), ("state_mult", 0, b._I32),
                           ("state_shift", -31, 31), ("out_mult", 0, b._I32),
                           ("out_shift", -31, 31))) + (bits,)
        if bits == 8:
            step.rest = step.a[12]  # TFLM resets an int8 variable tensor to its zero point
            for i in range(count):
                step.state[i] = step.rest
        b._plain_mult_off(step, dt, step.a[14], step.a[16])
    else:
        step.a += step.ps(b._ACT)
