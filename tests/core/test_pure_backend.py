"""The pure backend's primitives against hand-derived values and independent references.

MicroPython-safe: runs under CPython and the MicroPython unix port.
"""

import math

from burn.backends.pure import PURE as B
from burn.backends.pure_math import erf_approx
from burn.dtype import bool_, float32, int8, int32, uint8

INF = float("inf")
NAN = INF - INF


def close(got, want, tol=1e-6):
    """Elementwise |got - want| <= tol * max(1, |want|), treating NaN and inf exactly."""
    assert len(got) == len(want), (len(got), len(want))
    for i in range(len(want)):
        g = got[i]
        w = want[i]
        if w != w:
            assert g != g, (i, g, w)
        elif w in (INF, -INF):
            assert g == w, (i, g, w)
        else:
            assert abs(g - w) <= tol * max(1.0, abs(w)), (i, g, w)


def f32(vals):
    return B.from_flat(vals, float32)


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def indices(shape):
    """All multi-indices of `shape` in row-major order."""
    out = [()]
    for s in shape:
        out = [i + (k,) for i in out for k in range(s)]
    return out


def flat_index(idx, shape):
    off = 0
    for i, s in zip(idx, shape):
        off = off * s + i
    return off


def ref_broadcast(f, a, a_shape, b, b_shape, out_shape):
    """Reference broadcasting by multi-index arithmetic, one element at a time."""
    res = []
    for idx in indices(out_shape):
        ia = idx[len(idx) - len(a_shape):]
        ib = idx[len(idx) - len(b_shape):]
        ia = tuple(0 if s == 1 else i for i, s in zip(ia, a_shape))
        ib = tuple(0 if s == 1 else i for i, s in zip(ib, b_shape))
        res.append(f(a[flat_index(ia, a_shape)], b[flat_index(ib, b_shape)]))
    return res


# -- storage ----------------------------------------------------------------------------

def test_from_flat_round_trips_every_dtype():
    for dt, vals in ((float32, [0.5, -2.0]), (int8, [-128, 127]), (uint8, [0, 255]),
                     (int32, [-2147483648, 2147483647]), (bool_, [0, 1])):
        h = B.from_flat(vals, dt)
        assert list(B.to_flat(h, 2, dt)) == vals


def test_from_flat_wraps_integers_like_c():
    assert list(B.from_flat([200, -129, 256], int8)) == [-56, 127, 0]
    assert list(B.from_flat([-1, 256, 300], uint8)) == [255, 0, 44]
    assert list(B.from_flat([2 ** 31, -2 ** 31 - 1, 2 ** 32 + 7], int32)) == \
        [-2 ** 31, 2 ** 31 - 1, 7]
    assert list(B.from_flat([0, 2, -3, True], bool_)) == [0, 1, 1, 1]


def test_to_flat_is_a_copy():
    h = f32([1.0, 2.0])
    flat = B.to_flat(h, 2, float32)
    flat[0] = 9.0
    assert h[0] == 1.0


def test_bytes_are_little_endian():
    assert B.to_bytes(B.from_flat([1, -2], int32), 2, int32) == \
        b"\x01\x00\x00\x00\xfe\xff\xff\xff"
    assert B.to_bytes(f32([1.0]), 1, float32) == b"\x00\x00\x80\x3f"
    assert list(B.from_bytes(b"\x00\x00\x00\xc0", float32)) == [-2.0]
    assert list(B.from_bytes(bytearray(b"\xff\x80"), int8)) == [-1, -128]
    assert list(B.from_bytes(memoryview(b"\x00\x05"), bool_)) == [0, 1]


def test_full_and_arange():
    assert list(B.full(3, 7, int8)) == [7, 7, 7]
    assert list(B.full(2, 0, float32)) == [0.0, 0.0]
    assert list(B.full(2, 300, uint8)) == [44, 44]
    assert list(B.arange(5, -2, 4, int32)) == [5, 3, 1, -1]
    close(B.arange(0.5, 0.25, 3, float32), [0.5, 0.75, 1.0])
    assert list(B.random([0.25, 0.5], float32)) == [0.25, 0.5]


def test_cast_truncates_toward_zero_then_wraps():
    h = f32([1.7, -1.7, 200.5, -0.5, NAN, INF])
    assert list(B.cast(h, 6, float32, int8)) == [1, -1, -56, 0, 0, 0]
    assert list(B.cast(h, 6, float32, uint8)) == [1, 255, 200, 0, 0, 0]
    assert list(B.cast(B.from_flat([300, -1], int32), 2, int32, uint8)) == [44, 255]
    assert list(B.cast(B.from_flat([-3, 0, 2], int8), 3, int8, bool_)) == [1, 0, 1]
    assert list(B.cast(h, 6, float32, bool_)) == [1, 1, 1, 1, 1, 1]
    assert list(B.cast(B.from_flat([1, 0], bool_), 2, bool_, float32)) == [1.0, 0.0]
    assert list(B.cast(B.from_flat([-128], int8), 1, int8, int32)) == [-128]


# -- elementwise --------------------------------------------------------------------------

def test_float_unary_values():
    x = [0.0, 1.0, -2.5, 4.0]
    close(B.unary("neg", f32(x), 4, float32), [-0.0, -1.0, 2.5, -4.0])
    close(B.unary("abs", f32(x), 4, float32), [0.0, 1.0, 2.5, 4.0])
    close(B.unary("exp", f32(x), 4, float32), [1.0, math.e, math.exp(-2.5), math.exp(4.0)])
    close(B.unary("relu", f32(x), 4, float32), [0.0, 1.0, 0.0, 4.0])
    close(B.unary("sigmoid", f32([0.0, -1000.0, 1000.0]), 3, float32), [0.5, 0.0, 1.0])
    close(B.unary("tanh", f32([0.0, 50.0]), 2, float32), [0.0, 1.0])
    close(B.unary("sin", f32([0.0, math.pi / 2]), 2, float32), [0.0, 1.0])
    close(B.unary("cos", f32([0.0]), 1, float32), [1.0])
    close(B.unary("sign", f32([-3.0, 0.0, 2.0, NAN]), 4, float32), [-1.0, 0.0, 1.0, NAN])
    close(B.unary("not", f32([0.0, 2.0]), 2, float32), [1.0, 0.0])


def test_float_unary_edge_values_follow_ieee():
    close(B.unary("log", f32([1.0, 0.0, -1.0, INF]), 4, float32), [0.0, -INF, NAN, INF])
    close(B.unary("sqrt", f32([4.0, -1.0]), 2, float32), [2.0, NAN])
    close(B.unary("rsqrt", f32([4.0, 0.0, -4.0]), 3, float32), [0.5, INF, NAN])
    close(B.unary("reciprocal", f32([4.0, 0.0]), 2, float32), [0.25, INF])
    close(B.unary("exp", f32([1000.0, -1000.0]), 2, float32), [INF, 0.0])
    close(B.unary("sin", f32([INF]), 1, float32), [NAN])


def test_rounding_ops():
    x = f32([2.5, 3.5, -0.5, -1.7, 1.2, INF])
    close(B.unary("round", x, 6, float32), [2.0, 4.0, 0.0, -2.0, 1.0, INF])
    close(B.unary("floor", x, 6, float32), [2.0, 3.0, -1.0, -2.0, 1.0, INF])
    close(B.unary("ceil", x, 6, float32), [3.0, 4.0, 0.0, -1.0, 2.0, INF])


def test_erf():
    close(B.unary("erf", f32([0.0, 1.0, -1.0, 3.0]), 4, float32),
          [0.0, 0.8427007929497149, -0.8427007929497149, 0.9999779095030014])


def test_erf_approx_matches_known_values():
    # Reference values of erf (Abramowitz and Stegun, table 7.1).
    for x, want in ((0.0, 0.0), (0.1, 0.1124629160), (0.49, 0.5116683529),
                    (0.5, 0.5204998778), (1.0, 0.8427007929), (2.0, 0.9953222650),
                    (4.0, 0.9999999846)):
        got = erf_approx(x)
        assert abs(got - want) <= 2e-7 * max(abs(want), 1e-3), (x, got)
        assert abs(erf_approx(-x) + want) <= 2e-7 * max(abs(want), 1e-3), x
    assert abs(erf_approx(1e-6) - 1.1283791670955126e-6) < 1e-15
    assert erf_approx(INF) == 1.0


def test_integer_unary_wraps():
    h = B.from_flat([-128, -5, 0, 7], int8)
    assert list(B.unary("neg", h, 4, int8)) == [-128, 5, 0, -7]
    assert list(B.unary("abs", h, 4, int8)) == [-128, 5, 0, 7]
    assert list(B.unary("relu", h, 4, int8)) == [0, 0, 0, 7]
    assert list(B.unary("sign", h, 4, int8)) == [-1, -1, 0, 1]
    assert list(B.unary("not", h, 4, int8)) == [127, 4, -1, -8]
    assert list(B.unary("round", h, 4, int8)) == [-128, -5, 0, 7]
    assert list(B.unary("not", B.from_flat([1, 0], bool_), 2, bool_)) == [0, 1]
    assert list(B.unary("sqrt", B.from_flat([16, 10, -4], int32), 3, int32)) == [4, 3, 0]
    assert list(B.unary("exp", B.from_flat([0, 1, 2, -1], int32), 4, int32)) == [1, 2, 7, 0]
    assert list(B.unary("reciprocal", B.from_flat([1, 2, -1, 0], int8), 4, int8)) == \
        [1, 0, -1, 0]


def test_binary_broadcasting_matches_reference():
    cases = (((2, 3), (3,)), ((2, 1), (1, 3)), ((2, 3, 4), (3, 1)), ((4,), (2, 3, 4)),
             ((3, 1, 2), (1, 4, 1)), ((2, 3), (2, 3)), ((1,), (5,)), ((2, 1, 3), (2, 2, 1)))
    for a_shape, b_shape in cases:
        out_shape = []
        for i in range(max(len(a_shape), len(b_shape))):
            sa = a_shape[len(a_shape) - 1 - i] if i < len(a_shape) else 1
            sb = b_shape[len(b_shape) - 1 - i] if i < len(b_shape) else 1
            out_shape.insert(0, max(sa, sb))
        out_shape = tuple(out_shape)
        a = [float(i) for i in range(numel(a_shape))]
        b = [float(10 * i + 1) for i in range(numel(b_shape))]
        for op, f in (("sub", lambda x, y: x - y), ("mul", lambda x, y: x * y)):
            got = B.binary(op, f32(a), a_shape, f32(b), b_shape, out_shape, float32)
            close(got, ref_broadcast(f, a, a_shape, b, b_shape, out_shape))


def test_binary_long_rows_and_scalars():
    n = 300  # longer than one processing chunk
    a = B.arange(0, 1, n, int32)
    got = B.binary("add", B.cast(a, n, int32, float32), (n,), 0.5, (), (n,), float32)
    for i in range(n):
        assert got[i] == i + 0.5, i
    b = B.arange(-n, 1, 2 * n, int32)
    got = B.binary("mul", b, (2, n), a, (n,), (2, n), int32)
    for i in range(2 * n):
        assert got[i] == (i - n) * (i % n), i


def test_integer_arithmetic_wraps_like_c():
    def ib(op, x, y, dt):
        return list(B.binary(op, B.from_flat(x, dt), (len(x),), B.from_flat(y, dt),
                             (len(y),), (len(x),), dt))

    assert ib("add", [100, -100, 127], [100, -100, 1], int8) == [-56, 56, -128]
    assert ib("sub", [3, 0], [5, 1], uint8) == [254, 255]
    assert ib("mul", [16, -16], [16, 8], int8) == [0, -128]
    assert ib("add", [2147483647], [1], int32) == [-2147483648]
    assert ib("mul", [65536], [65536], int32) == [0]
    assert ib("floordiv", [-7, 7, 7, 5], [2, -2, 2, 0], int32) == [-4, -4, 3, 0]
    assert ib("mod", [-7, 7, 7, 5], [2, -2, 2, 0], int32) == [1, -1, 1, 0]
    assert ib("div", [-7, 7, 7, 5], [2, -2, 2, 0], int32) == [-3, -3, 3, 0]
    assert ib("pow", [2, 3, -2, 2, 1, -1, 5], [10, 5, 3, -1, -3, -3, 0], int8) == \
        [0, -13, -8, 0, 1, -1, 1]
    w = 3 ** 35 % 2 ** 32
    assert ib("pow", [3], [35], int32) == [w - 2 ** 32 if w >= 2 ** 31 else w]
    assert ib("maximum", [-3, 5], [2, 1], int8) == [2, 5]
    assert ib("minimum", [-3, 5], [2, 1], int8) == [-3, 1]
    assert ib("and", [12, -1], [10, 5], int8) == [8, 5]
    assert ib("or", [12], [10], int8) == [14]
    assert ib("xor", [12], [10], int8) == [6]
    assert ib("xor", [1, 1, 0], [1, 0, 0], bool_) == [0, 1, 0]
    assert ib("add", [1, 1, 0], [1, 0, 0], bool_) == [1, 1, 0]


def test_float_division_and_power_edges():
    x = f32([1.0, -1.0, 0.0, 7.0])
    z = f32([0.0, 0.0, 0.0, 2.0])
    close(B.binary("div", x, (4,), z, (4,), (4,), float32), [INF, -INF, NAN, 3.5])
    close(B.binary("floordiv", f32([-7.0, 7.5]), (2,), f32([2.0, 2.0]), (2,), (2,),
                   float32), [-4.0, 3.0])
    close(B.binary("mod", f32([-7.0, 7.5, 1.0]), (3,), f32([2.0, 2.0, 0.0]), (3,), (3,),
                   float32), [1.0, 1.5, NAN])
    close(B.binary("pow", f32([-8.0, 2.0, 0.0, -2.0]), (4,), f32([0.5, 3.0, -1.0, 3.0]),
                   (4,), (4,), float32), [NAN, 8.0, INF, -8.0])
    close(B.binary("pow", f32([10.0]), (1,), 100.0, (), (1,), float32), [INF])


def test_maximum_minimum_propagate_nan():
    a = f32([1.0, NAN, 3.0])
    b = f32([NAN, 2.0, 1.0])
    close(B.binary("maximum", a, (3,), b, (3,), (3,), float32), [NAN, NAN, 3.0])
    close(B.binary("minimum", a, (3,), b, (3,), (3,), float32), [NAN, NAN, 1.0])


def test_comparisons_give_bool():
    a = f32([1.0, 2.0, NAN])
    b = f32([2.0, 2.0, NAN])
    for op, want in (("eq", [0, 1, 0]), ("ne", [1, 0, 1]), ("lt", [1, 0, 0]),
                     ("le", [1, 1, 0]), ("gt", [0, 0, 0]), ("ge", [0, 1, 0])):
        got = B.binary(op, a, (3,), b, (3,), (3,), float32)
        assert list(got) == want, op
        assert list(B.cast(got, 3, bool_, int32)) == want
    got = B.binary("gt", B.from_flat([-1, 5], int8), (2,), 0, (), (2,), int8)
    assert list(got) == [0, 1]


def test_where_broadcasts_three_ways():
    c = B.from_flat([1, 0], bool_)
    a = f32([1.0, 2.0, 3.0])
    got = B.where(c, (2, 1), a, (3,), 9.0, (), (2, 3), float32)
    close(got, [1.0, 2.0, 3.0, 9.0, 9.0, 9.0])
    got = B.where(c, (2,), B.from_flat([5, 6], int8), (2,), B.from_flat([-1], int8), (1,),
                  (2,), int8)
    assert list(got) == [5, -1]


def test_clamp():
    h = f32([-2.0, 0.5, 3.0, NAN])
    close(B.clamp(h, 4, -1.0, 1.0, float32), [-1.0, 0.5, 1.0, NAN])
    close(B.clamp(h, 4, None, 1.0, float32), [-2.0, 0.5, 1.0, NAN])
    close(B.clamp(h, 4, 0.0, None, float32), [0.0, 0.5, 3.0, NAN])
    assert list(B.clamp(B.from_flat([-5, 5, 0], int8), 3, -1.5, 2.5, int8)) == [-1, 2, 0]


# -- reductions --------------------------------------------------------------------------

def ref_reduce(op, vals, shape, dim):
    out_shape = shape[:dim] + (1,) + shape[dim + 1:]
    res = []
    for idx in indices(out_shape):
        seg = [vals[flat_index(idx[:dim] + (j,) + idx[dim + 1:], shape)]
               for j in range(shape[dim])]
        if op == "sum":
            res.append(sum(seg))
        elif op == "prod":
            p = 1
            for v in seg:
                p *= v
            res.append(p)
        elif op in ("max", "min"):
            res.append(max(seg) if op == "max" else min(seg))
        else:
            best = max(seg) if op == "argmax" else min(seg)
            res.append(seg.index(best))
    return res


def test_reduce_every_axis_matches_reference():
    shape = (2, 3, 4)
    vals = [((i * 7) % 11) - 5 for i in range(24)]  # has ties
    for dt in (float32, int32):
        h = B.from_flat(vals, dt)
        for dim in range(3):
            for op in ("sum", "prod", "max", "min", "argmax", "argmin"):
                got = list(B.reduce(op, h, shape, dim, dt))
                assert got == ref_reduce(op, vals, shape, dim), (op, dim, dt)


def test_reduce_wraps_and_types():
    h = B.from_flat([100, 100, 100], int8)
    assert list(B.reduce("sum", h, (3,), 0, int8)) == [44]
    assert list(B.reduce("prod", B.from_flat([16, 16], int8), (2,), 0, int8)) == [0]
    got = B.reduce("argmax", h, (3,), 0, int8)
    assert list(got) == [0]
    assert B.to_bytes(got, 1, int32) == b"\x00\x00\x00\x00"
    assert list(B.reduce("sum", f32([]), (2, 0), 1, float32)) == [0.0, 0.0]
    assert list(B.reduce("prod", f32([]), (0, 3), 0, float32)) == [1.0, 1.0, 1.0]


def test_reduce_propagates_nan():
    h = f32([1.0, NAN, 3.0, 4.0, 5.0, 6.0])
    close(B.reduce("max", h, (2, 3), 1, float32), [NAN, 6.0])
    close(B.reduce("min", h, (2, 3), 0, float32), [1.0, NAN, 3.0])
    assert list(B.reduce("argmax", h, (2, 3), 1, float32)) == [1, 2]
    assert list(B.reduce("argmin", h, (2, 3), 0, float32)) == [0, 0, 0]
    close(B.reduce("sum", h, (6,), 0, float32), [NAN])


# -- layout ------------------------------------------------------------------------------

def test_permute_matches_reference():
    shape = (2, 3, 4)
    vals = list(range(24))
    h = B.from_flat(vals, int32)
    for perm in ((0, 1, 2), (2, 1, 0), (1, 0, 2), (0, 2, 1), (2, 0, 1)):
        out_shape = tuple(shape[p] for p in perm)
        want = []
        for idx in indices(out_shape):
            src = [0, 0, 0]
            for i, p in enumerate(perm):
                src[p] = idx[i]
            want.append(vals[flat_index(src, shape)])
        assert list(B.permute(h, shape, perm, int32)) == want, perm


def test_expand():
    h = B.from_flat([1, 2], int8)
    assert list(B.expand(h, (2, 1), (2, 3), int8)) == [1, 1, 1, 2, 2, 2]
    assert list(B.expand(h, (1, 2), (3, 2), int8)) == [1, 2, 1, 2, 1, 2]
    assert list(B.expand(B.from_flat([7], int8), (1, 1), (2, 2), int8)) == [7, 7, 7, 7]


def test_slice_with_negative_steps():
    shape = (3, 4)
    h = B.from_flat(list(range(12)), int32)
    assert list(B.slice(h, shape, (0, 1), (1, 1), (3, 2), int32)) == [1, 2, 5, 6, 9, 10]
    assert list(B.slice(h, shape, (2, 3), (-1, -2), (3, 2), int32)) == \
        [11, 9, 7, 5, 3, 1]
    assert list(B.slice(h, shape, (0, 3), (2, -3), (2, 2), int32)) == [3, 0, 11, 8]
    assert list(B.slice(h, shape, (0, 0), (1, 1), (0, 4), int32)) == []
    vals = [float(i) for i in range(24)]
    got = B.slice(f32(vals), (2, 3, 4), (1, 2, 3), (-1, -1, -1), (2, 3, 4), float32)
    close(got, vals[::-1])


def test_cat_pad_gather():
    a = B.from_flat([1, 2, 3, 4], int8)
    b = B.from_flat([5, 6], int8)
    assert list(B.cat([a, b], [(2, 2), (2, 1)], 1, int8)) == [1, 2, 5, 3, 4, 6]
    assert list(B.cat([a, b], [(2, 2), (1, 2)], 0, int8)) == [1, 2, 3, 4, 5, 6]
    got = B.pad(a, (2, 2), [(1, 0), (0, 1)], -1, int8)
    assert list(got) == [-1, -1, -1, 1, 2, -1, 3, 4, -1]
    got = B.pad(B.from_flat([1, 2], int8), (2, 1), [(0, 0), (1, 1)], 0, int8)
    assert list(got) == [0, 1, 0, 0, 2, 0]
    idx = B.from_flat([2, 0, 2], int32)
    h = B.from_flat(list(range(6)), int32)
    assert list(B.gather(h, (2, 3), 1, idx, 3, int32)) == [2, 0, 2, 5, 3, 5]
    assert list(B.gather(h, (3, 2), 0, idx, 2, int32)) == [4, 5, 0, 1]


# -- matmul, conv, pool -------------------------------------------------------------------

def test_matmul_batched_and_wrapped():
    a = f32([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    b = f32([1.0, 0.0, 0.0, 1.0, 1.0, 1.0])
    close(B.matmul(a, (1, 2, 3), b, (1, 3, 2), (1, 2, 2), float32), [4.0, 5.0, 10.0, 11.0])
    # one b shared by a batch of two a's
    got = B.matmul(a, (2, 1, 3), b, (1, 3, 2), (2, 1, 2), float32)
    close(got, [4.0, 5.0, 10.0, 11.0])
    x = B.from_flat([127, 127], int8)
    assert list(B.matmul(x, (1, 1, 2), x, (1, 2, 1), (1, 1, 1), int8)) == [(32258 + 128) % 256
                                                                            - 128]
    assert list(B.matmul(x, (1, 1, 2), x, (1, 2, 1), (1, 1, 1), int32)) == [32258]


def test_conv2d_small():
    x = f32([float(i) for i in range(9)])  # 1x1x3x3
    w = f32([1.0, 1.0, 1.0, 1.0])  # 1x1x2x2 window sums
    got = B.conv2d(x, (1, 1, 3, 3), w, (1, 1, 2, 2), f32([0.5]), (1, 1), (0, 0, 0, 0),
                   (1, 1), 1, (1, 1, 2, 2), float32)
    close(got, [8.5, 12.5, 20.5, 24.5])
    # padding 1 on every side, stride 2: corners see a single pixel each... plus neighbours
    got = B.conv2d(x, (1, 1, 3, 3), w, (1, 1, 2, 2), None, (2, 2), (1, 1, 1, 1), (1, 1), 1,
                   (1, 1, 2, 2), float32)
    close(got, [0.0, 1.0 + 2.0, 3.0 + 6.0, 4.0 + 5.0 + 7.0 + 8.0])
    xi = B.from_flat([100] * 9, int8)
    wi = B.from_flat([100, 100, 100, 100], int8)
    got = B.conv2d(xi, (1, 1, 3, 3), wi, (1, 1, 2, 2), None, (1, 1), (0, 0, 0, 0), (1, 1),
                   1, (1, 1, 2, 2), int8)
    assert list(got) == [(40000 + 128) % 256 - 128] * 4


def test_pool2d_small():
    x = f32([1.0, 2.0, 3.0, 4.0])  # 1x1x2x2
    got = B.pool2d("max", x, (1, 1, 2, 2), (2, 2), (1, 1), (1, 1, 1, 1), (1, 1), False,
                   True, (1, 1, 3, 3), float32)
    close(got, [1.0, 2.0, 2.0, 3.0, 4.0, 4.0, 3.0, 4.0, 4.0])
    got = B.pool2d("avg", x, (1, 1, 2, 2), (2, 2), (1, 1), (1, 1, 1, 1), (1, 1), False,
                   True, (1, 1, 3, 3), float32)
    close(got, [0.25, 0.75, 0.5, 1.0, 2.5, 1.5, 0.75, 1.75, 1.0])
    got = B.pool2d("avg", x, (1, 1, 2, 2), (2, 2), (1, 1), (1, 1, 1, 1), (1, 1), False,
                   False, (1, 1, 3, 3), float32)
    close(got, [1.0, 1.5, 2.0, 2.0, 2.5, 3.0, 3.0, 3.5, 4.0])
    xi = B.from_flat([-3, -2, 5, 6], int8)
    got = B.pool2d("avg", xi, (1, 1, 2, 2), (1, 2), (1, 2), (0, 0, 0, 0), (1, 1), False,
                   True, (1, 1, 2, 1), int8)
    assert list(got) == [-3, 6]  # -2.5 and 5.5 round half away from zero
