"""Run an int8 `.bst` Graph over a whole batch in numpy, bit for bit as the runtime does.

The same integers as the `burn.graph` s8 kernels: int32 accumulators of (input - zero
point) x weight products (formed in float64, exact far beyond any int8 layer's range), the
int32 bias, TFLM's fixed-point requantization (`multiply_by_quantized_multiplier`:
saturating rounding doubling high multiply, then a rounding right shift) vectorized in
int64, the output zero point and the fused activation clamp; pools, mean, add, mul and
batch_matmul with the kernels' integer rounding; logistic and tanh through the runtime's
256-entry tables and softmax through its plain kernel (both exact by construction).
Quantization-aware training runs its evaluation forward through this, so the QAT model in
eval mode and its exported file agree exactly.
"""

from array import array

import numpy as np

from burn.graph.fixedpoint import INT32_MAX, INT32_MIN
from burn.graph.s8_logistic import logistic_table
from burn.graph.s8_softmax import softmax_s8_plain
from burn.graph.s8_tanh import tanh_table


class Int8EmulationError(ValueError):
    """A graph op that this numpy emulation does not cover, or an integer it cannot hold."""


def requantize(acc, mult, shift):
    """multiply_by_quantized_multiplier of int64 `acc` ([..., C]) by per-channel (or
    scalar) int32 `mult` / `shift`, exactly as TFLM's reference."""
    acc = np.asarray(acc, np.int64)
    mult = np.asarray(mult, np.int64)
    shift = np.asarray(shift, np.int64)
    left = np.maximum(shift, 0)
    right = np.maximum(-shift, 0)
    x = acc << left
    if x.size and (x.min() < INT32_MIN or x.max() > INT32_MAX):
        raise Int8EmulationError("an int32 accumulator overflows (|value| >= 2**31)")
    ab = x * mult  # |ab| < 2**62
    high = np.where(ab >= 0, (ab + (1 << 30)) >> 31, -((-ab + (1 << 30) - 1) >> 31))
    mask = (np.int64(1) << right) - 1
    threshold = (mask >> 1) + (high < 0)
    return (high >> right) + ((high & mask) > threshold)


def _windows(x, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow, fill):
    """[N, oh, ow, C, kh, kw] windows of NHWC `x`, cells outside the input set to `fill`."""
    ih, iw = x.shape[1:3]
    span_h, span_w = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    pb = max(0, (oh - 1) * sh + span_h - ih - pt)
    pr = max(0, (ow - 1) * sw + span_w - iw - pl)
    padded = np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)), constant_values=fill)
    win = np.lib.stride_tricks.sliding_window_view(padded, (span_h, span_w), axis=(1, 2))
    return win[:, ::sh, ::sw][:, :oh, :ow, :, ::dh, ::dw]


def _epilogue(acc, op):
    p = op.params
    out = requantize(acc + op.consts["bias"].astype(np.int64), op.consts["mult"],
                     op.consts["shift"]) + p["out_zp"]
    return np.clip(out, p["act_min"], p["act_max"])


def _conv(ins, op, out_shape):
    x, = ins
    p, w = op.params, op.consts["w"].astype(np.float64)  # [oc, kh, kw, ic / groups]
    oc, kh, kw, gic = w.shape
    _n, oh, ow, _oc = out_shape
    win = _windows((x - p["in_zp"]).astype(np.float64), kh, kw, p["stride_h"], p["stride_w"],
                   p["dil_h"], p["dil_w"], p["pad_top"], p["pad_left"], oh, ow, 0.0)
    g = p.get("groups", 1)
    win = win.reshape(win.shape[:3] + (g, gic, kh, kw))
    acc = np.einsum("nyxgikl,goikl->nyxgo", win,
                    w.reshape(g, oc // g, kh, kw, gic).transpose(0, 1, 4, 2, 3), optimize=True)
    return _epilogue(np.rint(acc.reshape(acc.shape[:3] + (oc,))).astype(np.int64), op)


def _depthwise(ins, op, out_shape):
    x, = ins
    p, w = op.params, op.consts["w"].astype(np.float64)  # [1, kh, kw, oc]
    _one, kh, kw, oc = w.shape
    _n, oh, ow, _oc = out_shape
    win = _windows((x - p["in_zp"]).astype(np.float64), kh, kw, p["stride_h"], p["stride_w"],
                   p["dil_h"], p["dil_w"], p["pad_top"], p["pad_left"], oh, ow, 0.0)
    win = win[:, :, :, np.arange(oc) // p["depth_mult"]]
    acc = np.einsum("nyxckl,klc->nyxc", win, w[0], optimize=True)
    return _epilogue(np.rint(acc).astype(np.int64), op)


def _fully_connected(ins, op, out_shape):
    x, = ins
    w = op.consts["w"].astype(np.float64)  # [out, in]
    flat = (x.reshape(len(x), -1) - op.params["in_zp"]).astype(np.float64)
    return _epilogue(np.rint(flat @ w.T).astype(np.int64), op)


def _pool(ins, op, out_shape):
    x, = ins
    p = op.params
    _n, oh, ow, _c = out_shape
    args = (p["kh"], p["kw"], p["stride_h"], p["stride_w"], 1, 1, p["pad_top"], p["pad_left"],
            oh, ow)
    if op.op == "max_pool2d":
        out = _windows(x, *args, -128).max(axis=(4, 5))
    else:
        total = _windows(x, *args, 0).sum(axis=(4, 5))
        count = _windows(np.ones_like(x[:1, ..., :1]), *args, 0).sum(axis=(4, 5))
        out = np.where(total > 0, (total + count // 2) // count,
                       -((count // 2 - total) // count))
    return np.clip(out, p["act_min"], p["act_max"])


def _mean(ins, op, out_shape):
    x, = ins
    p = op.params
    blocks = x.reshape(len(x), p["outer"], p["reduce"], p["inner"])
    acc = blocks.sum(axis=2) - p["in_zp"] * p["reduce"]
    return np.clip(requantize(acc, p["mult"], p["shift"]) + p["out_zp"], -128, 127)


def _operands(ins):
    """The two operands of a binary op as [N, size], the second repeated to the size of
    the first (the kernels' b[i % b_size])."""
    a, b = (v.reshape(len(v), -1) for v in ins)
    return a, np.tile(b, a.shape[1] // b.shape[1])


def _add(ins, op, out_shape):
    p = op.params
    a, b = _operands(ins)
    x = requantize((a - p["a_zp"]) << p["left_shift"], p["a_mult"], p["a_shift"])
    y = requantize((b - p["b_zp"]) << p["left_shift"], p["b_mult"], p["b_shift"])
    out = requantize(x + y, p["out_mult"], p["out_shift"]) + p["out_zp"]
    return np.clip(out, p["act_min"], p["act_max"])


def _mul(ins, op, out_shape):
    p = op.params
    a, b = _operands(ins)
    out = requantize((a - p["a_zp"]) * (b - p["b_zp"]), p["mult"], p["shift"]) + p["out_zp"]
    return np.clip(out, p["act_min"], p["act_max"])


def _matrices(v, step, rows, cols, adj, batches):
    """[N, batches or 1, ...] matrices of a batch_matmul operand held `rows` x `cols`,
    transposed when `adj` (TFLite's adj_x / adj_y)."""
    m = v.reshape(len(v), batches if step else 1, rows, cols).astype(np.float64)
    return m.transpose(0, 1, 3, 2) if adj else m


def _batch_matmul(ins, op, out_shape):
    p = op.params
    m, k, n, batches = p["m"], p["k"], p["n"], p["batches"]
    b = ins[1] if len(ins) > 1 else op.consts["b"].astype(np.int64)[None]
    a = _matrices(ins[0] - p["a_zp"], p["a_step"], *((k, m) if p["adj_x"] else (m, k)),
                  p["adj_x"], batches)
    b = _matrices(b - p["b_zp"], p["b_step"], *((n, k) if p["adj_y"] else (k, n)),
                  p["adj_y"], batches)
    acc = np.rint(a @ b).astype(np.int64)  # exact: |acc| < 2**31 (k <= 2**15)
    out = requantize(acc, p["mult"], p["shift"]) + p["out_zp"]
    return np.clip(out, -128, 127)


def _clamp(ins, op, out_shape):
    return np.clip(ins[0], op.params["act_min"], op.params["act_max"])


def _copy(ins, op, out_shape):
    return ins[0]


def _pad(ins, op, out_shape):
    x, = ins
    p = op.params
    dims = (1,) * (4 - (x.ndim - 1)) + x.shape[1:]
    if p["before"][0] or p["after"][0] or dims[0] != 1:
        raise Int8EmulationError("pad along the batch axis is not emulated")
    widths = [(0, 0)] + [(p["before"][i], p["after"][i]) for i in (1, 2, 3)]
    return np.pad(x.reshape((len(x),) + dims[1:]), widths, constant_values=p["value"])


def _concat(ins, op, out_shape):
    outer = op.params["outer"]
    return np.concatenate([v.reshape(len(v), outer, -1) for v in ins], axis=2)


def _table(ins, op, out_shape):
    p = op.params
    maker = logistic_table if op.op == "logistic" else tanh_table
    table = np.frombuffer(maker(p["in_zp"], p["in_mult"], p["in_left_shift"],
                                p["range_radius"]), np.int8).astype(np.int64)
    return table[ins[0] & 255]


def _softmax(ins, op, out_shape):
    x, = ins
    p = op.params
    depth = out_shape[-1]
    flat = array("b", x.astype(np.int8).tobytes())
    out = array("b", bytes(len(flat)))
    softmax_s8_plain(flat, out, len(flat) // depth, depth, p["in_mult"], p["in_left_shift"],
                     p["diff_min"])
    return np.frombuffer(out, np.int8).astype(np.int64)


_KERNELS = {"conv2d": _conv, "depthwise_conv2d": _depthwise,
            "fully_connected": _fully_connected, "mean": _mean, "clamp": _clamp,
            "max_pool2d": _pool, "avg_pool2d": _pool, "add": _add, "mul": _mul,
            "copy": _copy, "pad": _pad, "concat": _concat, "logistic": _table,
            "tanh": _table, "softmax": _softmax, "batch_matmul": _batch_matmul}
SUPPORTED_OPS = tuple(sorted(_KERNELS))


def check_supported(graph):
    """Raise Int8EmulationError naming the first op of `graph` with no emulation here."""
    for op in graph.ops:
        if op.op not in _KERNELS:
            raise Int8EmulationError(
                "op %s (output %s) has no exact numpy emulation; supported: %s"
                % (op.op, graph.tensors[op.outputs[0]].name, ", ".join(SUPPORTED_OPS)))


def run_int8(graph, x):
    """The int8 outputs (numpy int8, [N] + output shape without its batch axis) of the
    single-input, single-output int8 `graph` for the int8 inputs `x` ([N] + input shape
    without its batch axis, graph layout)."""
    check_supported(graph)
    (tin, in_shape), = graph.inputs
    (tout, out_shape), = graph.outputs
    x = np.asarray(x)
    n = len(x)
    values = {tin: x.reshape((n,) + tuple(in_shape[1:])).astype(np.int64)}
    for op in graph.ops:
        dst, = op.outputs
        shape = (n,) + graph.tensors[dst].shape[1:]
        result = _KERNELS[op.op]([values[t] for t in op.inputs], op, shape)
        values[dst] = result.reshape(shape)
    return values[tout].reshape((n,) + tuple(out_shape[1:])).astype(np.int8)
