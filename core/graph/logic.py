"""The optional ops `compare` and `select` (burn.graph.ops.OPTIONAL): TFLite's EQUAL,
NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL and SELECT_V2, int8 bit-exact with TFLM
and float32 exactly; their kernels and the prepare step both kinds share (burn.graph.compare
and burn.graph.select name it).

A TFLite BOOL tensor is an int8 tensor of 0s and 1s in a `.bst` (scale 1, zero point 0): a
comparison writes 1 where it holds, select reads any nonzero condition as true.

An int8 comparison compares the operands rescaled as TFLM's ComparisonsPrepare and
ComparisonWithScaling do, whatever the scales: (q - zero point) << 8, times the operand's
multiplier and shift (its scale, below 1, as QuantizeMultiplierSmallerThanOneExp gives it).
Two stored values of one scale may so compare equal when the scale is small. `op` is one of
OPS; b repeats as b[i % b_size] (the importer swaps the operands and flips the op where the
first one repeats). select's three operands each repeat along the innermost dims
(cond[i % c_size], x[i % x_size], y[i % y_size]). Any operand may be a constant of the op
(named as the kernel's argument) instead of an input.
"""

import sys

from burn.bst_ops import _I32, _ZP, _bind, _const, _plain_mult_off, _shape
from burn.shape import numel

from .fixedpoint import mbqm_offset as _mbqm
from .fixedpoint import mult_offsets

# the `op` codes of compare, in order (flex.h's FLEX_COMPARE_*)
OPS = ("EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL")
_LEFT_SHIFT = 8  # TFLM's kLeftShift of int8 comparisons
_SCALE_Q = (("a_zp",) + _ZP, ("a_mult", 0, _I32), ("a_shift", -31, 0),
            ("b_zp",) + _ZP, ("b_mult", 0, _I32), ("b_shift", -31, 0))


def _holds(op, x, y):
    # EQUAL and NOT_EQUAL through ==, so that a float NaN is unequal to everything
    if op < 2:
        return (x == y) != (op == 1)
    if op < 4:
        return x < y if op == 2 else x <= y
    return x > y if op == 4 else x >= y


def compare_s8_plain(a, b, out, size, b_size, op, a_zp, a_mult, a_shift, b_zp, b_mult,
                     b_shift, mult_off=None):
    """Reference int8 comparison: out[i] = 1 where a[i] `op` b[i % b_size] holds for the
    rescaled values (module doc), else 0. mult_off: mult_offsets(a_mult, b_mult)."""
    am, bm = mult_offsets(a_mult, b_mult) if mult_off is None else mult_off
    j = 0
    for i in range(size):
        x = _mbqm((((a[i] + 128) & 255) - 128 - a_zp) << _LEFT_SHIFT, am, a_shift)
        y = _mbqm((((b[j] + 128) & 255) - 128 - b_zp) << _LEFT_SHIFT, bm, b_shift)
        j += 1
        if j == b_size:
            j = 0
        out[i] = 1 if _holds(op, x, y) else 0


def compare_f32(a, b, out, size, b_size, op):
    """float32 comparison into int8 0/1: out[i] = a[i] `op` b[i % b_size]."""
    j = 0
    for i in range(size):
        out[i] = 1 if _holds(op, a[i], b[j]) else 0
        j += 1
        if j == b_size:
            j = 0


def _select(cond, x, y, out, size, c_size, x_size, y_size, s8):
    for i in range(size):
        v = x[i % x_size] if cond[i % c_size] else y[i % y_size]
        # an int8 constant may be a bytes view of the file (values 0..255)
        out[i] = ((v + 128) & 255) - 128 if s8 else v


def select_s8_plain(cond, x, y, out, size, c_size, x_size, y_size):
    """out[i] = x[i % x_size] where cond[i % c_size] is nonzero, else y[i % y_size]."""
    _select(cond, x, y, out, size, c_size, x_size, y_size, True)


def select_f32(cond, x, y, out, size, c_size, x_size, y_size):
    """select_s8_plain's selection of float32 values."""
    _select(cond, x, y, out, size, c_size, x_size, y_size, False)


def select_s16(cond, x, y, out, size, c_size, x_size, y_size):
    """select_s8_plain's selection of int16 values (TFLM's SELECT_V2 copies them)."""
    _select(cond, x, y, out, size, c_size, x_size, y_size, False)

compare_s8_fast = select_s8_fast = None
if sys.implementation.name == "micropython":
    try:  # the viper twins; a port without native code (webassembly) cannot compile them
        from .logic_viper import compare_s8_fast, select_s8_fast
    except SyntaxError:
        pass

compare_s8 = compare_s8_fast or compare_s8_plain
select_s8 = select_s8_fast or select_s8_plain


def operands(step, ctx, names, dtypes):
    """[(buffer, size)] of the operands `names`: the op's inputs in order, a constant of
    the same name standing in for any of them; each must have `dtypes[k]`."""
    ins = list(step.ins)
    found = []
    for name, dt in zip(names, dtypes):
        if name in step.consts:
            buf, shape = _const(step, ctx, name, dt)
        elif ins:
            tid = ins.pop(0)
            buf, shape = ctx.view(tid), _shape(step, ctx, tid, dt)
        else:
            break
        found.append((buf, numel(shape)))
    if ins or len(found) != len(names):
        step.fail("expected %d operands (inputs or constants named %s)"
                  % (len(names), ", ".join(names)))
    return found


def prepare(step, ctx, variant):
    """Check and bind a compare or select op (burn.bst_ops.prepare): every operand's size
    divides the output's, compare's `a` has the output's; compare's output and select's
    condition are int8; select's values are int8, int16 (burn.graph.s16_prepare hands it
    here) or float32."""
    names = ("a", "b") if step.kind == "compare" else ("cond", "x", "y")
    if len(step.outs) != 1 or not step.ins:
        step.fail("expected at least one input and one output")
    out = step.outs[0]
    dt = ctx.tensors[out if step.kind == "select" else step.ins[0]][1]
    if dt not in ("int8", "float32") and not (dt == "int16" and step.kind == "select"):
        step.fail("operands must be int8 or float32")
    ops = operands(step, ctx, names, (dt, dt) if step.kind == "compare" else ("int8", dt, dt))
    size = numel(_shape(step, ctx, out, "int8" if step.kind == "compare" else dt))
    for name, (_buf, n) in zip(names, ops):
        if n < 1 or size % n or (name == "a" and n != size):
            step.fail("operand %s of %d values does not broadcast to the output's %d"
                      % (name, n, size))
    bufs = tuple([buf for buf, _n in ops])
    suffix = {"int8": "_s8", "int16": "_s16"}.get(dt, "_f32")
    if step.kind == "select":
        step.a = bufs + (ctx.view(out), size) + tuple([n for _b, n in ops])
        _bind(step, "logic", "select" + suffix, variant)
        return
    step.a = bufs + (ctx.view(out), size, ops[1][1], step.p("op", 0, len(OPS) - 1))
    _bind(step, "logic", "compare" + suffix, variant)
    if dt == "int8":
        step.a += step.ps(_SCALE_Q)
        _plain_mult_off(step, dt, step.a[7], step.a[10])
