"""The TFLite ops that multiply matrices beyond FULLY_CONNECTED: BATCH_MATMUL, SVDF and
UNIDIRECTIONAL_SEQUENCE_LSTM (burn.host.importers.tflite_lstm)."""

import numpy as np

from burn.graph import fixedpoint as fp
from burn.graph import quant_params as qp
from burn.host.bst_writer import GraphOp
from burn.host.importers import arith_params, tflite_lstm, tflite_move
from burn.host.importers.tflite.common import sane_scale
from burn.host.importers.tflite.registry import Fail, converts


def _svdf_check(ok, what):
    if not ok:
        raise Fail(what + " (TFLM's check)")


def _svdf_shapes(c, node):
    """TFLM's PrepareSvdf shape checks; returns the rank."""
    if node.options is None:
        raise Fail("missing options")
    _svdf_check(len(node.inputs) == 5 and node.inputs[4] >= 0,
                "needs 5 inputs: input, weights_feature, weights_time, bias, state")
    x, wf, wt, bias, state = node.inputs
    rank = node.options["Rank"]
    _svdf_check(rank > 0, "rank %d must be positive" % rank)
    xs, fs, ts, ys = (c.shape(t) for t in (x, wf, wt, node.outputs[0]))
    _svdf_check(len(fs) == 2 and len(ts) == 2, "weights_feature and weights_time must be 2-D")
    filters, memory = fs[0], ts[1]
    _svdf_check(filters % rank == 0, "num_filters %d %% rank %d != 0" % (filters, rank))
    _svdf_check(len(xs) == 2, "input must be 2-D [batch, input_size]")
    batch, units = xs[0], filters // rank
    _svdf_check(tuple(ys) == (batch, units), "output %s must be [%d, %d]" % (ys, batch, units))
    _svdf_check(fs[1] == xs[1] and ts[0] == filters,
                "weights_feature %s / weights_time %s do not fit input %s" % (fs, ts, xs))
    # TFLM's Prepare reads and frees the bias whether or not it is there: it crashes without
    _svdf_check(bias >= 0, "SVDF needs a bias")
    _svdf_check(c.shape(bias) == (units,), "bias must have %d values" % units)
    _svdf_check(tuple(c.shape(state)) == (batch, memory * filters),
                "state must be [%d, %d]" % (batch, memory * filters))
    _svdf_check(c.tf.tensors[state].variable, "the state must be a variable tensor")
    return rank


def _svdf_int8(c, node):
    """The consts and params of an int8 SVDF (TFLM's integer SVDFs: int16 or int8
    weights_time and state)."""
    x, wf, wt, bias, state = node.inputs
    types = [c.tf.tensors[t].dtype for t in (wf, wt, state, node.outputs[0])]
    _svdf_check(types[0] == types[3] == np.int8 and types[1] in (np.int8, np.int16) and
                types[2] in (np.int8, np.int16), "int8 SVDF takes int8 weights_feature and "
                "output, int16 or int8 weights_time and state")
    if types[1] != types[2]:  # TFLM would read the state as weights_time's type
        raise Fail("weights_time is %s but the state %s" % (types[1].name, types[2].name))
    bits = 8 * types[1].itemsize
    _svdf_check(c.tf.tensors[bias].dtype == np.int32, "bias must be int32")
    in_scale, in_zp = c.quant(x)
    out_scale, out_zp = c.quant(node.outputs[0])
    scales = []
    for t in (wf, wt, state, bias):
        tt = c.tf.tensors[t]
        if len(tt.scales) != 1 or not sane_scale(tt.scales[0]):
            raise Fail("tensor %d (%s) needs one sane scale" % (t, tt.name))
        scales.append(tt.scales[0])
    wf_scale, wt_scale, state_scale, bias_scale = scales
    state_zp = (c.tf.tensors[state].zero_points or [0])[0]
    if not -(1 << (bits - 1)) <= state_zp < 1 << (bits - 1):
        raise Fail("state zero point %d is not int%d" % (state_zp, bits))
    f32 = fp.to_f32
    _svdf_check(abs(bias_scale - f32(state_scale * wt_scale)) < 1e-5,
                "bias scale %r != state scale x weights_time scale" % bias_scale)
    state_mult, state_shift = qp.quantize_multiplier(f32(f32(in_scale * wf_scale) / state_scale))
    out_mult, out_shift = qp.quantize_multiplier(f32(f32(state_scale * wt_scale) / out_scale))
    consts = {"wf": c.const(wf, "weights_feature"),
              "wt": c.const(wt, "weights_time").astype(np.int32),
              "bias": c.const(bias, "bias").reshape(-1)}
    params = {"in_zp": in_zp, "state_zp": state_zp, "out_zp": out_zp,
              "state_mult": state_mult, "state_shift": state_shift, "out_mult": out_mult,
              "out_shift": out_shift, "state_bits": bits}
    return consts, params


@converts("SVDF", arity=3)
def _svdf(c, node):
    """SVDF: inputs (input, weights_feature, weights_time, bias, state); the state
    becomes the op's own persistent buffer, not a graph tensor."""
    rank = _svdf_shapes(c, node)
    if c.is_int8(node):
        consts, params = _svdf_int8(c, node)
    else:
        x, wf, wt, bias, state = node.inputs
        _svdf_check(all(c.tf.tensors[t].dtype == np.float32
                        for t in (x, wf, wt, state, node.outputs[0])),
                    "input, weights, state and output must all be int8-quantized or float32")
        consts = {"wf": c.const(wf, "weights_feature"), "wt": c.const(wt, "weights_time"),
                  "bias": c.const(bias, "bias")}
        params = {"act": c.fused(node)}
    params["rank"] = rank
    c.emit("svdf", node, consts=consts, params=params)


@converts("BATCH_MATMUL", arity=2, int16=True)
def _batch_matmul(c, node):
    """BATCH_MATMUL: batch dims broadcast dim by dim as TFLM's do; the second operand may
    be a constant. An operand broadcast along some batch dims but not all is expanded
    first (a strided copy of an activation; a constant at import), so that the op sees
    equal batch dims or one operand broadcast whole. int16 needs zero points 0 (TFLM's
    Prepare) and an output shift of at most 7 (its int64 requantization)."""
    lhs, rhs, out = node.inputs[0], node.inputs[1], node.outputs[0]
    types = {c.tf.tensors[t].dtype for t in (lhs, rhs, out)}
    if len(types) != 1 or types.pop() not in (np.int8, np.int16, np.float32):  # TFLM's Prepare
        raise Fail("operands and output must all be int8, all int16 or all float32")
    ls, rs = c.shape(lhs), c.shape(rhs)
    if not (2 <= len(ls) <= 5 and 2 <= len(rs) <= 5):
        raise Fail("operands of %d and %d dims: TFLM takes 2 to 5" % (len(ls), len(rs)))
    opts = node.options or {"AdjX": False, "AdjY": False}
    adj_x, adj_y = int(bool(opts["AdjX"])), int(bool(opts["AdjY"]))
    m, k = (ls[-1], ls[-2]) if adj_x else (ls[-2], ls[-1])
    k2, n = (rs[-1], rs[-2]) if adj_y else (rs[-2], rs[-1])
    if k != k2:
        raise Fail("inner dimensions %d and %d differ" % (k, k2))
    rank = max(len(ls), len(rs))
    lb = (1,) * (rank - len(ls)) + tuple(ls[:-2])
    rb = (1,) * (rank - len(rs)) + tuple(rs[:-2])
    if any(a != b and 1 not in (a, b) for a, b in zip(lb, rb)):
        raise Fail("batch dims %s and %s do not broadcast" % (lb, rb))
    batch = tuple(max(a, b) for a, b in zip(lb, rb))
    if tuple(c.shape(out)) != batch + (m, n):
        raise Fail("output %s is not %s" % (c.shape(out), batch + (m, n)))
    whole = [int(np.prod(b, dtype=np.int64)) == 1 for b in (lb, rb)]
    expand = lb != rb and not any(whole)  # then each operand gets every batch
    params = {"batches": int(np.prod(batch, dtype=np.int64)), "m": m, "k": k, "n": n,
              "adj_x": adj_x, "adj_y": adj_y, "a_step": 0 if whole[0] else m * k,
              "b_step": 0 if whole[1] else k * n}
    if c.is_int8(node) or c.is_int16(node):
        (a_scale, a_zp), (b_scale, b_zp), (o_scale, o_zp) = [c.quant(t) for t in (lhs, rhs, out)]
        mult, shift = arith_params.batch_matmul_params(a_scale, b_scale, o_scale)
        if c.is_int16(node) and (a_zp, b_zp, o_zp) != (0, 0, 0):
            raise Fail("int16 zero points %d, %d, %d: TFLM's int16 BATCH_MATMUL takes 0"
                       % (a_zp, b_zp, o_zp))
        if c.is_int16(node) and shift > 7:
            raise Fail("output shift %d: TFLM's int16 requantization takes at most 7" % shift)
        params.update(a_zp=a_zp, b_zp=b_zp, out_zp=o_zp, mult=mult, shift=shift)
    ins = [_bmm_operand(c, lhs, lb, batch if expand else lb, ls[-2:])]
    consts = {}
    if c.tf.tensors[rhs].data is not None:
        b = c.tf.tensors[rhs].data.reshape(rb + tuple(rs[-2:]))
        b = np.broadcast_to(b, (batch if expand else rb) + tuple(rs[-2:]))
        consts["b"] = np.ascontiguousarray(b).reshape((-1,) + tuple(rs[-2:]))  # 3 dims
    else:
        ins.append(_bmm_operand(c, rhs, rb, batch if expand else rb, rs[-2:]))
    c.ops.append(GraphOp("batch_matmul", ins, [c.act(out)], consts, params))


def _bmm_operand(c, t, own, batch, mat):
    """The graph tensor of BATCH_MATMUL operand `t` (batch dims `own`, matrix dims `mat`)
    holding `batch` batches: a strided copy repeats it along the dims it broadcasts."""
    if tuple(own) == tuple(batch):
        return c.act(t)
    dims = tuple(own) + tuple(mat)
    strides = [int(np.prod(dims[a + 1:], dtype=np.int64)) for a in range(len(dims))]
    box = tflite_move.box(0, [(o, 0 if d == 1 else s) for d, o, s in
                              zip(dims, tuple(batch) + tuple(mat), strides)])
    full = tflite_move.like_tensor(c, c.act(t), tuple(batch) + tuple(mat))
    c.ops.append(GraphOp("strided", [c.act(t)], [full], params=box))
    return full


@converts("UNIDIRECTIONAL_SEQUENCE_LSTM", int16=True)
def _lstm(c, node):
    """UNIDIRECTIONAL_SEQUENCE_LSTM (burn.host.importers.tflite_lstm); its hidden and cell
    states become the op's own persistent buffer, not graph tensors."""
    try:
        consts, params = tflite_lstm.convert(c, node)
    except tflite_lstm.LstmError as e:
        raise Fail(str(e)) from e
    c.emit("lstm", node, consts=consts, params=params)
