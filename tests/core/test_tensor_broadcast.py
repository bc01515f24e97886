"""Elementwise operators, numpy broadcasting, Python scalars, dtype rules, matmul shapes.

Expected values are computed here element by element in plain Python."""

from checks import all_coords, assert_close, assert_message, flat, index_of

import burn

SHAPES = (((2, 3), (3,)), ((2, 1), (1, 4)), ((3, 1, 2), (4, 1)), ((), (2, 2)),
          ((1,), (2, 3)), ((2, 0), (1,)))


def _values(shape, offset):
    n = 1
    for s in shape:
        n *= s
    return [float((i * 7 + offset) % 11 - 5) for i in range(n)]


def _reference(fn, av, ashape, bv, bshape, out_shape):
    return [fn(av[index_of(c, ashape)], bv[index_of(c, bshape)]) for c in all_coords(out_shape)]


def _broadcast_shape(a, b):
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + a
    b = (1,) * (n - len(b)) + b
    return tuple(x if y == 1 else y for x, y in zip(a, b))


def test_binary_ops_broadcast_like_numpy():
    ops = (("add", lambda x, y: x + y), ("sub", lambda x, y: x - y),
           ("mul", lambda x, y: x * y), ("maximum", max), ("minimum", min))
    for ashape, bshape in SHAPES:
        av = _values(ashape, 1)
        bv = _values(bshape, 4)
        a = burn.tensor(av).reshape(ashape)
        b = burn.tensor(bv).reshape(bshape)
        out_shape = _broadcast_shape(ashape, bshape)
        for name, fn in ops:
            for x, y, xv, xs, yv, ys in ((a, b, av, ashape, bv, bshape),
                                         (b, a, bv, bshape, av, ashape)):
                got = getattr(x, name)(y)
                assert got.shape == out_shape, (name, xs, ys, got.shape)
                assert flat(got.tolist()) == _reference(fn, xv, xs, yv, ys, out_shape)


def test_operators_and_reflected_scalars():
    x = burn.tensor([[1.0, -2.0], [3.0, 4.0]])
    assert (x + 1).tolist() == [[2.0, -1.0], [4.0, 5.0]]
    assert (1 + x).tolist() == (x + 1).tolist()
    assert (10 - x).tolist() == [[9.0, 12.0], [7.0, 6.0]]
    assert (2 * x).tolist() == [[2.0, -4.0], [6.0, 8.0]]
    assert (x / 2).tolist() == [[0.5, -1.0], [1.5, 2.0]]
    assert (8 / burn.tensor([2.0, 4.0])).tolist() == [4.0, 2.0]
    assert (x ** 2).tolist() == [[1.0, 4.0], [9.0, 16.0]]
    assert (2 ** burn.tensor([1.0, 3.0])).tolist() == [2.0, 8.0]
    assert (-x).tolist() == [[-1.0, 2.0], [-3.0, -4.0]]
    assert abs(x).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert (+x) is x
    assert (x @ x).tolist() == [[-5.0, -10.0], [15.0, 10.0]]


def test_floor_division_and_modulo_follow_python():
    a = [7, -7, 7, -7, 0]
    b = [2, 2, -2, -2, 3]
    ta = burn.tensor(a)
    tb = burn.tensor(b)
    assert (ta // tb).tolist() == [x // y for x, y in zip(a, b)]
    assert (ta % tb).tolist() == [x % y for x, y in zip(a, b)]
    assert (ta // 3).tolist() == [x // 3 for x in a]
    assert (20 // burn.tensor([3, -3])).tolist() == [20 // 3, 20 // -3]
    assert (7 % burn.tensor([3, -3])).tolist() == [7 % 3, 7 % -3]
    fa = burn.tensor([7.5, -7.5])
    assert (fa // 2).tolist() == [3.0, -4.0]
    assert (fa % 2).tolist() == [1.5, 0.5]


def test_comparisons_give_bool_tensors():
    x = burn.tensor([1, 2, 3])
    y = burn.tensor([3, 2, 1])
    assert (x == y).tolist() == [False, True, False]
    assert (x != y).tolist() == [True, False, True]
    assert (x < y).tolist() == [True, False, False]
    assert (x <= 2).tolist() == [True, True, False]
    assert (x > 1.5).tolist() == [False, True, True]
    assert (x >= y).dtype is burn.bool_
    assert x.eq(2).tolist() == [False, True, False]
    assert (burn.tensor([[1], [2]]) == x).shape == (2, 3)
    assert (x == "a") is False and (x != None) is True  # noqa: E711


def test_bitwise_on_bool_and_int():
    p = burn.tensor([True, True, False])
    q = burn.tensor([True, False, False])
    assert (p & q).tolist() == [True, False, False]
    assert (p | q).tolist() == [True, True, False]
    assert (p ^ q).tolist() == [False, True, False]
    assert (~p).tolist() == [False, False, True]
    i = burn.tensor([12, 10])
    assert (i & 6).tolist() == [12 & 6, 10 & 6]
    assert (i | 1).tolist() == [13, 11]
    assert (~i).tolist() == [~12, ~10]


def test_int_tensors_wrap_and_promote_with_float_scalars():
    t = burn.tensor([100, -100], dtype=burn.int8)
    assert (t + t).tolist() == [-56, 56]
    assert (t * 0.5).dtype is burn.float32
    assert (t * 0.5).tolist() == [50.0, -50.0]
    assert (t + 1).dtype is burn.int8
    u = burn.tensor([250], dtype=burn.uint8)
    assert (u + 10).tolist() == [4]


def test_float_only_unary_ops_convert_ints():
    t = burn.tensor([0, 1])
    e = t.exp()
    assert e.dtype is burn.float32
    assert_close(e.tolist(), [1.0, 2.718281828])
    assert t.floor() is t


def test_unary_math():
    import math
    vals = [-2.5, -0.5, 0.0, 0.5, 1.5, 2.5]
    t = burn.tensor(vals)
    table = (("abs", abs), ("neg", lambda v: -v), ("floor", math.floor), ("ceil", math.ceil),
             ("round", round), ("sign", lambda v: (v > 0) - (v < 0)),
             ("relu", lambda v: max(v, 0.0)), ("sin", math.sin), ("cos", math.cos),
             ("tanh", math.tanh), ("sigmoid", lambda v: 1 / (1 + math.exp(-v))),
             ("exp", math.exp))
    for name, fn in table:
        assert_close(getattr(t, name)().tolist(), [float(fn(v)) for v in vals], 1e-6)
    pos = burn.tensor([0.25, 1.0, 4.0])
    assert_close(pos.sqrt().tolist(), [0.5, 1.0, 2.0])
    assert_close(pos.rsqrt().tolist(), [2.0, 1.0, 0.5])
    assert_close(pos.log().tolist(), [math.log(0.25), 0.0, math.log(4.0)])
    assert_close(pos.reciprocal().tolist(), [4.0, 1.0, 0.25])


def test_where_clamp_maximum():
    c = burn.tensor([True, False, True])
    a = burn.tensor([1.0, 2.0, 3.0])
    assert burn.where(c, a, 0.0).tolist() == [1.0, 0.0, 3.0]
    assert burn.where(c, 5, a).tolist() == [5.0, 2.0, 5.0]
    assert burn.where(c, 1, 0).tolist() == [1, 0, 1]
    assert burn.where(burn.tensor([[True], [False]]), a, -a).tolist() == \
        [[1.0, 2.0, 3.0], [-1.0, -2.0, -3.0]]
    assert a.clamp(1.5, 2.5).tolist() == [1.5, 2.0, 2.5]
    assert a.clamp(max=2).tolist() == [1.0, 2.0, 2.0]
    assert a.clamp(min=burn.tensor([2.0, 0.0, 4.0])).tolist() == [2.0, 2.0, 4.0]
    assert burn.maximum(a, 2.0).tolist() == [2.0, 2.0, 3.0]
    assert burn.minimum(a, burn.tensor([0.0])).tolist() == [0.0, 0.0, 0.0]


def test_matmul_shapes():
    def m(*shape):
        n = 1
        for s in shape:
            n *= s
        return burn.arange(n).float().reshape(shape)
    assert (m(3) @ m(3)).shape == ()
    assert (m(3) @ m(3)).item() == 0 * 0 + 1 * 1 + 2 * 2
    assert (m(2, 3) @ m(3)).shape == (2,)
    assert (m(3) @ m(3, 4)).shape == (4,)
    assert (m(5, 2, 3) @ m(3, 4)).shape == (5, 2, 4)
    assert (m(3, 4) @ m(5, 4, 2)).shape == (5, 3, 2)
    assert (m(2, 1, 2, 3) @ m(4, 3, 1)).shape == (2, 4, 2, 1)
    got = (m(2, 1, 2, 3) @ m(4, 3, 1))[1, 3].tolist()
    a = m(2, 1, 2, 3)[1, 0].tolist()
    b = m(4, 3, 1)[3].tolist()
    assert got == [[sum(a[i][k] * b[k][0] for k in range(3))] for i in range(2)]
    assert (m(2, 3).int() @ m(3, 2).int()).dtype is burn.int32


def test_dtype_and_shape_errors():
    f = burn.tensor([1.0, 2.0])
    i = burn.tensor([1, 2])
    assert_message(TypeError, "add: dtypes burn.float32 and burn.int32 differ; convert one "
                   "with .to(dtype)", f.__add__, i)
    assert_message(ValueError, "add: shapes (2, 3) and (4,) do not broadcast",
                   burn.zeros((2, 3)).__add__, burn.zeros(4))
    assert_message(TypeError, "div: integer tensors cannot be divided with /; use .float() "
                   "first, or // for floor division", i.__truediv__, 2)
    assert_message(TypeError, "and: needs bool or integer tensors, got burn.float32",
                   f.__and__, f)
    assert_message(TypeError, "add: not supported for burn.bool tensors; convert with .int() "
                   "or .float()", burn.tensor([True]).__add__, 1)
    assert_message(TypeError, "mul: unsupported operand of type list", f.__mul__, [1, 2])
    assert_message(ValueError, "matmul: shapes (2, 3) and (4, 5) do not match",
                   burn.zeros((2, 3)).matmul, burn.zeros((4, 5)))
    assert_message(ValueError, "matmul: shapes (2, 2, 3) and (3, 3, 1) do not broadcast",
                   burn.zeros((2, 2, 3)).matmul, burn.zeros((3, 3, 1)))
    assert_message(ValueError, "matmul: both operands need at least 1 dim, got shapes () and "
                   "(3,)", burn.zeros(()).matmul, burn.zeros(3))
    assert_message(TypeError, "where: condition must be a burn.bool tensor, got burn.int32",
                   burn.where, i, f, f)
    assert_message(ValueError, "clamp: at least one of min and max must be given", f.clamp)
