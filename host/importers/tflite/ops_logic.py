"""The TFLite ops of burn.graph.logic, whose BOOL tensors are int8 0/1: the comparisons,
SELECT_V2 and SELECT, ZEROS_LIKE and the LOGICAL ops (selects)."""

import numpy as np

from burn.graph import logic
from burn.graph import quant_params as qp
from burn.host.importers.tflite.common import trailing
from burn.host.importers.tflite.registry import Fail, converts
from burn.shape import numel


def _logic_operands(c, node, count, max_rank):
    """Check the first `count` inputs of an op of burn.graph.logic: not all constant, of
    the output's shape or repeating along its innermost dims (as the runtime reads them),
    broadcast over at most `max_rank` dims (TFLM's limit)."""
    ts, out = node.inputs[:count], c.shape(node.outputs[0])
    shapes = [tuple(c.shape(t)) for t in ts]
    if all(c.tf.tensors[t].data is not None for t in ts):
        raise Fail("every operand is a constant")
    if len(set(shapes)) == 1 and numel(shapes[0]) == numel(out):
        return
    try:
        whole = np.broadcast_shapes(*shapes)
    except ValueError:
        whole = None
    if whole != tuple(out):
        raise Fail("operands %s do not broadcast to the output %s" % (
            ", ".join(str(s) for s in shapes), tuple(out)))
    if len(out) > max_rank:
        raise Fail("TFLM broadcasts over at most %d dims, the output has %d"
                   % (max_rank, len(out)))
    for s in shapes:
        if not trailing(s, out):
            raise Fail("broadcast of %s over %s is not supported (an operand must repeat "
                       "along the innermost dims)" % (s, tuple(out)))


def _emit_logic(c, kind, node, operands, params):
    """Emit `kind` with operands [(name, TFLite tensor or array)]: arrays and constant
    tensors as the op's constants of that name (a BOOL one as int8 0/1), the others as its
    inputs in order."""
    consts, ins = {}, []
    for name, t in operands:
        data = t if isinstance(t, np.ndarray) else c.tf.tensors[t].data
        if data is None:
            ins.append(t)
        else:
            consts[name] = data.reshape(-1).astype(np.int8) if data.dtype == np.bool_ else \
                data.reshape(-1)
    c.emit(kind, node, consts=consts, params=params, ins=ins)


# the comparison that holds for (b, a) where `name` holds for (a, b)
_FLIPPED = {"LESS": "GREATER", "LESS_EQUAL": "GREATER_EQUAL", "GREATER": "LESS",
            "GREATER_EQUAL": "LESS_EQUAL"}


@converts("EQUAL", "NOT_EQUAL", arity=2, bool_inputs=True, int32=True, plain_ints=("int64",))
@converts("LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL", arity=2, int32=True,
          plain_ints=("int64",))
def _compare(c, node):
    """EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL (burn.graph.logic): int8,
    int32, int64 or float32 operands (BOOL ones too for EQUAL and NOT_EQUAL, as TFLM), one
    of them may be a constant; the BOOL output is int8 0/1. The operand that repeats goes
    second (the comparison flipped)."""
    t1, t2 = node.inputs[:2]
    types = [c.tf.tensors[t].dtype for t in (t1, t2, node.outputs[0])]
    if types[0] != types[1] or types[0] not in (np.int8, np.int32, np.int64, np.float32,
                                                np.bool_):
        raise Fail("operands are %s and %s: int8, int32, int64 or float32 operands of one "
                   "type are supported" % (types[0].name, types[1].name))
    if types[2] != np.bool_:
        raise Fail("the output is %s, not BOOL" % types[2].name)
    _logic_operands(c, node, 2, 4)
    a, b, name = t1, t2, node.name
    if numel(c.shape(t1)) < numel(c.shape(t2)):
        a, b, name = t2, t1, _FLIPPED.get(name, name)
    params = {"op": logic.OPS.index(name)}
    if types[0] == np.bool_:  # EQUAL, NOT_EQUAL (bool_inputs): 0/1 scaled by one half, exactly
        params.update({p + f: v for p in "ab" for f, v in (("_zp", 0), ("_mult", 1 << 30),
                                                             ("_shift", 0))})
    elif types[0] == np.int8:
        for prefix, t in (("a", a), ("b", b)):
            scale, zp = c.quant(t)
            mult, shift = qp.quantize_multiplier(scale)
            if not scale < 1.0 or shift > 0:  # TFLM: TFLITE_CHECK, an abort
                raise Fail("input scale %g is not below 1, which TFLM's int8 comparison "
                           "requires (QuantizeMultiplierSmallerThanOneExp)" % scale)
            params.update({prefix + "_zp": zp, prefix + "_mult": mult,
                           prefix + "_shift": shift})
    _emit_logic(c, "compare", node, [("a", a), ("b", b)], params)


@converts("SELECT_V2", "SELECT", arity=3, bool_inputs=True, int16=True)
def _select(c, node):
    """SELECT_V2 (burn.graph.logic): a BOOL condition, int8, int16 or float32 values (TFLM
    copies them, whatever their quantization); any operand may be a constant. SELECT, which
    TFLM lacks, where it is SELECT_V2: operands of one shape."""
    cond, x, y = node.inputs[:3]
    types = [c.tf.tensors[t].dtype for t in (cond, x, y, node.outputs[0])]
    if types[0] != np.bool_:
        raise Fail("the condition is %s, not BOOL" % types[0].name)
    if types[1] != types[2] or types[1] != types[3] or \
            types[1] not in (np.int8, np.int16, np.float32):
        raise Fail("values and output are %s: int8, int16 or float32 of one type are "
                   "supported" % ", ".join(t.name for t in types[1:]))
    shapes = [tuple(c.shape(t)) for t in (cond, x, y, node.outputs[0])]
    if node.name == "SELECT" and len(set(shapes)) != 1:
        raise Fail("SELECT of shapes %s: only operands and output of one shape are "
                   "supported" % ", ".join(str(s) for s in shapes))
    _logic_operands(c, node, 3, 5)
    _emit_logic(c, "select", node, [("cond", cond), ("x", x), ("y", y)], {})


@converts("ZEROS_LIKE", int32=True, plain_ints=("int64",))
def _zeros_like(c, node):
    """ZEROS_LIKE of an int8 or float32 tensor: a `select` of its constant 0 (raw 0 in int8,
    as TFLM writes) wherever a constant false condition holds, reading the input once; of
    an int32 tensor: the input less itself (int32 arithmetic, burn.graph.s32_arith); of an
    int64 tensor: a `constant` op of zeros (burn.graph.control; no int64 arithmetic)."""
    x, y = node.inputs[0], node.outputs[0]
    dt = c.tf.tensors[x].dtype
    if dt not in (np.int8, np.float32, np.int32, np.int64) or c.tf.tensors[y].dtype != dt:
        raise Fail("ZEROS_LIKE of %s into %s: burn takes int8, int32, int64 and float32" % (
            dt.name.upper(), c.tf.tensors[y].dtype.name.upper()))
    if numel(c.shape(x)) != numel(c.shape(y)):
        raise Fail("input %s and output %s differ in size" % (c.shape(x), c.shape(y)))
    if dt == np.int64:
        c.emit("constant", node, consts={"value": np.zeros(numel(c.shape(y)), dt)}, ins=[])
        return
    if dt == np.int32:
        c.emit("sub", node, params={"act_min": -(1 << 31), "act_max": (1 << 31) - 1,
                                    "swap": 0}, ins=[x, x])
        return
    c.emit("select", node, consts={"cond": np.zeros(1, np.int8), "y": np.zeros(1, dt)},
           params={}, ins=[x])


@converts("LOGICAL_AND", "LOGICAL_OR", arity=2, bool_inputs=True)
@converts("LOGICAL_NOT", bool_inputs=True)
def _logical(c, node):
    """LOGICAL_AND, LOGICAL_OR and LOGICAL_NOT of BOOL tensors (int8 0/1), as the select
    they are: a and b is b where a, else 0; a or b is 1 where a, else b; not a is 0 where
    a, else 1."""
    count = 1 if node.name == "LOGICAL_NOT" else 2
    if any(c.tf.tensors[t].dtype != np.bool_ for t in node.inputs[:count] + node.outputs[:1]):
        raise Fail("inputs and output must be BOOL")
    _logic_operands(c, node, count, 4)
    a, b = node.inputs[0], node.inputs[count - 1]
    zero, one = np.zeros(1, np.int8), np.ones(1, np.int8)
    x, y = {"LOGICAL_AND": (b, zero), "LOGICAL_OR": (one, b), "LOGICAL_NOT": (zero, one)}[
        node.name]
    _emit_logic(c, "select", node, [("cond", a), ("x", x), ("y", y)], {})
