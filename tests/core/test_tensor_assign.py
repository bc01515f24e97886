"""Index assignment (`t[key] = value`), boolean masks (`t[mask]`), gather, index_select,
scatter and masked_fill, as PyTorch has them.

Expected values come from the same assignments on nested Python lists."""

from checks import S, assert_message

import burn

ROWS = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]


def _rows():
    return [list(r) for r in ROWS]


def test_an_element_a_row_and_a_column_take_numbers():
    t = burn.tensor(ROWS, dtype=burn.float32)
    want = _rows()
    t[0, 1] = 5.5
    want[0][1] = 5.5
    t[-1] = 0
    want[-1] = [0, 0, 0, 0]
    t[:, 2] = -1
    for r in want:
        r[2] = -1
    assert t.tolist() == want and t.shape == (3, 4) and t.dtype is burn.float32


def test_a_slice_takes_a_tensor_that_broadcasts_to_it():
    t = burn.tensor(ROWS)
    want = _rows()
    t[1:, ::2] = burn.tensor([[20, 30]])
    for r in want[1:]:
        r[0], r[2] = 20, 30
    assert t.tolist() == want
    t[0] = burn.tensor([7, 6, 5, 4])
    want[0] = [7, 6, 5, 4]
    assert t.tolist() == want
    t[S[::-1], 3] = burn.tensor([1, 2, 3])
    for r, v in zip(want[::-1], [1, 2, 3]):
        r[3] = v
    assert t.tolist() == want


def test_values_take_the_tensors_dtype():
    t = burn.tensor(ROWS)
    t[0, 0] = 2.7  # an int32 tensor keeps ints, truncated as a cast does
    t[1] = burn.tensor([0.5, 1.5, -2.5, 3.0])
    assert t.dtype is burn.int32
    assert t.tolist()[0][0] == 2 and t.tolist()[1] == [0, 1, -2, 3]


def test_a_mask_picks_and_assigns():
    t = burn.tensor(ROWS, dtype=burn.float32)
    flat = [v for r in ROWS for v in r]
    assert t[t > 6].tolist() == [v for v in flat if v > 6]
    assert t[t > 100].shape == (0,)
    rows = burn.tensor([True, False, True])
    assert t[rows].tolist() == [ROWS[0], ROWS[2]]
    t[t % 2 == 1] = 0
    assert t.tolist() == [[0 if v % 2 else v for v in r] for r in ROWS]
    t[rows] = burn.tensor([9.0, 8.0, 7.0, 6.0])
    assert t.tolist()[0] == t.tolist()[2] == [9.0, 8.0, 7.0, 6.0]


def test_a_selection_of_nothing_changes_nothing():
    t = burn.tensor(ROWS)
    t[t > 100] = burn.tensor([1])
    t[:0] = 5
    assert t.tolist() == ROWS


def test_assignment_errors():
    t = burn.tensor(ROWS)
    assert_message(ValueError, "index assignment: a value of shape (2,) does not broadcast "
                   "to the selection's shape (4,)", t.__setitem__, 0, burn.tensor([1, 2]))
    assert_message(TypeError, "index assignment: the value must be a number or a tensor, "
                   "got str", t.__setitem__, 0, "a")
    assert_message(IndexError, "index 3 is out of range for dim 0 of size 3",
                   t.__setitem__, 3, 0)
    assert_message(IndexError, "index: a mask of shape (2,) does not match the leading dims "
                   "of a tensor of shape (3, 4)", t.__getitem__, burn.tensor([True, False]))
    assert t.tolist() == ROWS  # a refused assignment leaves the tensor as it was


def test_gather_index_select_scatter_and_masked_fill():
    t = burn.tensor(ROWS)
    # out[i][j] = t[idx[i][j]][j] along dim 0, t[i][idx[i][j]] along dim 1
    idx = [[2, 0, 1, 1], [0, 0, 2, -1]]
    assert t.gather(0, burn.tensor(idx)).tolist() == [
        [ROWS[i % 3][j] for j, i in enumerate(r)] for r in idx]
    cols = [[3, 0], [1, 1], [0, 2]]
    assert burn.gather(t, 1, burn.tensor(cols)).tolist() == [
        [ROWS[i][j] for j in r] for i, r in enumerate(cols)]
    assert t.index_select(1, burn.tensor([3, 0])).tolist() == [[r[3], r[0]] for r in ROWS]
    assert t.index_select(0, [2, 2]).tolist() == [ROWS[2], ROWS[2]]
    want = _rows()
    src = [[50, 51], [52, 53], [54, 55]]
    for i, r in enumerate(cols[:2]):
        for j, c in enumerate(r):
            want[i][c] = src[i][j]
    got = t.scatter(1, burn.tensor(cols[:2]), burn.tensor(src[:2]))
    assert got.tolist() == want and t.tolist() == ROWS  # a new tensor; t stays
    assert t.masked_fill(t > 6, -1).tolist() == [[-1 if v > 6 else v for v in r]
                                                for r in ROWS]
    assert_message(IndexError, "index 3 is out of range for dim 0 of size 3",
                   t.gather, 0, burn.tensor([[3, 0, 0, 0]]))
    assert_message(IndexError, "gather: the index has 1 dims, the tensor 2",
                   t.gather, 0, burn.tensor([0]))
