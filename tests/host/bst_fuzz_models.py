"""Base files of the `.bst` mutation fuzz (bst_mutants.py): a small CNN exported by burn's
quantizer (conv, depthwise conv, pools, fully connected, softmax) and a hand-made graph of
the other ops (pad, add, mul, logistic, tanh, concat, mean, requantize, dequantize, float
fully connected and softmax, quantize, clamp, copy, unary, prelu, svdf, strided), one of
products of two activations (batch_matmul), one of LSTMs and one of int32 tensors (gather,
arg): files of their own, as the RP2040 heap holds no more optional modules beside the
others."""

import numpy as np

import burn
from burn import nn
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, write_bst
from burn.host.export import quantize
from burn.host.importers.sigmoid16 import sigmoid_table


def cnn(path):
    """The exported CNN on 8x8 images (about 3.5 KB)."""
    burn.seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.ReLU(),
                          nn.Conv2d(4, 8, 3, padding=1, groups=4), nn.ReLU6(),
                          nn.AvgPool2d(2), nn.Conv2d(8, 8, 1), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(8, 6), nn.Softmax(dim=1))
    samples = np.random.default_rng(0).random((8, 1, 8, 8), dtype=np.float32)
    write_bst(quantize(model, samples, tests=1), path)
    return str(path)


def _t(name, shape, dtype="int8", scale=0.05, zp=-3):
    if dtype == "float32":
        return GraphTensor(name, shape, dtype)
    return GraphTensor(name, shape, dtype, scale, zp)


_CLAMP = {"act_min": -128, "act_max": 127}


def others(path):
    """The hand-made graph of the ops the CNN lacks; its parameters are plausible, not
    calibrated: the fuzz compares runtimes, not accuracy."""
    rng = np.random.default_rng(1)
    tensors = [_t("x", (1, 4, 4, 2)), _t("pad", (1, 6, 6, 2)), _t("add", (1, 6, 6, 2)),
               _t("mul", (1, 6, 6, 2)), _t("sig", (1, 6, 6, 2), zp=-128),
               _t("tanh", (1, 6, 6, 2), zp=0), _t("cat", (1, 6, 6, 4)), _t("mean", (1, 4)),
               _t("req", (1, 4), zp=5), _t("deq", (1, 4), "float32"),
               _t("fc", (1, 3), "float32"), _t("soft", (1, 3), "float32"),
               _t("q", (1, 3), zp=-128), _t("clamp", (1, 3), zp=-128), _t("y", (3,), zp=-128),
               _t("unary", (3,), zp=-128), _t("prelu", (3,), zp=4), _t("svdf", (1, 2)),
               _t("reversed", (2,), zp=-3)]
    q = {"in_mult": 1 << 30, "in_left_shift": 2, "range_radius": 100}
    ops = [
        GraphOp("pad", [0], [1], params={"before": [0, 1, 1, 0], "after": [0, 1, 1, 0],
                                         "value": -3}),
        GraphOp("add", [1, 1], [2], params=dict(
            a_zp=-3, a_mult=1 << 30, a_shift=-1, b_zp=-3, b_mult=1 << 29, b_shift=-1,
            out_zp=-3, out_mult=1 << 30, out_shift=-19, left_shift=20, **_CLAMP)),
        GraphOp("mul", [2, 1], [3], params=dict(a_zp=-3, b_zp=-3, out_zp=-3, mult=1 << 30,
                                                shift=-4, **_CLAMP)),
        GraphOp("logistic", [3], [4], params=dict(in_zp=-3, **q)),
        GraphOp("tanh", [3], [5], params=dict(in_zp=-3, **q)),
        GraphOp("concat", [4, 5], [6], params={"outer": 36, "inner_sizes": [2, 2]}),
        GraphOp("mean", [6], [7], params={"outer": 1, "reduce": 36, "inner": 4, "in_zp": -3,
                                          "out_zp": -3, "mult": 1 << 30, "shift": 0}),
        GraphOp("requantize", [7], [8], params={"in_zp": -3, "out_zp": 5, "mult": 1 << 30,
                                                "shift": 1}),
        GraphOp("dequantize", [8], [9], params={"scale": 0.05, "zp": 5}),
        GraphOp("fully_connected", [9], [10], consts={
            "w": rng.standard_normal((3, 4)).astype(np.float32),
            "bias": rng.standard_normal(3).astype(np.float32)}, params={"act": 0}),
        GraphOp("softmax", [10], [11], params={"beta": 1.0}),
        GraphOp("quantize", [11], [12], params={"scale": 1 / 256, "zp": -128}),
        GraphOp("clamp", [12], [13], params={"act_min": -120, "act_max": 120}),
        GraphOp("copy", [13], [14]),
        GraphOp("unary", [14], [15], consts={
            "table": rng.integers(-128, 128, size=256, dtype=np.int8)}),
        GraphOp("prelu", [15], [16], consts={"alpha": np.array([-20, 50, 90], np.int8)},
                params={"in_zp": 0, "alpha_zp": 10, "out_zp": 4, "pos_mult": 1 << 30,
                        "pos_shift": 1, "neg_mult": 1 << 30, "neg_shift": -6}),
        GraphOp("svdf", [16], [17], consts={
            "wf": rng.integers(-128, 128, (4, 3)).astype(np.int8),
            "wt": rng.integers(-3000, 3000, (4, 3)).astype(np.int32),
            "bias": rng.integers(-500, 500, 2).astype(np.int32)}, params={
            "rank": 2, "in_zp": 4, "state_zp": 0, "out_zp": -3, "state_mult": 1 << 30,
            "state_shift": 4, "out_mult": 1 << 30, "out_shift": -12,
            "state_bits": 16}),
        GraphOp("strided", [17], [18], params={"offset": 1, "dims": [1, 1, 1, 1, 1, 2],
                                               "strides": [0, 0, 0, 0, 0, -1]}),
    ]
    graph = Graph(tensors, ops, [(0, (1, 4, 4, 2))], [(18, (2,))])
    write_bst(graph, path)
    return str(path)


_CLAMP16 = {"act_min": -32768, "act_max": 32767}


def int16_graph(softmax=True, seed=2):
    """A hand-made int16x8 graph of every int16 op: float32 -> int16, conv (wide), depthwise,
    pools, add, mul, concat, int8 and back, fully connected (int32 bias), logistic, tanh,
    softmax (unless `softmax` is False: its two 1 KB tables), int16 -> float32."""
    rng = np.random.default_rng(seed)

    def t(name, shape, dtype="int16", scale=1 / 1024):
        return _t(name, shape, dtype, scale, 0)

    tensors = [t("x", (1, 4, 4, 2), "float32"), t("q", (1, 4, 4, 2)), t("conv", (1, 4, 4, 2)),
               t("dw", (1, 4, 4, 2)), t("avg", (1, 2, 2, 2)), t("max", (1, 2, 2, 2)),
               t("add", (1, 2, 2, 2)), t("mul", (1, 2, 2, 2)), t("cat", (1, 2, 2, 4)),
               _t("s8", (1, 16), zp=3), t("s16", (1, 16)), t("fc", (1, 3)),
               t("soft", (1, 3), scale=1 / 32768), t("y", (1, 3), "float32"),
               t("sig", (1, 3), scale=1 / 32768), t("tanh", (1, 3), scale=1 / 32768)]

    def tables(oc):
        return {"bias": rng.integers(-900, 900, oc).astype(np.int32),
                "mult": np.full(oc, 1 << 30, np.int32), "shift": np.full(oc, -3, np.int32)}

    window = {"stride_h": 1, "stride_w": 1, "dil_h": 1, "dil_w": 1, "pad_top": 1,
              "pad_left": 1}
    pool = {"kh": 2, "kw": 2, "stride_h": 2, "stride_w": 2, "pad_top": 0, "pad_left": 0}
    from burn.host.importers import sigmoid16
    from burn.host.importers.tflite_luts import softmax_luts

    exp_lut, inv_lut = softmax_luts()
    ops = [
        GraphOp("quantize", [0], [1], params={"scale": 1 / 1024, "zp": 0}),
        GraphOp("conv2d", [1], [2], dict(w=rng.integers(-127, 128, (2, 3, 3, 2)).astype(
            np.int8), **tables(2)), dict(groups=1, wide=1, **window, **_CLAMP16)),
        GraphOp("depthwise_conv2d", [2], [3], dict(w=rng.integers(-127, 128, (1, 3, 3, 2)).astype(
            np.int8), **tables(2)), dict(depth_mult=1, **window, **_CLAMP16)),
        GraphOp("avg_pool2d", [3], [4], params=dict(pool, **_CLAMP16)),
        GraphOp("max_pool2d", [3], [5], params=dict(pool, **_CLAMP16)),
        GraphOp("add", [4, 5], [6], params=dict(
            a_zp=0, a_mult=1 << 30, a_shift=-1, b_zp=0, b_mult=1 << 30, b_shift=-1, out_zp=0,
            out_mult=1 << 30, out_shift=-14, left_shift=15, **_CLAMP16)),
        GraphOp("mul", [6, 4], [7], params=dict(a_zp=0, b_zp=0, out_zp=0, mult=1 << 30,
                                                shift=-10, **_CLAMP16)),
        GraphOp("concat", [6, 7], [8], params={"outer": 4, "inner_sizes": [2, 2]}),
        GraphOp("requantize", [8], [9], params={"in_zp": 0, "out_zp": 3, "mult": 1 << 30,
                                                "shift": -7}),
        GraphOp("requantize", [9], [10], params={"in_zp": 3, "out_zp": 0, "mult": 1 << 30,
                                                 "shift": 8}),
        GraphOp("fully_connected", [10], [11], dict(
            w=rng.integers(-127, 128, (3, 16)).astype(np.int8), **tables(3)), dict(
            wide=0, in_zp=0, out_zp=0, **_CLAMP16)),
        GraphOp("softmax", [15], [12], {"exp_lut": exp_lut, "inv_lut": inv_lut},
                {"in_mult": 1 << 30, "in_left_shift": 3}),
        GraphOp("dequantize", [12], [13], params={"scale": 1 / 32768, "zp": 0}),
    ]
    for kind, x, y, scale in (("logistic", 11, 14, 1 / 1024), ("tanh", 14, 15, 1 / 32768)):
        mult, shift = sigmoid16.input_scaling(kind, scale)
        ops.insert(-2, GraphOp(kind, [x], [y], {"table": sigmoid16.sigmoid_table()},
                               {"in_mult": mult, "in_left_shift": shift}))
    if not softmax:
        ops[-2:] = [GraphOp("dequantize", [15], [13], params={"scale": 1 / 32768, "zp": 0})]
    return Graph(tensors, ops, [(0, (1, 4, 4, 2))], [(13, (1, 3))])


def int16(path):
    """int16_graph(softmax=False) as a .bst file at `path`: the fuzz's model (the softmax
    tables' copies crowd the RP2040 heap beside the x64 native module; the softmax's checks
    are in tests/host/test_bst_int16_hostile.py)."""
    write_bst(int16_graph(softmax=False), path)
    return str(path)


def matmul(path):
    """x @ x^T, that times x, and the result times a constant [3, 2] (int8 batch_matmul ops,
    two of two activations, one broadcasting its constant) as a .bst file at `path`."""
    tensors = [_t("x", (2, 2, 3)), _t("gram", (2, 2, 2), zp=5), _t("y", (2, 2, 3), zp=-7),
               _t("z", (2, 2, 2), zp=1)]
    q = {"adj_x": 0, "a_zp": -3, "mult": 1 << 30}
    b = np.random.default_rng(3).integers(-128, 128, (3, 2)).astype(np.int8)
    ops = [GraphOp("batch_matmul", [0, 0], [1], params=dict(
               batches=2, m=2, k=3, n=2, a_step=6, b_step=6, adj_y=1, b_zp=-3, out_zp=5,
               shift=-3, **q)),
           GraphOp("batch_matmul", [1, 0], [2], params=dict(
               batches=2, m=2, k=2, n=3, a_step=4, b_step=6, adj_y=0, b_zp=5, out_zp=-7,
               shift=-2, **dict(q, a_zp=5))),
           GraphOp("batch_matmul", [2], [3], consts={"b": b}, params=dict(
               batches=2, m=2, k=3, n=2, a_step=6, b_step=0, adj_y=0, b_zp=0, out_zp=1,
               shift=-8, **dict(q, a_zp=-7)))]
    write_bst(Graph(tensors, ops, [(0, (2, 2, 3))], [(3, (2, 2, 2))]), path)
    return str(path)


def lstm(path):
    """A float32 LSTM over two steps, its output through softmax, quantized to int8 and into
    an int8 LSTM (the lstm op's own base file: added to `others`, its code would not fit
    the RP2040's heap beside the rest)."""
    rng = np.random.default_rng(3)
    tensors = [_t("x", (1, 2, 3), "float32"), _t("lstm", (1, 2, 4), "float32"),
               _t("soft", (1, 2, 4), "float32"), _t("q", (1, 2, 4), zp=-128),
               _t("y", (1, 2, 3), zp=4)]
    ops = [
        GraphOp("lstm", [0], [1], consts={
            "w": rng.standard_normal((16, 3)).astype(np.float32),
            "r": rng.standard_normal((16, 4)).astype(np.float32),
            "bias": rng.standard_normal(16).astype(np.float32)},
            params={"batch": 1, "steps": 2, "time_major": 0, "cell_clip": 1.5}),
        GraphOp("softmax", [1], [2], params={"beta": 1.0}),
        GraphOp("quantize", [2], [3], params={"scale": 1 / 256, "zp": -128}),
        GraphOp("lstm", [3], [4], consts={
            "w": rng.integers(-127, 128, (12, 4)).astype(np.int8),
            "r": rng.integers(-127, 128, (12, 3)).astype(np.int8),
            "bias": rng.integers(-3000, 3000, 12).astype(np.int32),
            "gate_q": np.array([1 << 30, -2] * 8, np.int32), "table": sigmoid_table()},
            params={"batch": 1, "steps": 2, "time_major": 0, "in_zp": -128, "out_zp": 4,
                    "cell_clip": 20000, "cell_power": -11, "fc_mult": 1 << 30, "fc_shift": -14,
                    "ic_mult": 1 << 30, "ic_shift": -18, "hid_mult": 1 << 30,
                    "hid_shift": -22}),
    ]
    write_bst(Graph(tensors, ops, [(0, (1, 2, 3))], [(4, (1, 2, 3))]), path)
    return str(path)


def int32(path):
    """int32 token ids -> gather of a constant int8 table -> arg max (int32 indices) ->
    gather of the embeddings at those indices -> copy, as a .bst file at `path`."""
    rng = np.random.default_rng(3)
    tensors = [GraphTensor("ids", (4,), "int32"), _t("emb", (4, 3)),
               GraphTensor("best", (4,), "int32"), _t("picked", (4, 3)), _t("y", (4, 3))]
    ops = [GraphOp("gather", [0], [1], consts={
               "params": rng.integers(-128, 128, (1, 6, 3)).astype(np.int8)},
               params={"outer": 1, "size": 6, "inner": 3, "count": 4}),
           GraphOp("arg", [1], [2], params={"outer": 4, "reduce": 3, "inner": 1, "op": 0}),
           GraphOp("gather", [1, 2], [3], params={"outer": 1, "size": 4, "inner": 3,
                                                  "count": 4}),
           GraphOp("copy", [3], [4])]
    write_bst(Graph(tensors, ops, [(0, (4,))], [(4, (4, 3))]), path)
    return str(path)
