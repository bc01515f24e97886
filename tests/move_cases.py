"""Random one-op .tflite models of the data-movement ops that import as strided copies
(TRANSPOSE, SLICE, STRIDED_SLICE, SPLIT, SPLIT_V, UNPACK, DEPTH_TO_SPACE, SPACE_TO_DEPTH,
and GATHER and MIRROR_PAD, whose pieces a concat joins).

`make_cases(op, dtype, seed)` yields (model bytes, input array) pairs without end; each
output shape comes from numpy's own indexing of the input, not from the importer's rules.
"""

import numpy as np
from tflite_builder import ModelBuilder

OPS = ("TRANSPOSE", "SLICE", "STRIDED_SLICE", "SPLIT", "SPLIT_V", "UNPACK", "DEPTH_TO_SPACE",
       "SPACE_TO_DEPTH", "GATHER", "MIRROR_PAD")
# the ones TFLM also runs on int16 tensors, and on int32 ones
INT16_OPS = ("TRANSPOSE", "SLICE", "STRIDED_SLICE", "SPLIT", "SPLIT_V", "UNPACK")
INT32_OPS = INT16_OPS[1:]


def rand_int(rng, lo, hi):
    """A random int in [lo, hi]."""
    return int(rng.integers(lo, hi + 1))


def rand_shape(rng, lo_rank, hi_rank, hi=4):
    """A random shape of lo_rank to hi_rank dims, each 1 to hi."""
    return tuple(rand_int(rng, 1, hi) for _ in range(rand_int(rng, lo_rank, hi_rank)))


def model(op, x, outs, dtype, consts=(), options=None, options_name=None, q=None):
    """A one-op model: input `x` (an array of `x`'s shape), constant int inputs `consts`
    [(position, array)], outputs of shapes `outs`; int8 tensors share quantization `q`."""
    mb = ModelBuilder()
    q = q or {"float32": {}, "int32": {}, "int16": {"scale": 0.001, "zero_point": 0}}.get(
        dtype, {"scale": 0.05, "zero_point": -7})
    tx = mb.tensor("x", x.shape, dtype, **q)
    ins = [tx]
    for at, value in consts:
        value = np.asarray(value)
        ins.insert(at, mb.tensor("c%d" % at, value.shape, value.dtype.name, data=value))
    ys = [mb.tensor("y%d" % i, shape, dtype, **q) for i, shape in enumerate(outs)]
    mb.op(op, ins, ys, options_name, **(options or {}))
    return mb.finish([tx], ys)


def _transpose(rng, x):
    perm = rng.permutation(x.ndim)
    return model("TRANSPOSE", x, [x.transpose(perm).shape], x.dtype.name,
                 [(1, perm.astype(np.int32))], {}, "TransposeOptions")


def _slice(rng, x):
    begin = [rand_int(rng, 0, d - 1) for d in x.shape]
    size = [-1 if rng.random() < 0.2 else rand_int(rng, 1, d - b) for d, b in zip(x.shape, begin)]
    index = tuple(slice(b, None if n == -1 else b + n) for b, n in zip(begin, size))
    kind = np.int64 if rng.random() < 0.3 else np.int32
    return model("SLICE", x, [x[index].shape], x.dtype.name,
                 [(1, np.array(begin, kind)), (2, np.array(size, kind))], {}, "SliceOptions")


def _strided_slice(rng, x):
    while True:
        begin, end, steps, masks, index = [], [], [], [0, 0, 0], []
        for k, d in enumerate(x.shape):
            step = int(rng.choice([-3, -2, -1, 1, 1, 2, 3]))
            b, e = rand_int(rng, -d - 1, d + 1), rand_int(rng, -d - 1, d + 1)
            bm, em = rng.random() < 0.25, rng.random() < 0.25
            shrink = step == 1 and -d <= b < d and rng.random() < 0.2
            bm = bm and not shrink
            masks[0] |= bm << k
            masks[1] |= em << k
            masks[2] |= shrink << k
            begin.append(b)
            end.append(e)
            steps.append(step)
            index.append(b if shrink else slice(None if bm else b, None if em else e, step))
        shape = x[tuple(index)].shape
        if 0 not in shape:
            break
    consts = [(i + 1, np.array(v, np.int32)) for i, v in enumerate((begin, end, steps))]
    return model("STRIDED_SLICE", x, [shape], x.dtype.name, consts,
                 {"BeginMask": masks[0], "EndMask": masks[1], "ShrinkAxisMask": masks[2]},
                 "StridedSliceOptions")


def _axis(rng, x):
    axis = rand_int(rng, 0, x.ndim - 1)
    return axis, axis - x.ndim if rng.random() < 0.3 else axis


def _split(rng, x):
    axis, given = _axis(rng, x)
    d = x.shape[axis]
    num = int(rng.choice([n for n in range(1, d + 1) if d % n == 0]))
    outs = [p.shape for p in np.split(x, num, axis=axis)]
    return model("SPLIT", x, outs, x.dtype.name, [(0, np.array(given, np.int32))],
                 {"NumSplits": num}, "SplitOptions")


def _split_v(rng, x):
    axis, given = _axis(rng, x)
    d = x.shape[axis]
    cuts = sorted(rng.choice(np.arange(1, d), size=rand_int(rng, 0, d - 1), replace=False)) \
        if d > 1 else []
    sizes = np.diff([0] + [int(c) for c in cuts] + [d])
    outs = [p.shape for p in np.split(x, cuts, axis=axis)]
    if rng.random() < 0.3:
        sizes[rand_int(rng, 0, len(sizes) - 1)] = -1
    return model("SPLIT_V", x, outs, x.dtype.name,
                 [(1, sizes.astype(np.int32)), (2, np.array([given], np.int32))],
                 {"NumSplits": len(sizes)}, "SplitVOptions")


def _unpack(rng, x):
    axis, given = _axis(rng, x)
    outs = [np.take(x, i, axis=axis).shape for i in range(x.shape[axis])]
    return model("UNPACK", x, outs, x.dtype.name, [],
                 {"Num": x.shape[axis], "Axis": given}, "UnpackOptions")


def _depth_to_space(rng, x):
    n, h, w, c = x.shape
    b = int(rng.choice([1, 2, 2, 3]))
    x = np.resize(x, (n, h, w, c * b * b))
    return model("DEPTH_TO_SPACE", x, [(n, h * b, w * b, c)], x.dtype.name, [],
                 {"BlockSize": b}, "DepthToSpaceOptions"), x


def _space_to_depth(rng, x):
    n, h, w, c = x.shape
    b = int(rng.choice([1, 2, 2, 3]))
    x = np.resize(x, (n, h * b, w * b, c))
    return model("SPACE_TO_DEPTH", x, [(n, h, w, c * b * b)], x.dtype.name, [],
                 {"BlockSize": b}, "SpaceToDepthOptions"), x


def _gather(rng, x):
    axis, given = _axis(rng, x)
    d = x.shape[axis]
    shape = rand_shape(rng, 1, 2, 5)
    if rng.random() < 0.4:  # evenly spaced, maybe reversed: one strided copy
        first, step = rand_int(rng, 0, d - 1), int(rng.choice([-1, 1, 2]))
        idx = np.clip(first + step * np.arange(int(np.prod(shape))), 0, d - 1)
    else:
        idx = rng.integers(0, d, size=int(np.prod(shape)))
    idx = idx.reshape(shape).astype(np.int32)
    return model("GATHER", x, [np.take(x, idx, axis=axis).shape], x.dtype.name, [(1, idx)],
                 {"Axis": given, "BatchDims": 0}, "GatherOptions")


def _mirror_pad(rng, x):
    symmetric = bool(rng.integers(0, 2))
    pads = np.array([[rand_int(rng, 0, d if symmetric else d - 1) for _ in range(2)]
                     for d in x.shape], np.int64 if rng.random() < 0.3 else np.int32)
    shape = np.pad(x, pads, mode="symmetric" if symmetric else "reflect").shape
    return model("MIRROR_PAD", x, [shape], x.dtype.name, [(1, pads)], {"Mode": int(symmetric)},
                 "MirrorPadOptions")


# op: (maker, lowest rank, highest rank)
_MAKERS = {"TRANSPOSE": (_transpose, 1, 5), "SLICE": (_slice, 1, 5),
           "STRIDED_SLICE": (_strided_slice, 1, 4), "SPLIT": (_split, 1, 4),
           "SPLIT_V": (_split_v, 1, 4), "UNPACK": (_unpack, 2, 4),
           "DEPTH_TO_SPACE": (_depth_to_space, 4, 4), "SPACE_TO_DEPTH": (_space_to_depth, 4, 4),
           "GATHER": (_gather, 1, 4), "MIRROR_PAD": (_mirror_pad, 1, 4)}


def random_cases(maker, index, dtype, seed=0):
    """Without end: `maker` = (function, lowest rank, highest rank) applied to random inputs
    in `dtype`, seeded by (seed, index, dtype); each yielded as the function's tuple, or as
    (model bytes, input array) when it returns the bytes alone."""
    rng = np.random.default_rng([seed, index, dtype == "int8"] + [1] * (dtype == "int16") +
                                [2] * (dtype == "int32"))
    make, lo, hi = maker
    while True:
        shape = rand_shape(rng, lo, hi, 3 if hi > 4 else 4)
        if dtype in ("int8", "int16", "int32"):
            bits = np.iinfo(dtype)
            x = rng.integers(bits.min, bits.max, size=shape, dtype=dtype, endpoint=True)
        else:
            x = rng.standard_normal(shape).astype(np.float32)
        made = make(rng, x)
        yield made if isinstance(made, tuple) else (made, x)


def make_cases(op, dtype, seed=0):
    """Random (model bytes, input array) cases of TFLite op `op` in `dtype`, without end."""
    return random_cases(_MAKERS[op], OPS.index(op), dtype, seed)
