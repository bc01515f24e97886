"""Random one-op .tflite models of the TFLite ops that burn imports through kinds it already
has, without a kernel of their own: REVERSE_V2, BROADCAST_TO, GATHER_ND, SPACE_TO_BATCH_ND
and BATCH_TO_SPACE_ND (strided copies, concats and a pad), and CAST, ADD_N and REDUCE_ALL
(`cast_case`, `add_n_case`, `reduce_all_case`).

`make_cases(op, dtype, seed)` yields (model bytes, input array, padded) without end; each
output shape comes from numpy's own indexing of the input, not from the importer's rules.
`padded` (None but for SPACE_TO_BATCH_ND) marks the flat output's padding elements, whose
value TFLM leaves unset (its kernel reads a pad value it never fills in): burn writes 0
there, the output zero point in int8, as TensorFlow Lite does.
"""

import numpy as np
from move_cases import model, rand_int, rand_shape, random_cases
from tflite_builder import ModelBuilder

OPS = ("REVERSE_V2", "BROADCAST_TO", "GATHER_ND", "SPACE_TO_BATCH_ND", "BATCH_TO_SPACE_ND",
       "FILL")


def _reverse(rng, x):
    count = rand_int(rng, 1, x.ndim)
    first = rand_int(rng, 0, x.ndim - count)
    axes = [a - x.ndim if rng.random() < 0.3 else a for a in range(first, first + count)]
    return model("REVERSE_V2", x, [x.shape], x.dtype.name,
                 [(1, np.array(rng.permutation(axes), np.int32))])


def _broadcast_to(rng, x):
    out = rand_shape(rng, x.ndim, 5, 3)
    out = out[:len(out) - x.ndim] + tuple(o if d == 1 else d
                                          for d, o in zip(x.shape, out[len(out) - x.ndim:]))
    kind = np.int64 if rng.random() < 0.3 else np.int32
    return model("BROADCAST_TO", x, [np.broadcast_to(x, out).shape], x.dtype.name,
                 [(1, np.array(out, kind))])


def _gather_nd(rng, x):
    k = rand_int(rng, 1, x.ndim)
    lead = rand_shape(rng, 0, 2, 4)
    if rng.random() < 0.4:  # consecutive slices: one strided copy
        first = rand_int(rng, 0, int(np.prod(x.shape[:k])) - 1)
        flat = np.minimum(first + np.arange(int(np.prod(lead))), np.prod(x.shape[:k]) - 1)
        idx = np.stack(np.unravel_index(flat, x.shape[:k]), -1)
    else:
        idx = np.stack([rng.integers(0, d, size=lead) for d in x.shape[:k]], -1)
    idx = idx.reshape(lead + (k,)).astype(np.int32)
    out = x[tuple(np.moveaxis(idx, -1, 0))]
    return model("GATHER_ND", x, [out.shape], x.dtype.name, [(1, idx)])


def _nhwc(x, spatial):
    """x as NHWC (a 3-D x gets W = 1)."""
    return x.reshape(x.shape[:2] + (1, x.shape[2])) if spatial == 1 else x


def _space_to_batch(rng, x):
    """The model, its input and the output's padded elements (TFLM leaves their value
    unset)."""
    spatial = x.ndim - 2
    block = [rand_int(rng, 1, 3) for _ in range(spatial)]
    pads = []
    for d, b in zip(x.shape[1:1 + spatial], block):
        before = rand_int(rng, 0, 2) if rng.random() < 0.5 else 0
        pads.append([before, -(d + before) % b + b * rand_int(rng, 0, 1)])
    padded = np.pad(np.zeros(x.shape, bool), [[0, 0]] + pads + [[0, 0]], constant_values=True)
    bh, bw = block + [1] * (2 - spatial)
    n, hp, wp, c = _nhwc(padded, spatial).shape
    mask = _nhwc(padded, spatial).reshape(n, hp // bh, bh, wp // bw, bw, c)
    mask = mask.transpose(2, 4, 0, 1, 3, 5).reshape(n * bh * bw, hp // bh, wp // bw, c)
    shape = mask.shape if spatial == 2 else (n * bh * bw, hp // bh, c)
    return model("SPACE_TO_BATCH_ND", x, [shape], x.dtype.name,
                 [(1, np.array(block, np.int32)), (2, np.array(pads, np.int32))]), x, \
        mask.reshape(-1)


def _batch_to_space(rng, x):
    spatial = x.ndim - 2
    block = [rand_int(rng, 1, 3) for _ in range(spatial)]
    x = np.concatenate([x] * int(np.prod(block)))
    bh, bw = block + [1] * (2 - spatial)
    b, h, w, c = _nhwc(x, spatial).shape
    full = _nhwc(x, spatial).reshape(bh, bw, b // (bh * bw), h, w, c)
    full = full.transpose(2, 3, 0, 4, 1, 5).reshape(b // (bh * bw), h * bh, w * bw, c)
    crops = [[rand_int(rng, 0, (d - 1) // 2), rand_int(rng, 0, (d - 1) // 2)]
             for d in full.shape[1:1 + spatial]]
    crops += [[0, 0]] * (2 - spatial)
    out = full[:, crops[0][0]:full.shape[1] - crops[0][1],
               crops[1][0]:full.shape[2] - crops[1][1]]
    shape = out.shape if spatial == 2 else (out.shape[0], out.shape[1], out.shape[3])
    return model("BATCH_TO_SPACE_ND", x, [shape], x.dtype.name,
                 [(1, np.array(block, np.int32)), (2, np.array(crops[:spatial], np.int32))]), x


def _fill(rng, x):
    """A FILL of x's first value (a scalar input) into a random shape."""
    value = x.reshape(-1)[:1].reshape(())
    out = rand_shape(rng, 1, 4)
    return model("FILL", value, [out], x.dtype.name,
                 [(0, np.array(out, np.int64 if rng.random() < 0.3 else np.int32))]), value


# op: (maker, lowest rank, highest rank)
_MAKERS = {"REVERSE_V2": (_reverse, 1, 5), "BROADCAST_TO": (_broadcast_to, 1, 4),
           "GATHER_ND": (_gather_nd, 1, 4), "SPACE_TO_BATCH_ND": (_space_to_batch, 3, 4),
           "BATCH_TO_SPACE_ND": (_batch_to_space, 3, 4), "FILL": (_fill, 1, 1)}


def make_cases(op, dtype, seed=0):
    """Random (model bytes, input array, padded) cases of TFLite op `op` in `dtype`, without
    end."""
    for made in random_cases(_MAKERS[op], OPS.index(op), dtype, seed):
        yield made if len(made) == 3 else made + (None,)


# CAST's pairs (burn.host.importers.tflite_cast), and the runtime of each on the
# MicroPython unix port: a copy has a viper twin, dequantize, requantize_s8_s16 and the
# cast op do not
CASTS = (("bool", "int8", "viper"), ("int8", "float32", "plain"), ("bool", "float32", "plain"),
         ("int16", "float32", "plain"), ("int8", "int16", "plain"), ("bool", "int16", "plain"),
         ("int8", "int32", "plain"), ("bool", "int32", "plain"), ("int16", "int32", "plain"),
         ("int8", "int8", "viper"), ("int16", "int16", "plain"), ("int32", "int32", "plain"),
         ("float32", "float32", "plain"), ("int32", "int8", "plain"), ("int32", "int16", "plain"),
         ("int16", "int8", "plain"), ("float32", "int8", "plain"), ("float32", "int16", "plain"),
         ("float32", "int32", "plain"), ("int32", "float32", "plain"))


def _in_range(rng, shape, dst):
    """float32 values that truncate into integer type `dst` (TFLM's CAST is undefined
    beyond it): spread over its range, a third of them within 3 of zero (truncation toward
    zero of small negative values; above -1 for an unsigned `dst`)."""
    info = np.iinfo(dst)
    top = np.float32(info.max + 1)  # 2**(bits-1) (unsigned: 2**bits): the first out of range
    x = rng.uniform(float(info.min), float(top), size=shape).astype(np.float32)
    x = np.where(x >= top, np.nextafter(top, np.float32(0)), x)
    small = rng.uniform(-3.0 if info.min else -0.99, 3.0, size=shape).astype(np.float32)
    return np.where(rng.random(shape) < 0.33, small, x).astype(np.float32)


def _values(rng, shape, dtype, dst=None):
    """Random (burn's input, TFLM's input) of `dtype`: BOOL is int8 0/1 in burn. A float32
    input to an integer `dst` stays within dst's range; an int32 one to float32 has some
    values halfway between two float32s (ties to even)."""
    if dtype == "bool":
        x = rng.integers(0, 2, size=shape, dtype=np.int8)
        return x, x.astype(bool)
    if dtype == "float32" and dst not in (None, "float32"):
        x = _in_range(rng, shape, dst)
        return x, x
    if dtype == "float32":
        x = rng.standard_normal(shape).astype(np.float32)
        return x, x
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max + 1, size=shape).astype(dtype)
    if dtype == "int32" and dst == "float32":  # 64 past a multiple of 128: a tie at 2**30+
        x = np.where(rng.random(shape) < 0.3, (x & ~127) | 64, x).astype(np.int32)
    return x, x


def cast_case(rng, src, dst):
    """(model, burn's input, TFLM's input) of a CAST from `src` to `dst` (unquantized)."""
    x, tflm_x = _values(rng, rand_shape(rng, 1, 4), src, dst)
    mb = ModelBuilder()
    tx, ty = mb.tensor("x", x.shape, src), mb.tensor("y", x.shape, dst)
    mb.op("CAST", [tx], [ty])
    return mb.finish([tx], [ty]), x, tflm_x


def add_n_case(rng, dtype):
    """(model, burn's inputs, TFLM's inputs) of an ADD_N: float32 of 2 to 5 inputs, int8 of
    2 (TFLM's inputs share one quantization)."""
    shape = rand_shape(rng, 1, 4)
    count = 2 if dtype == "int8" else rand_int(rng, 2, 5)
    q_in, q_out = {}, {}
    if dtype == "int8":
        q_in = {"scale": float(rng.uniform(0.01, 0.2)), "zero_point": rand_int(rng, -84, 84)}
        q_out = {"scale": float(rng.uniform(0.01, 0.4)), "zero_point": rand_int(rng, -20, 20)}
        xs = [rng.integers(-128, 128, size=shape, dtype=np.int8) for _ in range(count)]
    else:
        xs = [rng.standard_normal(shape).astype(np.float32) for _ in range(count)]
    mb = ModelBuilder()
    ins = [mb.tensor("x%d" % i, shape, dtype, **q_in) for i in range(count)]
    y = mb.tensor("y", shape, dtype, **q_out)
    mb.op("ADD_N", ins, [y])
    return mb.finish(ins, [y]), xs, xs


def reduce_all_case(rng):
    """(model, burn's input, TFLM's input) of a REDUCE_ALL over random axes."""
    x, tflm_x = _values(rng, rand_shape(rng, 1, 4), "bool")
    axes = sorted({rand_int(rng, 0, x.ndim - 1) for _ in range(rand_int(rng, 1, x.ndim))})
    keep = bool(rng.integers(0, 2))
    out = tflm_x.all(axis=tuple(axes), keepdims=keep)
    given = [a - x.ndim if rng.random() < 0.3 else a for a in axes]
    mb = ModelBuilder()
    tx = mb.tensor("x", x.shape, "bool")
    ta = mb.tensor("axes", (len(given),), "int32", data=np.array(given, np.int32))
    ty = mb.tensor("y", out.shape if out.shape else (1,), "bool")
    mb.op("REDUCE_ALL", [tx, ta], [ty], "ReducerOptions", KeepDims=keep)
    return mb.finish([tx], [ty]), x, tflm_x


def zeros_like_case(rng, dtype):
    """(model, burn's input, TFLM's input) of a ZEROS_LIKE (int8: quantized, zero point not
    0, whose zeros are still raw 0)."""
    shape = rand_shape(rng, 1, 4)
    q = {"scale": 0.1, "zero_point": rand_int(rng, -100, 100)} if dtype == "int8" else {}
    x = rng.integers(-128, 128, size=shape).astype(dtype)
    mb = ModelBuilder()
    tx, ty = mb.tensor("x", shape, dtype, **q), mb.tensor("y", shape, dtype, **q)
    mb.op("ZEROS_LIKE", [tx], [ty])
    return mb.finish([tx], [ty]), x, x


def update_slice_case(rng, dtype):
    """(model, burn's inputs, TFLM's inputs) of a DYNAMIC_UPDATE_SLICE: the operand and the
    update are inputs, the start indices constant (some beyond the operand, which clamps)."""
    shape = rand_shape(rng, 1, 4)
    ushape = tuple(rand_int(rng, 1, d) for d in shape)
    starts = [rand_int(rng, -1, d - u + 1) for d, u in zip(shape, ushape)]
    q = {"scale": 0.1, "zero_point": -7} if dtype == "int8" else {}
    xs = [rng.integers(-128, 128, size=s).astype(dtype) for s in (shape, ushape)]
    mb = ModelBuilder()
    ta, tu = mb.tensor("a", shape, dtype, **q), mb.tensor("u", ushape, dtype, **q)
    kind = np.int64 if rng.random() < 0.3 else np.int32
    ti = mb.tensor("i", (len(shape),), kind.__name__, data=np.array(starts, kind))
    ty = mb.tensor("y", shape, dtype, **q)
    mb.op("DYNAMIC_UPDATE_SLICE", [ta, tu, ti], [ty])
    return mb.finish([ta, tu], [ty]), xs, xs


def cumsum_case(rng):
    """(model, input, input) of a float32 CUMSUM along a random axis, maybe exclusive or
    reversed."""
    x = rng.standard_normal(rand_shape(rng, 1, 4)).astype(np.float32)
    axis = rand_int(rng, 0, x.ndim - 1)
    mb = ModelBuilder()
    tx, ty = mb.tensor("x", x.shape, "float32"), mb.tensor("y", x.shape, "float32")
    ta = mb.tensor("axis", (), "int32", data=np.array(axis - x.ndim * rand_int(rng, 0, 1),
                                                        np.int32))
    mb.op("CUMSUM", [tx, ta], [ty], "CumsumOptions", Exclusive=bool(rng.integers(0, 2)),
          Reverse=bool(rng.integers(0, 2)))
    return mb.finish([tx], [ty]), x, x
