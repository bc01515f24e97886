"""The TFLite reductions: MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_ALL, ARG_MAX and
ARG_MIN."""

import numpy as np

from burn.graph import quant_params as qp
from burn.host.importers.tflite.registry import Fail, converts
from burn.shape import numel


def _fold_axes(c, node):
    """The input's shape folded to [outer, reduce, mid, reduce2, inner] for a reduction over
    the axes of node.inputs[1] (TFLM resolves them: negative counts from the end, repeats
    count once): kept and reduced axes merge with their neighbours of the same kind."""
    shape = c.shape(node.inputs[0])
    if c.tf.tensors[node.inputs[1]].dtype != np.int32:
        raise Fail("axes must be an int32 tensor")
    axes = c.const(node.inputs[1], "axes").reshape(-1).tolist()
    if any(not -len(shape) <= a < len(shape) for a in axes):
        raise Fail("axes %s out of range for %d dims" % (axes, len(shape)))
    reduced = {int(a) % len(shape) for a in axes}
    groups = [[False, 1]]
    for i, d in enumerate(shape):
        if d != 1:
            if groups[-1][0] != (i in reduced):
                groups.append([i in reduced, 1])
            groups[-1][1] *= int(d)
    if len(groups) > 5:
        raise Fail("axes %s: more than two separate blocks of reduced axes" % sorted(reduced))
    dims = [g[1] for g in groups] + [1] * (5 - len(groups))
    out = numel(c.shape(node.outputs[0]))
    if out != dims[0] * dims[2] * dims[4]:
        raise Fail("output %s does not hold input %s reduced over axes %s"
                   % (c.shape(node.outputs[0]), shape, sorted(reduced)))
    return dims


@converts("MEAN", "SUM", arity=2, int16=True)
@converts("REDUCE_MAX", "REDUCE_MIN", arity=2)
@converts("REDUCE_ALL", arity=2, bool_inputs=True)
def _mean(c, node):
    """MEAN, SUM, REDUCE_MAX, REDUCE_MIN and REDUCE_ALL. int8 MEAN and SUM over one block of
    axes are the mean kind (in every firmware); the rest, int16 MEAN and SUM among it, is
    the optional reduce kind."""
    dims = _fold_axes(c, node)
    name = node.name
    # burn.graph.reduce's op codes; REDUCE_ALL of BOOL (int8 0/1) is their minimum
    op = {"SUM": 0, "MEAN": 1, "REDUCE_MAX": 2, "REDUCE_MIN": 3, "REDUCE_ALL": 3}[name]
    params = dict(zip(("outer", "reduce", "mid", "reduce2", "inner"), dims), op=op)
    if name == "REDUCE_ALL":
        if {c.tf.tensors[t].dtype for t in (node.inputs[0], node.outputs[0])} != {np.dtype(bool)}:
            raise Fail("REDUCE_ALL takes and gives BOOL tensors")
        c.emit("reduce", node, params=dict(params, in_zp=0, out_zp=0, mult=0, shift=0))
        return
    if not c.is_int8(node) and not c.is_int16(node):
        if c.tf.tensors[node.outputs[0]].dtype != np.float32:
            raise Fail("input and output types differ")
        if name == "MEAN" and dims[3] == 1:
            c.emit("mean", node, params={"outer": dims[0], "reduce": dims[1],
                                         "inner": dims[2]})
        else:
            c.emit("reduce", node, params=params)
        return
    if c.tf.tensors[node.outputs[0]].dtype != c.tf.tensors[node.inputs[0]].dtype:
        raise Fail("input and output types differ")
    (in_scale, in_zp), (out_scale, out_zp) = c.quant(node.inputs[0]), c.quant(node.outputs[0])
    if op >= 2:
        if (in_scale, in_zp) != (out_scale, out_zp):  # TFLM's EvalMinMaxHelper
            raise Fail("int8 %s needs the same scale and zero point in and out" % name)
        params.update({"in_zp": in_zp, "out_zp": out_zp, "mult": 0, "shift": 0})
        c.emit("reduce", node, params=params)
        return
    count = dims[1] * dims[3]
    if op == 1:
        mult, shift = qp.mean_params(in_scale, out_scale, count)
    else:
        mult, shift = qp.quantize_multiplier(in_scale / out_scale)
    q = {"in_zp": in_zp, "out_zp": out_zp, "mult": mult, "shift": shift}
    if dims[3] == 1 and c.is_int8(node):
        c.emit("mean", node, params=dict(q, outer=dims[0], reduce=dims[1], inner=dims[2]))
    else:
        c.emit("reduce", node, params=dict(params, op=0, **q))


@converts("ARG_MAX", "ARG_MIN", arity=2)
def _arg(c, node):
    """ARG_MAX and ARG_MIN, into an int32 tensor."""
    shape, out = c.shape(node.inputs[0]), node.outputs[0]
    types = [c.tf.tensors[t].dtype for t in (node.inputs[1], out)]
    for t in types:
        if t != np.int32:  # TFLM's arg_min_max.cc
            raise Fail("Only int32_t are supported currently, got %s." % np.dtype(t).name)
    if not shape:
        raise Fail("input has no dimensions")
    axis = int(c.const(node.inputs[1], "axis").reshape(-1)[0])
    if not -len(shape) <= axis < len(shape):
        raise Fail("axis %d out of range for %d dims" % (axis, len(shape)))
    axis %= len(shape)
    if list(c.shape(out)) != list(shape[:axis]) + list(shape[axis + 1:]):
        raise Fail("output %s is not input %s without axis %d" % (c.shape(out), shape, axis))
    c.emit("arg", node, params={
        "outer": int(np.prod(shape[:axis], dtype=np.int64)), "reduce": int(shape[axis]),
        "inner": int(np.prod(shape[axis + 1:], dtype=np.int64)),
        "op": 0 if node.name == "ARG_MAX" else 1})
