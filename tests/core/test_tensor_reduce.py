"""Reductions over dims (int or tuple, keepdim), max/min with indices, var/std, prod.

Expected values are computed here from plain Python lists."""

from checks import all_coords, assert_close, assert_message, flat

import burn

SHAPE = (2, 3, 4)
VALS = [float((i * 5) % 7 - 3) for i in range(24)]


def _ref_reduce(fn, dims, keepdim):
    out_shape = tuple(1 if d in dims else SHAPE[d] for d in range(3))
    groups = {}
    for k, c in enumerate(all_coords(SHAPE)):
        key = tuple(0 if d in dims else c[d] for d in range(3))
        groups.setdefault(key, []).append(VALS[k])
    values = [fn(groups[c]) for c in all_coords(out_shape)]
    if not keepdim:
        out_shape = tuple(SHAPE[d] for d in range(3) if d not in dims)
    return out_shape, values


def _mean(v):
    return sum(v) / len(v)


def _var(v):
    m = _mean(v)
    return sum((x - m) ** 2 for x in v) / (len(v) - 1)


def test_sum_mean_var_over_dims():
    t = burn.tensor(VALS).reshape(SHAPE)
    for dims in ((0,), (1,), (2,), (0, 2), (1, 2), (0, 1, 2)):
        for keepdim in (False, True):
            for name, fn in (("sum", sum), ("mean", _mean), ("var", _var)):
                arg = dims[0] if len(dims) == 1 else dims
                got = getattr(t, name)(arg, keepdim)
                shape, expected = _ref_reduce(fn, dims, keepdim)
                assert got.shape == shape, (name, dims, keepdim, got.shape)
                assert_close(flat(got.tolist()), expected, 1e-5)


def test_negative_dims_and_all():
    t = burn.tensor(VALS).reshape(SHAPE)
    assert t.sum(-1).tolist() == t.sum(2).tolist()
    assert t.sum().shape == ()
    assert_close(t.sum().item(), sum(VALS))
    assert t.sum(keepdim=True).shape == (1, 1, 1)
    assert_close(t.mean().item(), _mean(VALS))
    assert_close(t.std().item(), _var(VALS) ** 0.5)
    assert_close(t.var(unbiased=False).item(), _var(VALS) * 23 / 24)


def test_max_min_argmax():
    t = burn.tensor([[3, 7, 7], [9, -1, 2]])
    assert t.max().item() == 9
    assert t.min().item() == -1
    values, indices = t.max(1)
    assert values.tolist() == [7, 9]
    assert indices.tolist() == [1, 0]  # the first of equal maxima
    assert indices.dtype is burn.int32
    values, indices = t.min(0, keepdim=True)
    assert values.tolist() == [[3, -1, 2]]
    assert indices.tolist() == [[0, 1, 1]]
    assert t.argmax().item() == 3
    assert t.argmin(1).tolist() == [0, 1]
    assert t.amax((0, 1)).item() == 9
    assert t.amin(0).tolist() == [3, -1, 2]
    assert t.max(burn.tensor([5, 5, 5])).tolist() == [[5, 7, 7], [9, 5, 5]]


def test_prod_and_small_int_sums_widen():
    assert burn.tensor([[1, 2], [3, 4]]).prod(1).tolist() == [2, 12]
    s = burn.tensor([100, 100, 100], dtype=burn.int8).sum()
    assert s.dtype is burn.int32 and s.item() == 300
    assert burn.tensor([True, True, False]).sum().item() == 2


def test_reduction_errors():
    t = burn.zeros((2, 3))
    assert_message(IndexError, "sum: dim 2 is out of range [-2, 1] for a tensor of 2 dims",
                   t.sum, 2)
    assert_message(ValueError, "sum: dim 1 appears more than once", t.sum, (1, -1))
    assert_message(TypeError, "mean: needs a float tensor, got burn.int32; use .float()",
                   burn.tensor([1]).mean)
    assert_message(ValueError, "max: cannot reduce an empty dim 1", burn.zeros((2, 0)).max, 1)
    assert_message(ValueError, "var: needs at least 2 elements per reduction, got 1",
                   burn.tensor([1.0]).var)
