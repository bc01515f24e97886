"""Base files of the `.bst` mutation fuzz (bst_mutants.py): a small CNN exported by burn's
quantizer (conv, depthwise conv, pools, fully connected, softmax) and a hand-made graph of
the other ops (pad, add, mul, logistic, tanh, concat, mean, requantize, dequantize, float
fully connected and softmax, quantize, clamp, copy, strided)."""

import numpy as np

import burn
from burn import nn
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, write_bst
from burn.host.export import quantize


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
               _t("reversed", (3,), zp=-128)]
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
        GraphOp("strided", [14], [15], params={"offset": 2, "dims": [1, 1, 1, 1, 1, 3],
                                               "strides": [0, 0, 0, 0, 0, -1]}),
    ]
    graph = Graph(tensors, ops, [(0, (1, 4, 4, 2))], [(15, (3,))])
    write_bst(graph, path)
    return str(path)
