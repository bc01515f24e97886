"""Random one-op .tflite models of the TFLite ops that burn imports through kinds it already
has, without a kernel of their own: REVERSE_V2, BROADCAST_TO and GATHER_ND (strided copies
and concats).

`make_cases(op, dtype, seed)` yields (model bytes, input array) pairs without end; each
output shape comes from numpy's own indexing of the input, not from the importer's rules.
"""

import numpy as np
from move_cases import model

OPS = ("REVERSE_V2", "BROADCAST_TO", "GATHER_ND")


def _int(rng, lo, hi):
    return int(rng.integers(lo, hi + 1))


def _shape(rng, lo_rank, hi_rank, hi=4):
    return tuple(_int(rng, 1, hi) for _ in range(_int(rng, lo_rank, hi_rank)))


def _reverse(rng, x):
    count = _int(rng, 1, x.ndim)
    first = _int(rng, 0, x.ndim - count)
    axes = [a - x.ndim if rng.random() < 0.3 else a for a in range(first, first + count)]
    return model("REVERSE_V2", x, [x.shape], x.dtype.name,
                 [(1, np.array(rng.permutation(axes), np.int32))])


def _broadcast_to(rng, x):
    out = _shape(rng, x.ndim, 5, 3)
    out = out[:len(out) - x.ndim] + tuple(o if d == 1 else d
                                          for d, o in zip(x.shape, out[len(out) - x.ndim:]))
    kind = np.int64 if rng.random() < 0.3 else np.int32
    return model("BROADCAST_TO", x, [np.broadcast_to(x, out).shape], x.dtype.name,
                 [(1, np.array(out, kind))])


def _gather_nd(rng, x):
    k = _int(rng, 1, x.ndim)
    lead = _shape(rng, 0, 2, 4)
    if rng.random() < 0.4:  # consecutive slices: one strided copy
        first = _int(rng, 0, int(np.prod(x.shape[:k])) - 1)
        flat = np.minimum(first + np.arange(int(np.prod(lead))), np.prod(x.shape[:k]) - 1)
        idx = np.stack(np.unravel_index(flat, x.shape[:k]), -1)
    else:
        idx = np.stack([rng.integers(0, d, size=lead) for d in x.shape[:k]], -1)
    idx = idx.reshape(lead + (k,)).astype(np.int32)
    out = x[tuple(np.moveaxis(idx, -1, 0))]
    return model("GATHER_ND", x, [out.shape], x.dtype.name, [(1, idx)])


# op: (maker, lowest rank, highest rank)
_MAKERS = {"REVERSE_V2": (_reverse, 1, 5), "BROADCAST_TO": (_broadcast_to, 1, 4),
           "GATHER_ND": (_gather_nd, 1, 4)}


def make_cases(op, dtype, seed=0):
    """Random (model bytes, input array) cases of TFLite op `op` in `dtype`, without end."""
    rng = np.random.default_rng([seed, OPS.index(op), dtype == "int8"])
    make, lo, hi = _MAKERS[op]
    while True:
        shape = _shape(rng, lo, hi, 3 if hi > 4 else 4)
        if dtype == "int8":
            x = rng.integers(-128, 128, size=shape, dtype=np.int8)
        else:
            x = rng.standard_normal(shape).astype(np.float32)
        yield make(rng, x), x
