"""Conformance cases: seeded calls of every primitive of `burn.backend.Backend`, over the
dtypes and shapes the Tensor layer sends (0-d, size-1 and empty shapes, broadcasting corner
cases, negative-step slices, integer wraparound, NaN and infinities, convolution with
groups, stride, dilation and asymmetric padding, pooling in ceil mode).

A case sees a backend only through the protocol: inputs become handles through the
backend's own `from_bytes`, the result comes back through `to_bytes` (or `to_flat`).
`CASES` maps each primitive name to its list of cases.
"""

import numpy as np

from burn.backend import COMPARE_OPS, UNARY_OPS
from burn.dtype import bool_, float32, int8, int32, uint8

DTYPES = (float32, int8, uint8, int32, bool_)
INTS = (int8, uint8, int32)
NP = {float32: np.float32, int8: np.int8, uint8: np.uint8, int32: np.int32, bool_: np.bool_}
INF = float("inf")
NAN = float("nan")

# float32 tolerances (rtol, atol) against pure, which computes in double and rounds once.
ELEMENTWISE = (1e-5, 1e-6)  # one rounding, or a few ulps of a float32 libm
ACCUMULATING = (1e-5, 1e-4)  # sums of up to ~60 products, in another order
EXACT = None  # integers, bools, layout moves and storage: bit for bit

SPECIALS = (0.0, -0.0, 0.5, -0.5, 1.5, -2.5, 1e-30, INF, -INF, NAN, 3e38, -3e38)
# Huge arguments are left out where float32 libms legitimately differ (range reduction).
MODERATE_SPECIALS = SPECIALS[:-2]


class Arg:
    """An input array; on a backend it becomes a handle made by `from_bytes`."""

    def __init__(self, values, dtype):
        self.values = np.ascontiguousarray(values, dtype=NP[dtype])
        self.dtype = dtype

    def handle(self, backend, track_grad):
        """The handle on `backend`; float inputs require grad when `track_grad` (so an
        Autodiff backend records its graph while computing the forward)."""
        h = backend.from_bytes(self.values.tobytes(), self.dtype)
        if track_grad and self.dtype.is_float:
            backend.set_requires_grad(h, True)
        return h


class Case:
    """One call `backend.<primitive>(*args)`; `Arg`s (and lists of them) in `args` become
    handles. `read` says how the result comes back: "handle" (to_bytes of a handle of
    `out_shape` and `out_dtype`), "flat" (the to_flat sequence) or "bytes" (to_bytes)."""

    def __init__(self, primitive, label, args, out_shape, out_dtype, tol=EXACT,
                 read="handle"):
        self.primitive = primitive
        self.label = label
        self.args = args
        self.out_shape = tuple(out_shape)
        self.out_dtype = out_dtype
        self.tol = tol if out_dtype is float32 and read == "handle" else EXACT
        self.read = read

    def run(self, backend, track_grad=False):
        """The result of this call on `backend`, as a numpy array."""
        args = [_convert(a, backend, track_grad) for a in self.args]
        if self.read != "handle":
            h, n, dtype = args
            if self.read == "flat":
                return np.asarray(list(backend.to_flat(h, n, dtype)), dtype=np.float64)
            return np.frombuffer(bytes(backend.to_bytes(h, n, dtype)), dtype=np.uint8)
        out = getattr(backend, self.primitive)(*args)
        n = int(np.prod(self.out_shape))
        raw = bytes(backend.to_bytes(out, n, self.out_dtype))
        # bools are read as bytes, so a stored 2 shows up instead of passing for True
        view = np.uint8 if self.out_dtype is bool_ else NP[self.out_dtype]
        arr = np.frombuffer(raw, dtype=view)
        if arr.size != n:
            raise ValueError("result has %d elements, expected %d" % (arr.size, n))
        return arr.reshape(self.out_shape)

    def __repr__(self):
        return self.primitive + "[" + self.label + "]"


def _convert(a, backend, track_grad):
    if isinstance(a, Arg):
        return a.handle(backend, track_grad)
    if isinstance(a, list) and a and isinstance(a[0], Arg):
        return [x.handle(backend, track_grad) for x in a]
    return a


# -- inputs ----------------------------------------------------------------------------
def values(rng, shape, dtype, specials=()):
    """Random values of `dtype` over its whole range (floats ~N(0, 3)); the first elements
    are replaced by `specials` (as many as fit)."""
    if dtype is float32:
        a = (rng.standard_normal(shape) * 3).astype(np.float32)
    elif dtype is bool_:
        a = rng.integers(0, 2, size=shape).astype(np.bool_)
    else:
        info = np.iinfo(NP[dtype])
        a = rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=np.int64)
        a = a.astype(NP[dtype])
    flat = a.reshape(-1)
    k = min(len(specials), flat.size)
    if k:
        flat[:k] = np.asarray(specials[:k]).astype(NP[dtype])
    return a


def extremes(dtype):
    """The values where integer arithmetic wraps or divides oddly."""
    if dtype is float32:
        return SPECIALS
    if dtype is bool_:
        return (True, False)
    info = np.iinfo(NP[dtype])
    return (info.min, info.max, 0, 1, info.max - 1) + ((-1, info.min + 1) if info.min else ())


def numel(shape):
    """Element count of `shape`."""
    return int(np.prod(shape, dtype=np.int64))


def _name(dtype):
    return repr(dtype).replace("burn.", "")


# -- storage ---------------------------------------------------------------------------
def _storage_cases(rng):
    out = {"from_flat": [], "from_bytes": [], "to_flat": [], "to_bytes": [], "full": [],
           "arange": [], "random": []}
    flats = {
        float32: [0.1, 1 / 3, -2.5, 1e-40, 3.0e38, 1e39, -1e39, INF, NAN, -0.0],
        int8: [0, 1, -1, 127, -128, 128, -129, 1000, 2.7, -2.7, NAN, INF, 1e10],
        uint8: [0, 255, 256, -1, 3.9, -3.9, 1e10],
        int32: [2 ** 31 - 1, -2 ** 31, 2 ** 31, -2 ** 31 - 1, 2 ** 40 + 5, 7.99, -1e12],
        bool_: [0, 1, 2, -1, True, False, 0.5, 0.0],
    }
    for dt, vals in flats.items():
        out["from_flat"].append(Case("from_flat", _name(dt), [vals, dt], (len(vals),), dt))
        out["from_flat"].append(Case("from_flat", _name(dt) + " empty", [[], dt], (0,), dt))
    for dt in DTYPES:
        a = values(rng, (23,), dt, extremes(dt))
        raw = a.tobytes()
        for kind, buf in (("bytes", raw), ("bytearray", bytearray(raw)),
                          ("memoryview", memoryview(raw))):
            out["from_bytes"].append(Case("from_bytes", _name(dt) + " " + kind, [buf, dt],
                                          (23,), dt))
        for read in ("to_flat", "to_bytes"):
            out[read].append(Case(read, _name(dt), [Arg(a, dt), 23, dt], (23,), dt,
                                  read=read[3:]))
            out[read].append(Case(read, _name(dt) + " empty",
                                  [Arg(a[:0], dt), 0, dt], (0,), dt, read=read[3:]))
    out["from_bytes"].append(Case("from_bytes", "bool bytes 0, 1, 2, 255",
                                  [bytes([0, 1, 2, 255]), bool_], (4,), bool_))
    fills = [(7, 2.5, float32), (3, NAN, float32), (2, -0.0, float32), (0, 1.0, float32),
             (5, 1000, int8), (4, -129, int8), (6, -1, uint8), (3, 2 ** 31, int32),
             (4, 2, bool_), (4, 0, bool_), (1, 127, int8)]
    for n, v, dt in fills:
        out["full"].append(Case("full", "%s n=%d value=%r" % (_name(dt), n, v), [n, v, dt],
                                (n,), dt))
    ranges = [(0, 1, 10, int32), (5, -2, 7, int8), (120, 5, 10, int8), (250, 3, 5, uint8),
              (0.5, 0.25, 9, float32), (-1.5, 1, 4, int8), (0, 0.3, 10, int32),
              (2 ** 31 - 3, 1, 6, int32), (3, 1, 0, float32), (1.0, -0.1, 12, float32)]
    for start, step, n, dt in ranges:
        out["arange"].append(Case("arange", "%s %r+%r*i n=%d" % (_name(dt), start, step, n),
                                  [start, step, n, dt], (n,), dt))
    for dt in (float32, int32, int8):
        vals = [float(v) for v in rng.random(17)] if dt is float32 else \
            [float(v) for v in rng.random(17) * 300 - 150]
        out["random"].append(Case("random", _name(dt), [vals, dt], (17,), dt))
    return out


def _cast_cases(rng):
    cases = []
    for src in DTYPES:
        specials = SPECIALS + (127.9, 128.5, -128.9, 255.7, -0.9, 1e10, -1e10, 2.5e9) \
            if src is float32 else extremes(src)
        a = values(rng, (40,), src, specials)
        if src is float32:
            a[len(specials):] *= 40  # spread over the int8 and uint8 ranges
        for dst in DTYPES:
            cases.append(Case("cast", _name(src) + "->" + _name(dst),
                              [Arg(a, src), 40, src, dst], (40,), dst))
    return cases


# -- elementwise -----------------------------------------------------------------------
FLOAT_UNARY = tuple(op for op in UNARY_OPS if op != "not")
# Only these reach an integer backend: the Tensor converts ints to float for the others,
# and floor/ceil/round of an int tensor are the tensor itself.
INT_UNARY = ("neg", "abs", "relu", "sign", "not")
_MODERATE_OPS = ("sin", "cos")


def _unary_cases(rng):
    cases = []
    for op in FLOAT_UNARY:
        specials = MODERATE_SPECIALS if op in _MODERATE_OPS else SPECIALS
        for n in (0, 1, 40):
            a = values(rng, (n,), float32, specials)
            cases.append(Case("unary", "%s float32 n=%d" % (op, n),
                              [op, Arg(a, float32), n, float32], (n,), float32, ELEMENTWISE))
    for dt in INTS:
        for op in INT_UNARY:
            a = values(rng, (30,), dt, extremes(dt))
            cases.append(Case("unary", op + " " + _name(dt), [op, Arg(a, dt), 30, dt], (30,),
                              dt))
    a = values(rng, (9,), bool_)
    cases.append(Case("unary", "not bool", ["not", Arg(a, bool_), 9, bool_], (9,), bool_))
    return cases


BROADCASTS = [
    ((), ()), ((5,), ()), ((), (2, 3)), ((4, 1), (3,)), ((2, 1, 3), (4, 1)),
    ((3, 1, 1), (1, 4, 2)), ((0, 3), (1, 3)), ((2, 0), (2, 1)), ((1,), (6,)),
    ((3, 4), (3, 4)), ((1, 1, 5), (2, 3, 1)),
]
FLOAT_BINARY = ("add", "sub", "mul", "div", "floordiv", "mod", "pow", "maximum", "minimum")
INT_BINARY = FLOAT_BINARY + ("and", "or", "xor")
BOOL_BINARY = ("and", "or", "xor")
# (dtype, op, Python scalar): what `tensor <op> number` sends, out-of-range ints included.
SCALARS = [
    (float32, "add", 2.5), (float32, "mul", -1.5), (float32, "div", 0.0),
    (float32, "pow", 2), (float32, "pow", 0.5), (float32, "lt", 0.5), (float32, "add", INF),
    (float32, "maximum", 1), (float32, "floordiv", 2),
    (int8, "add", 1000), (int8, "mul", -300), (int8, "lt", 1000), (int8, "eq", -129),
    (int8, "floordiv", 7), (int8, "mod", -3), (int8, "div", -7), (int8, "xor", 511),
    (int8, "pow", 3), (int8, "maximum", 1000), (int8, "ge", -200),
    (uint8, "sub", -1), (uint8, "gt", 300), (uint8, "minimum", -5),
    (int32, "add", 2 ** 31 + 7), (int32, "mul", 2 ** 20), (int32, "ge", -2 ** 31 - 1),
    (int32, "floordiv", -2 ** 33),
    (bool_, "and", 1), (bool_, "or", 0), (bool_, "xor", 1), (bool_, "eq", 2),
    (bool_, "ne", 0),
]


def _binary_operands(rng, op, dtype, sa, sb):
    if dtype is float32:
        a = values(rng, sa, dtype, SPECIALS[:10])
        b = values(rng, sb, dtype, (0.0, 2.0, -0.0, INF, NAN, 1.5, -INF)[::-1])
        if op == "pow" and rng.random() < 0.5:
            b = np.round(b)
    elif dtype is bool_:
        a, b = values(rng, sa, dtype), values(rng, sb, dtype)
    else:
        a = values(rng, sa, dtype, extremes(dtype))
        b = values(rng, sb, dtype, (0, 3) + ((-1,) if dtype is not uint8 else ()))
        if op == "pow":
            lo = -3 if dtype is not uint8 else 0
            b = rng.integers(lo, 13, size=sb).astype(NP[dtype])
    return a, b


def _binary_cases(rng):
    cases = []
    runs = [(float32, op) for op in FLOAT_BINARY + COMPARE_OPS]
    runs += [(dt, op) for dt in INTS for op in INT_BINARY + COMPARE_OPS]
    runs += [(bool_, op) for op in BOOL_BINARY + COMPARE_OPS]
    for i, (dt, op) in enumerate(runs):
        for j in range(3):
            sa, sb = BROADCASTS[(3 * i + j) % len(BROADCASTS)]
            if j == 2:
                sa, sb = sb, sa
            so = np.broadcast_shapes(sa, sb)
            a, b = _binary_operands(rng, op, dt, sa, sb)
            out_dt = bool_ if op in COMPARE_OPS else dt
            tol = ACCUMULATING if op == "pow" else ELEMENTWISE
            cases.append(Case("binary", "%s %s %s,%s" % (op, _name(dt), sa, sb),
                              [op, Arg(a, dt), sa, Arg(b, dt), sb, so, dt], so, out_dt, tol))
    # Every pair of special values, once along rows and once along columns (pure handles
    # a row holding a zero divisor or an overflow on a slower path).
    grid = np.asarray(SPECIALS + (2.0, -3.0, 0.25), dtype=np.float32)
    for op in FLOAT_BINARY + COMPARE_OPS:
        for sa, sb in (((15, 1), (1, 15)), ((1, 15), (15, 1))):
            out_dt = bool_ if op in COMPARE_OPS else float32
            cases.append(Case("binary", "%s float32 specials %s,%s" % (op, sa, sb),
                              [op, Arg(grid.reshape(sa), float32), sa,
                               Arg(grid.reshape(sb), float32), sb, (15, 15), float32],
                              (15, 15), out_dt, ELEMENTWISE))
    for dt, op, s in SCALARS:
        a = values(rng, (3, 4), dt, extremes(dt)[:8])
        out_dt = bool_ if op in COMPARE_OPS else dt
        cases.append(Case("binary", "%s %s scalar %r" % (op, _name(dt), s),
                          [op, Arg(a, dt), (3, 4), s, (), (3, 4), dt], (3, 4), out_dt,
                          ELEMENTWISE))
    return cases


WHERE_SHAPES = [((4,), (4,), (4,)), ((), (3,), ()), ((2, 1), (1, 3), (2, 3)),
                ((0, 2), (2,), (1, 2)), ((3, 1, 2), (1, 4, 1), (2,)), ((1,), (), (5, 1))]


def _where_cases(rng):
    cases = []
    for i, (sc, sa, sb) in enumerate(WHERE_SHAPES):
        for dt in DTYPES[i % 2::2] if i < 4 else DTYPES:
            so = np.broadcast_shapes(sc, sa, sb)
            c = values(rng, sc, bool_)
            a, b = values(rng, sa, dt, extremes(dt)), values(rng, sb, dt)
            cases.append(Case("where", "%s %s,%s,%s" % (_name(dt), sc, sa, sb),
                              [Arg(c, bool_), sc, Arg(a, dt), sa, Arg(b, dt), sb, so, dt],
                              so, dt))
    return cases


CLAMPS = [
    (float32, -1.0, 2.0), (float32, None, 0.5), (float32, -0.5, None), (float32, None, None),
    (float32, 2.0, -1.0), (int8, -1000, 50), (int8, -20, 300), (int8, 10, -10),
    (int8, None, 5), (uint8, -5, 300), (uint8, 100, None), (int32, -2 ** 31 - 5, 2 ** 40),
    (int32, 7, 3),
]


def _clamp_cases(rng):
    cases = []
    for dt, lo, hi in CLAMPS:
        a = values(rng, (30,), dt, extremes(dt))
        cases.append(Case("clamp", "%s [%r, %r]" % (_name(dt), lo, hi),
                          [Arg(a, dt), 30, lo, hi, dt], (30,), dt))
    return cases


# -- reductions ------------------------------------------------------------------------
REDUCE_SHAPES = [((7,), 0), ((3, 4), 0), ((3, 4), 1), ((2, 3, 4), 1), ((1,), 0),
                 ((4, 1, 3), 1), ((2, 0, 3), 0), ((2, 0, 3), 1), ((5, 6), 1)]


def _reduce_cases(rng):
    cases = []
    for op in ("sum", "prod", "max", "min", "argmax", "argmin"):
        dtypes = DTYPES if op not in ("sum", "prod") else DTYPES[:-1]
        for dt in dtypes:
            for i, (shape, dim) in enumerate(REDUCE_SHAPES):
                if shape[dim] == 0 and op not in ("sum", "prod"):
                    continue  # the Tensor refuses max/min of an empty dim
                a = values(rng, shape, dt)
                if dt is float32 and i == len(REDUCE_SHAPES) - 1:
                    a[1, 2] = a[3, 0] = a[3, 4] = NAN
                    a[2, 1] = INF
                elif dt is float32 and op == "prod":
                    a = np.clip(a, -2, 2)
                elif dt is not float32 and i % 2:
                    a = (a % 3).astype(NP[dt])  # ties for argmax/argmin
                out_shape = shape[:dim] + (1,) + shape[dim + 1:]
                out_dt = int32 if op.startswith("arg") else dt
                cases.append(Case("reduce", "%s %s %s dim %d" % (op, _name(dt), shape, dim),
                                  [op, Arg(a, dt), shape, dim, dt], out_shape, out_dt,
                                  ACCUMULATING))
    return cases


# -- layout ----------------------------------------------------------------------------
def _dt(i):
    return DTYPES[i % len(DTYPES)]


PERMUTES = [((), ()), ((5,), (0,)), ((2, 3), (1, 0)), ((2, 3, 4), (2, 0, 1)),
            ((1, 4, 1, 3), (3, 1, 0, 2)), ((2, 0, 3), (2, 1, 0)), ((3, 2, 2), (0, 2, 1))]
EXPANDS = [((), ()), ((1, 3), (4, 3)), ((2, 1, 1), (2, 3, 4)), ((1, 1), (0, 5)), ((3,), (3,)),
           ((1,), (6,)), ((4, 1), (4, 2))]


def _layout_cases(rng):
    out = {"permute": [], "expand": [], "slice": [], "cat": [], "pad": [], "gather": []}
    for i, (shape, perm) in enumerate(PERMUTES):
        dt = _dt(i)
        a = values(rng, shape, dt)
        out["permute"].append(Case("permute", "%s %s %s" % (_name(dt), shape, perm),
                                   [Arg(a, dt), shape, perm, dt],
                                   tuple(shape[p] for p in perm), dt))
    for i, (shape, to) in enumerate(EXPANDS):
        dt = _dt(i + 2)
        out["expand"].append(Case("expand", "%s %s->%s" % (_name(dt), shape, to),
                                  [Arg(values(rng, shape, dt), dt), shape, to, dt], to, dt))
    for i in range(14):
        out["slice"].append(_slice_case(rng, i))
    out["cat"] = _cat_cases(rng)
    out["pad"] = _pad_cases(rng)
    out["gather"] = _gather_cases(rng)
    return out


def _slice_case(rng, i):
    dt = _dt(i)
    rank = i % 4
    shape = tuple(int(s) for s in rng.integers(1, 7, size=rank))
    a = values(rng, shape, dt)
    starts, steps, out_shape, index = [], [], [], []
    for n in shape:
        step = int(rng.choice([-3, -2, -1, 1, 2, 3]))
        sl = slice(int(rng.integers(-n, n)), int(rng.integers(-n - 1, n + 1)), step)
        r = range(*sl.indices(n))
        index.append(sl)
        starts.append(r.start if len(r) else 0)
        steps.append(step)
        out_shape.append(len(r))
    out_shape = tuple(out_shape)
    return Case("slice", "%s %s %s" % (_name(dt), shape, index),
                [Arg(a, dt), shape, tuple(starts), tuple(steps), out_shape, dt], out_shape, dt)


def _cat_cases(rng):
    cases = []
    specs = [((3,), 0, (2, 0, 4)), ((2, 3), 1, (1, 2)), ((2, 3), 0, (3,)),
             ((2, 2, 3), 2, (0, 1, 3)), ((1, 4, 2), 1, (4, 4, 0)), ((0, 2), 0, (0, 2))]
    for i, (shape, dim, sizes) in enumerate(specs):
        dt = _dt(i)
        parts = []
        for s in sizes:
            ps = shape[:dim] + (s,) + shape[dim + 1:]
            parts.append(Arg(values(rng, ps, dt), dt))
        shapes = [p.values.shape for p in parts]
        out_shape = shape[:dim] + (sum(sizes),) + shape[dim + 1:]
        cases.append(Case("cat", "%s %s dim %d" % (_name(dt), shapes, dim),
                          [parts, shapes, dim, dt], out_shape, dt))
    return cases


def _pad_cases(rng):
    cases = []
    specs = [((3,), [(1, 2)], -1.5, float32), ((2, 3), [(0, 1), (2, 0)], NAN, float32),
             ((2, 2), [(1, 1), (1, 1)], 5, int8), ((3,), [(2, 2)], 1000, int8),
             ((1, 2, 2), [(0, 0), (1, 0), (0, 3)], -1, uint8), ((), [], 0, int32),
             ((2, 0), [(1, 1), (0, 2)], 7, int32), ((2, 2), [(1, 0), (0, 1)], 1, bool_)]
    for shape, pads, value, dt in specs:
        out_shape = tuple(s + p[0] + p[1] for s, p in zip(shape, pads))
        cases.append(Case("pad", "%s %s %s value %r" % (_name(dt), shape, pads, value),
                          [Arg(values(rng, shape, dt), dt), shape, pads, value, dt],
                          out_shape, dt))
    return cases


def _gather_cases(rng):
    cases = []
    specs = [((5,), 0, [4, 0, 0, 2]), ((3, 4), 1, [3, 3, 1]), ((3, 4), 0, []),
             ((2, 3, 2), 1, [2, 0, 1, 2, 0]), ((4, 2), 0, [1]), ((2, 0), 0, [1, 1])]
    for i, (shape, dim, idx) in enumerate(specs):
        dt = _dt(i + 1)
        out_shape = shape[:dim] + (len(idx),) + shape[dim + 1:]
        cases.append(Case("gather", "%s %s dim %d idx %s" % (_name(dt), shape, dim, idx),
                          [Arg(values(rng, shape, dt), dt), shape, dim,
                           Arg(np.array(idx, np.int32), int32), len(idx), dt],
                          out_shape, dt))
    return cases


# -- linear algebra and convolution ------------------------------------------------------
MATMULS = [(1, 3, 4, 2, 1), (3, 2, 5, 4, 3), (3, 4, 3, 2, 1), (2, 1, 6, 1, 1), (1, 2, 0, 3, 1),
           (2, 0, 3, 2, 2), (1, 1, 1, 1, 4)]  # (batch of a, m, k, n, batch of b)


def _matmul_cases(rng):
    cases = []
    for dt in DTYPES[:-1]:
        for ba, m, k, n, bb in MATMULS:
            a = values(rng, (ba, m, k), dt)
            b = values(rng, (bb, k, n), dt)
            out_shape = (max(ba, bb), m, n)
            cases.append(Case("matmul", "%s %s@%s" % (_name(dt), a.shape, b.shape),
                              [Arg(a, dt), a.shape, Arg(b, dt), b.shape, out_shape, dt],
                              out_shape, dt, ACCUMULATING))
    return cases


# (n, c, h, w, o, kh, kw, stride, padding (top, bottom, left, right), dilation, groups, bias)
CONVS = [
    (1, 1, 5, 5, 1, 3, 3, (1, 1), (0, 0, 0, 0), (1, 1), 1, False),
    (2, 3, 7, 6, 4, 3, 2, (2, 1), (1, 2, 0, 3), (1, 2), 1, True),  # asymmetric padding
    (1, 4, 8, 8, 6, 3, 3, (1, 2), (2, 1, 1, 2), (2, 1), 2, True),  # groups
    (2, 4, 6, 6, 4, 3, 3, (2, 2), (1, 1, 1, 1), (1, 1), 4, False),  # depthwise
    (1, 3, 5, 5, 6, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1), 3, True),  # depthwise, multiplier 2
    (1, 2, 4, 4, 3, 1, 1, (1, 1), (0, 0, 0, 0), (1, 1), 1, True),  # pointwise
    (1, 2, 2, 3, 2, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1), 1, False),  # kernel > input
    (1, 6, 9, 9, 3, 5, 5, (3, 3), (2, 2, 2, 2), (1, 1), 3, True),
]


def conv_out(size, k, stride, before, after, dilation):
    """Output length of a convolution axis."""
    return (size + before + after - dilation * (k - 1) - 1) // stride + 1


def conv_shapes(spec):
    """(x shape, w shape, out shape) of a CONVS entry."""
    n, c, h, w, o, kh, kw, stride, pad, dil, groups, _ = spec
    oh = conv_out(h, kh, stride[0], pad[0], pad[1], dil[0])
    ow = conv_out(w, kw, stride[1], pad[2], pad[3], dil[1])
    return (n, c, h, w), (o, c // groups, kh, kw), (n, o, oh, ow)


def _conv_cases(rng):
    cases = []
    for dt in DTYPES[:-1]:
        for i, spec in enumerate(CONVS):
            if dt is not float32 and i % 2:
                continue
            xs, ws, out_shape = conv_shapes(spec)
            stride, pad, dil, groups, has_bias = spec[7:]
            bias = Arg(values(rng, (ws[0],), dt), dt) if has_bias else None
            cases.append(Case("conv2d", "%s x%s w%s s%s p%s d%s g%d%s" % (
                _name(dt), xs, ws, stride, pad, dil, groups, " bias" if has_bias else ""),
                [Arg(values(rng, xs, dt), dt), xs, Arg(values(rng, ws, dt), dt), ws, bias,
                 stride, pad, dil, groups, out_shape, dt], out_shape, dt, ACCUMULATING))
    return cases


# (n, c, h, w, kernel, stride, padding (top, bottom, left, right), dilation, ceil_mode)
POOLS = [
    (1, 2, 6, 6, (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), False),
    (2, 3, 7, 5, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), False),
    (1, 2, 7, 8, (3, 2), (2, 2), (1, 1, 1, 1), (1, 1), True),
    (1, 1, 9, 9, (3, 3), (3, 2), (1, 1, 0, 0), (1, 1), True),
    (1, 2, 8, 8, (2, 3), (1, 2), (1, 0, 0, 1), (2, 2), False),  # asymmetric, dilated
    (1, 1, 5, 6, (2, 2), (3, 3), (0, 1, 1, 0), (1, 1), True),
    (1, 1, 1, 1, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), False),
]


def pool_out(size, k, stride, before, after, dilation, ceil_mode):
    """Output length of a pooling axis (PyTorch's rule: in ceil mode the last window must
    start inside the input or its leading padding)."""
    span = size + before + after - dilation * (k - 1) - 1
    out = span // stride + 1
    if ceil_mode and span % stride and out * stride < size + before:
        out += 1
    return out


def pool_shapes(spec):
    """(x shape, out shape) of a POOLS entry."""
    n, c, h, w, k, s, p, d, ceil_mode = spec
    oh = pool_out(h, k[0], s[0], p[0], p[1], d[0], ceil_mode)
    ow = pool_out(w, k[1], s[1], p[2], p[3], d[1], ceil_mode)
    return (n, c, h, w), (n, c, oh, ow)


def _pool_cases(rng):
    cases = []
    runs = [("max", True, dt) for dt in DTYPES]
    runs += [("avg", cip, dt) for cip in (True, False) for dt in DTYPES[:-1]]
    for op, cip, dt in runs:
        for i, spec in enumerate(POOLS):
            xs, out_shape = pool_shapes(spec)
            k, s, p, d, ceil_mode = spec[4:]
            x = values(rng, xs, dt)
            if dt is float32 and i == 1:
                x[1, 2, 3, 3] = NAN
                x[0, 0, 0, 0] = -INF
            cases.append(Case("pool2d", "%s %s cip=%s x%s k%s s%s p%s d%s ceil=%s" % (
                op, _name(dt), cip, xs, k, s, p, d, ceil_mode),
                [op, Arg(x, dt), xs, k, s, p, d, ceil_mode, cip, out_shape, dt], out_shape,
                dt, ACCUMULATING))
    return cases


def build():
    """{primitive name: [Case, ...]} for every primitive, from fixed seeds."""
    out = {}
    out.update(_storage_cases(np.random.default_rng(1)))
    out["cast"] = _cast_cases(np.random.default_rng(2))
    out["unary"] = _unary_cases(np.random.default_rng(3))
    out["binary"] = _binary_cases(np.random.default_rng(4))
    out["where"] = _where_cases(np.random.default_rng(5))
    out["clamp"] = _clamp_cases(np.random.default_rng(6))
    out["reduce"] = _reduce_cases(np.random.default_rng(7))
    out.update(_layout_cases(np.random.default_rng(8)))
    out["matmul"] = _matmul_cases(np.random.default_rng(9))
    out["conv2d"] = _conv_cases(np.random.default_rng(10))
    out["pool2d"] = _pool_cases(np.random.default_rng(11))
    return out


CASES = build()
