"""Indexing: ints, slices with steps and negatives, None, Ellipsis, integer tensors.

Expected values come from Python's own list indexing of the same nested lists."""

from checks import S, assert_message, raises

import burn

ROWS = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]


def test_int_indices_drop_dims():
    t = burn.tensor(ROWS)
    assert t[1].tolist() == ROWS[1]
    assert t[-1].tolist() == ROWS[-1]
    assert t[2, 3].tolist() == 11
    assert t[2, 3].shape == ()
    assert t[-3, -4].item() == 0


def test_slices_match_python_lists():
    values = list(range(7))
    t = burn.tensor(values)
    for start in (None, -9, -3, -1, 0, 2, 6, 9):
        for stop in (None, -9, -2, 0, 3, 7, 10):
            for step in (None, 1, 2, 3, -1, -2, -4):
                s = S[start:stop:step]
                got = t[s]
                assert got.tolist() == values[s], (s, got.tolist(), values[s])
                assert got.shape == (len(values[s]),)


def test_slices_on_several_dims():
    t = burn.tensor(ROWS)
    assert t[:, 1].tolist() == [r[1] for r in ROWS]
    assert t[1:, ::2].tolist() == [r[::2] for r in ROWS[1:]]
    assert t[::-1, ::-3].tolist() == [r[::-3] for r in ROWS[::-1]]
    assert t[:0].shape == (0, 4)


def test_none_and_ellipsis():
    t = burn.tensor(ROWS)
    assert t[None].shape == (1, 3, 4)
    assert t[:, None].shape == (3, 1, 4)
    assert t[..., None].shape == (3, 4, 1)
    assert t[..., 1].tolist() == [r[1] for r in ROWS]
    assert t[1, ...].tolist() == ROWS[1]
    assert t[None, ..., None, 2].shape == (1, 3, 1)
    assert t[None, ..., None, 2].tolist() == [[[r[2]] for r in ROWS]]
    assert t[...].tolist() == ROWS


def test_integer_tensor_and_list_index_along_dim0():
    t = burn.tensor(ROWS)
    idx = burn.tensor([2, 0, -1])
    assert t[idx].tolist() == [ROWS[2], ROWS[0], ROWS[-1]]
    assert t[[1, 1]].tolist() == [ROWS[1], ROWS[1]]
    two_d = t[burn.tensor([[0], [2]], dtype=burn.int8)]
    assert two_d.shape == (2, 1, 4)
    assert two_d.tolist() == [[ROWS[0]], [ROWS[2]]]
    assert t[[2, 0], 1:3].tolist() == [ROWS[2][1:3], ROWS[0][1:3]]


def test_index_errors():
    t = burn.tensor(ROWS)
    assert_message(IndexError, "index 5 is out of range for dim 1 of size 4",
                   t.__getitem__, (0, 5))
    assert_message(IndexError, "index -4 is out of range for dim 0 of size 3",
                   t.__getitem__, -4)
    assert_message(IndexError, "index 3 is out of range for dim 0 of size 3",
                   t.__getitem__, burn.tensor([0, 3]))
    assert_message(IndexError, "index: too many indices for a tensor of 2 dims",
                   t.__getitem__, (0, 0, 0))
    assert_message(IndexError, "index: an index can only have a single ellipsis",
                   t.__getitem__, (Ellipsis, Ellipsis))
    assert_message(ValueError, "index: slice step must be a non-zero int, got 0",
                   t.__getitem__, S[::0])
    assert_message(TypeError, "index: index tensors must hold integers, got burn.float32",
                   t.__getitem__, burn.tensor([0.0]))
    assert_message(TypeError, "index: unsupported index 'a'", t.__getitem__, "a")
    raises(IndexError, burn.tensor(1).__getitem__, 0)


def test_iteration_yields_rows():
    rows = [r.tolist() for r in burn.tensor(ROWS)]
    assert rows == ROWS
