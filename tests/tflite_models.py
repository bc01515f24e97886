"""Small .tflite models for the importer's tests, built with tests/tflite_builder.py (real
TFLite flatbuffers that TFLM runs)."""

import numpy as np
from tflite_builder import ModelBuilder


def per_channel(mb, names, shape, scales, input_scale, rng, bias_bound, axis=0):
    """(weights, bias) tensors `names` of an int8 filter of `shape` with per-channel `scales`
    along `axis` (seeded from `rng`, bias in [-bias_bound, bias_bound)) and its int32 bias
    at input_scale * each channel's scale."""
    n = len(scales)
    w = mb.tensor(names[0], shape, "int8", data=rng.integers(-127, 128, shape), scale=scales,
                  zero_point=[0] * n, quantized_dimension=axis)
    b = mb.tensor(names[1], (n,), "int32", data=rng.integers(-bias_bound, bias_bound, n),
                  scale=[input_scale * s for s in scales], zero_point=[0] * n)
    return w, b


def small_cnn(seed=0):
    """conv(relu, SAME) -> depthwise(VALID) -> add(skip) -> avg pool -> reshape -> fc ->
    softmax, all int8 with per-channel weights."""
    rng = np.random.default_rng(seed)
    mb = ModelBuilder()
    x = mb.tensor("x", (1, 6, 6, 3), "int8", scale=0.05, zero_point=-3)
    ws = [0.01 + 0.002 * i for i in range(8)]
    w, b = per_channel(mb, ("w", "b"), (8, 3, 3, 3), ws, 0.05, rng, 500)
    c = mb.tensor("c", (1, 6, 6, 8), "int8", scale=0.08, zero_point=-128)
    mb.op("CONV_2D", [x, w, b], [c], "Conv2DOptions", Padding=0, StrideH=1, StrideW=1,
          FusedActivationFunction=1)
    dws = [0.02] * 8
    dw, db = per_channel(mb, ("dw", "db"), (1, 3, 3, 8), dws, 0.08, rng, 300, axis=3)
    d = mb.tensor("d", (1, 6, 6, 8), "int8", scale=0.1, zero_point=4)
    mb.op("DEPTHWISE_CONV_2D", [c, dw, db], [d], "DepthwiseConv2DOptions", Padding=0,
          StrideH=1, StrideW=1, DepthMultiplier=1)
    s = mb.tensor("s", (1, 6, 6, 8), "int8", scale=0.12, zero_point=-5)
    mb.op("ADD", [c, d], [s], "AddOptions", FusedActivationFunction=0)
    p = mb.tensor("p", (1, 3, 3, 8), "int8", scale=0.12, zero_point=-5)
    mb.op("AVERAGE_POOL_2D", [s], [p], "Pool2DOptions", Padding=1, StrideH=2, StrideW=2,
          FilterHeight=2, FilterWidth=2)
    new_shape = mb.tensor("shape", (2,), "int32", data=[1, 72])
    f = mb.tensor("f", (1, 72), "int8", scale=0.12, zero_point=-5)
    mb.op("RESHAPE", [p, new_shape], [f])
    fw = mb.tensor("fw", (4, 72), "int8", data=rng.integers(-127, 128, (4, 72)),
                   scale=0.01, zero_point=0)
    fb = mb.tensor("fb", (4,), "int32", data=rng.integers(-100, 100, 4), scale=0.0012,
                   zero_point=0)
    logits = mb.tensor("logits", (1, 4), "int8", scale=0.2, zero_point=2)
    mb.op("FULLY_CONNECTED", [f, fw, fb], [logits], "FullyConnectedOptions")
    y = mb.tensor("y", (1, 4), "int8", scale=1.0 / 256, zero_point=-128)
    mb.op("SOFTMAX", [logits], [y], "SoftmaxOptions", Beta=1.0)
    return mb.finish([x], [y])


def residual_add(seed=4):
    """A 1x1 convolution and a skip ADD over 16 x 16 x 8 int8 (2,048 elements: the host's
    AVX-512 table form of ADD, prepared once by a validated plan), a ReLU on the sum."""
    rng = np.random.default_rng(seed)
    mb = ModelBuilder()
    x = mb.tensor("x", (1, 16, 16, 8), "int8", scale=0.05, zero_point=-3)
    w = mb.tensor("w", (8, 1, 1, 8), "int8", data=rng.integers(-127, 128, (8, 1, 1, 8)),
                  scale=0.01, zero_point=0)
    b = mb.tensor("b", (8,), "int32", data=rng.integers(-500, 500, 8), scale=0.0005,
                  zero_point=0)
    c = mb.tensor("c", (1, 16, 16, 8), "int8", scale=0.07, zero_point=6)
    mb.op("CONV_2D", [x, w, b], [c], "Conv2DOptions", Padding=1, StrideH=1, StrideW=1)
    y = mb.tensor("y", (1, 16, 16, 8), "int8", scale=0.09, zero_point=-128)
    mb.op("ADD", [x, c], [y], "AddOptions", FusedActivationFunction=1)
    return mb.finish([x], [y])


def wide_pointwise(seed=5):
    """A 1x1 convolution 256 -> 256 over 3 x 3 pixels (person_detect's last one): 64 KB of
    packed weights, more than a direct call of the host's AVX-512 VNNI convolution keeps on
    its stack, so only a validated plan's prepared form takes it."""
    rng = np.random.default_rng(seed)
    mb = ModelBuilder()
    x = mb.tensor("x", (1, 3, 3, 256), "int8", scale=0.04, zero_point=-128)
    ws = [0.004 + 0.00002 * i for i in range(256)]
    w, b = per_channel(mb, ("w", "b"), (256, 1, 1, 256), ws, 0.04, rng, 3000)
    y = mb.tensor("y", (1, 3, 3, 256), "int8", scale=0.3, zero_point=-128)
    mb.op("CONV_2D", [x, w, b], [y], "Conv2DOptions", Padding=1, StrideH=1, StrideW=1,
          FusedActivationFunction=1)
    return mb.finish([x], [y])


def reshape_depthwise(seed=2):
    """A flat (1, 1960) input reshaped to (1, 49, 40, 1) (as the KWS front end is) and fed
    to a depthwise convolution with depth multiplier 4: the reshape is folded, but the
    depthwise op needs the 4-D shape."""
    rng = np.random.default_rng(seed)
    mb = ModelBuilder()
    x = mb.tensor("x", (1, 1960), "int8", scale=0.06, zero_point=7)
    r = mb.tensor("r", (1, 49, 40, 1), "int8", scale=0.06, zero_point=7)
    mb.op("RESHAPE", [x, mb.tensor("shape", (4,), "int32", data=[1, 49, 40, 1])], [r])
    ws = [0.02, 0.03, 0.025, 0.015]
    w = mb.tensor("w", (1, 10, 4, 4), "int8", data=rng.integers(-127, 128, (1, 10, 4, 4)),
                  scale=ws, zero_point=[0] * 4, quantized_dimension=3)
    b = mb.tensor("b", (4,), "int32", data=rng.integers(-200, 200, 4),
                  scale=[0.06 * s for s in ws], zero_point=[0] * 4)
    y = mb.tensor("y", (1, 20, 19, 4), "int8", scale=0.15, zero_point=-20)
    mb.op("DEPTHWISE_CONV_2D", [r, w, b], [y], "DepthwiseConv2DOptions", Padding=1,
          StrideH=2, StrideW=2, DepthMultiplier=4, FusedActivationFunction=1)
    return mb.finish([x], [y])


def two_inputs():
    """Two int8 inputs: y = relu(a + b) * a, with different quantizations."""
    mb = ModelBuilder()
    a = mb.tensor("a", (1, 4, 4, 3), "int8", scale=0.05, zero_point=-3)
    b = mb.tensor("b", (1, 4, 4, 3), "int8", scale=0.08, zero_point=10)
    s = mb.tensor("s", (1, 4, 4, 3), "int8", scale=0.1, zero_point=-128)
    mb.op("ADD", [a, b], [s], "AddOptions", FusedActivationFunction=1)
    y = mb.tensor("y", (1, 4, 4, 3), "int8", scale=0.02, zero_point=4)
    mb.op("MUL", [s, a], [y], "MulOptions", FusedActivationFunction=0)
    return mb.finish([a, b], [y])


def hybrid_two_inputs(seed=3):
    """Two float32 inputs added, then a float fully connected layer with int8 weights (a
    hybrid op, which TFLM refuses with a message on stderr)."""
    rng = np.random.default_rng(seed)
    mb = ModelBuilder()
    a = mb.tensor("a", (1, 8), "float32")
    b = mb.tensor("b", (1, 8), "float32")
    s = mb.tensor("s", (1, 8), "float32")
    mb.op("ADD", [a, b], [s], "AddOptions")
    w = mb.tensor("w", (3, 8), "int8", data=rng.integers(-127, 128, (3, 8)), scale=0.01,
                  zero_point=0)
    bias = mb.tensor("bias", (3,), "float32", data=rng.standard_normal(3))
    y = mb.tensor("y", (1, 3), "float32")
    mb.op("FULLY_CONNECTED", [s, w, bias], [y], "FullyConnectedOptions")
    return mb.finish([a, b], [y])


def wide_activations(side=96, channels=8):
    """A few hundred bytes of file with large activations: a max pool whose input is far
    more than ten times the file, the arena TFLM's Python wrapper would guess."""
    mb = ModelBuilder()
    x = mb.tensor("x", (1, side, side, channels), "int8", scale=0.05, zero_point=-3)
    y = mb.tensor("y", (1, side // 2, side // 2, channels), "int8", scale=0.05,
                  zero_point=-3)
    mb.op("MAX_POOL_2D", [x], [y], "Pool2DOptions", Padding=1, StrideH=2, StrideW=2,
          FilterHeight=2, FilterWidth=2)
    return mb.finish([x], [y])


def svdf_model(dims, dtype="int8", act=0, q=None, data=None, bias=True, variable=True,
           opt_rank=None, time_type="int16", state_type=None, bias_scale=None):
    """A one-op SVDF model; dims = (batch, input_size, units, rank, memory), `data` the
    constants (wf, wt, bias) and `q` the int8 scales and zero points; the other arguments
    make models that TFLM refuses (`opt_rank`: the option, when it differs from dims')."""
    batch, n_in, units, rank, memory = dims
    filters = units * rank
    rng = np.random.default_rng(0)
    mb = ModelBuilder()
    if dtype == "float32":
        wf, wt, b = data or (rng.standard_normal((filters, n_in)),
                             rng.standard_normal((filters, memory)), np.zeros(units))
        qq = {k: {} for k in ("x", "wf", "wt", "b", "s", "y")}
        types = ("float32",) * 5
    else:
        wf, wt, b = data or (np.ones((filters, n_in)), np.ones((filters, memory)),
                             np.zeros(units))
        q = q or {"x": (0.05, 3), "wf": (0.01, 0), "wt": (0.001, 0), "s": (0.02, 0),
                  "y": (0.1, -2)}
        q = dict(q, b=(bias_scale or float(np.float32(q["s"][0] * q["wt"][0])), 0))
        qq = {k: {"scale": s, "zero_point": z} for k, (s, z) in q.items()}
        types = ("int8", time_type, "int32", state_type or time_type, "int8")
    x = mb.tensor("x", (batch, n_in), dtype, **qq["x"])
    tf = mb.tensor("wf", (filters, n_in), dtype, data=wf, **qq["wf"])
    tt = mb.tensor("wt", (filters, memory), types[1], data=wt, **qq["wt"])
    tb = mb.tensor("b", (units,), types[2], data=b, **qq["b"]) if bias else -1
    ts = mb.tensor("s", (batch, memory * filters), types[3], variable=variable, **qq["s"])
    y = mb.tensor("y", (batch, units), dtype, **qq["y"])
    mb.op("SVDF", [x, tf, tt, tb, ts], [y], "SVDFOptions",
          Rank=rank if opt_rank is None else opt_rank, FusedActivationFunction=act)
    return mb.finish([x], [y])


def lstm_model(dims, dtype="float32", data=None, q=None, time_major=False, act=4, cell_clip=0.0,
               drop=(), add=(), variable=True, types=None):
    """A one-op UNIDIRECTIONAL_SEQUENCE_LSTM model; dims = (batch, steps, input_size,
    units), `data` the constants (w [4, units, input_size], r [4, units, units], bias
    [4, units], gates in TFLite's order input, forget, cell, output) and `q` the int8
    quantization: scales of "x", "w" and "r" (four each), "b" (four), "h" and the cell
    state's "c" with the zero points of "x" and "h"; dtype "int16" is TFLM's int16x8 LSTM
    (int8 weights, int64 biases). The other arguments make models that TFLM refuses:
    `drop` leaves those inputs out (-1), `add` adds a [units] tensor at those inputs
    (peephole, layer norm), `types` overrides tensor types by input index."""
    batch, steps, n_in, units = dims
    rng = np.random.default_rng(0)
    w, r, b = data or (rng.standard_normal((4, units, n_in)) * 0.3,
                       rng.standard_normal((4, units, units)) * 0.3, np.zeros((4, units)))
    int8 = dtype in ("int8", "int16")  # quantized
    if int8:
        q = q or {"x": (0.05, 3 if dtype == "int8" else 0), "w": [0.01] * 4, "r": [0.01] * 4,
                  "b": [0.0005] * 4, "h": (1 / 128, 0), "c": 2.0 ** -11}
    bias = "int64" if dtype == "int16" else "int32"
    kinds = dict({"x": dtype, "w": "int8" if int8 else dtype, "b": bias if int8 else dtype,
                  "h": dtype, "c": "int16" if int8 else dtype}, **(types or {}))

    def qa(scale, zp=0):
        if isinstance(scale, list):  # per channel
            return {"scale": scale, "zero_point": [0] * len(scale), "quantized_dimension": 0}
        return {"scale": scale, "zero_point": zp}

    mb = ModelBuilder()
    xs = (steps, batch, n_in) if time_major else (batch, steps, n_in)
    ys = (steps, batch, units) if time_major else (batch, steps, units)
    x = mb.tensor("x", xs, kinds["x"], **(qa(*q["x"]) if int8 else {}))
    ins = [x]
    for g in range(4):
        ins.append(mb.tensor("w%d" % g, (units, n_in), kinds["w"], data=w[g],
                             **(qa(q["w"][g]) if int8 else {})))
    for g in range(4):
        ins.append(mb.tensor("r%d" % g, (units, units), kinds["w"], data=r[g],
                             **(qa(q["r"][g]) if int8 else {})))
    ins += [-1, -1, -1]
    for g in range(4):
        ins.append(mb.tensor("b%d" % g, (units,), kinds["b"], data=b[g],
                             **(qa(q["b"][g]) if int8 else {})))
    ins += [-1, -1]
    ins.append(mb.tensor("h", (batch, units), kinds["h"], variable=variable,
                         **(qa(*q["h"]) if int8 else {})))
    ins.append(mb.tensor("c", (batch, units), kinds["c"], variable=variable,
                         **(qa(q["c"]) if int8 else {})))
    ins += [-1, -1, -1, -1]
    for i in add:
        ins[i] = mb.tensor("extra%d" % i, (units,), kinds["w"], data=np.ones(units),
                           **(qa(0.01) if int8 else {}))
    for i in drop:
        ins[i] = -1
    y = mb.tensor("y", ys, kinds["x"], **(qa(*q["h"]) if int8 else {}))
    mb.op("UNIDIRECTIONAL_SEQUENCE_LSTM", ins, [y], "UnidirectionalSequenceLSTMOptions",
          FusedActivationFunction=act, CellClip=cell_clip, TimeMajor=time_major)
    return mb.finish([x], [y])


# -- float models (the float kernels on a board: benchmarks/rp2040_float.py, tests/firmware)
def _dense(mb, name, x, n_in, n_out, rng, act):
    w = mb.tensor(name + "_w", (n_out, n_in), "float32",
                  data=rng.standard_normal((n_out, n_in)).astype(np.float32) / np.sqrt(n_in))
    b = mb.tensor(name + "_b", (n_out,), "float32",
                  data=rng.standard_normal(n_out).astype(np.float32) * 0.1)
    y = mb.tensor(name, (1, n_out), "float32")
    mb.op("FULLY_CONNECTED", [x, w, b], [y], "FullyConnectedOptions",
          FusedActivationFunction=act)
    return y


def float_mlp():
    """hello_world's shape: 1 -> 16 -> 16 -> 1, ReLU between."""
    rng = np.random.default_rng(1)
    mb = ModelBuilder()
    x = mb.tensor("x", (1, 1), "float32")
    h = _dense(mb, "h1", x, 1, 16, rng, 1)
    h = _dense(mb, "h2", h, 16, 16, rng, 1)
    return mb.finish([x], [_dense(mb, "y", h, 16, 1, rng, 0)])


def _conv(mb, name, x, shape, c_out, rng):
    n, h, w, c_in = shape
    k = mb.tensor(name + "_w", (c_out, 3, 3, c_in), "float32",
                  data=rng.standard_normal((c_out, 3, 3, c_in)).astype(np.float32) / 3)
    b = mb.tensor(name + "_b", (c_out,), "float32", data=np.zeros(c_out, np.float32))
    y = mb.tensor(name, (n, h, w, c_out), "float32")
    mb.op("CONV_2D", [x, k, b], [y], "Conv2DOptions", Padding=0, StrideH=1, StrideW=1,
          FusedActivationFunction=1)
    return y


def float_cnn():
    """conv 3x3 1->8 on 16x16, max pool 2, conv 3x3 8->16, average pool 8, FC 16->10,
    softmax."""
    rng = np.random.default_rng(2)
    mb = ModelBuilder()
    x = mb.tensor("x", (1, 16, 16, 1), "float32")
    c1 = _conv(mb, "c1", x, (1, 16, 16, 1), 8, rng)
    p1 = mb.tensor("p1", (1, 8, 8, 8), "float32")
    mb.op("MAX_POOL_2D", [c1], [p1], "Pool2DOptions", Padding=1, StrideH=2, StrideW=2,
          FilterHeight=2, FilterWidth=2)
    c2 = _conv(mb, "c2", p1, (1, 8, 8, 8), 16, rng)
    p2 = mb.tensor("p2", (1, 1, 1, 16), "float32")
    mb.op("AVERAGE_POOL_2D", [c2], [p2], "Pool2DOptions", Padding=1, StrideH=8, StrideW=8,
          FilterHeight=8, FilterWidth=8)
    flat = mb.tensor("flat", (1, 16), "float32")
    shape = mb.tensor("shape", (2,), "int32", data=np.array([1, 16], np.int32))
    mb.op("RESHAPE", [p2, shape], [flat])
    logits = _dense(mb, "fc", flat, 16, 10, rng, 0)
    y = mb.tensor("y", (1, 10), "float32")
    mb.op("SOFTMAX", [logits], [y], "SoftmaxOptions", Beta=1.0)
    return mb.finish([x], [y])
