"""reshape, flatten, permute/transpose, squeeze/unsqueeze, expand, cat/stack/split/chunk, pad.

Expected values are built from plain Python lists."""

from checks import all_coords, assert_message, nested

import burn

V = list(range(24))


def test_reshape_and_view():
    t = burn.tensor(V)
    assert t.reshape((2, 3, 4)).tolist() == nested(V, (2, 3, 4))
    assert t.reshape(4, -1).shape == (4, 6)
    assert t.view(-1, 2, 3).shape == (4, 2, 3)
    assert t.reshape((2, 12)).reshape(24).tolist() == V
    assert burn.tensor(5).reshape(1, 1).tolist() == [[5]]
    assert_message(ValueError, "reshape: cannot reshape tensor of shape (24,) into (5, -1)",
                   t.reshape, 5, -1)
    assert_message(ValueError, "reshape: cannot reshape tensor of shape (24,) into (-1, -1)",
                   t.reshape, -1, -1)
    assert_message(ValueError, "reshape: cannot reshape tensor of shape (24,) into (4, 5)",
                   t.reshape, (4, 5))


def test_flatten():
    t = burn.tensor(V).reshape(2, 3, 4)
    assert t.flatten().shape == (24,)
    assert t.flatten(1).shape == (2, 12)
    assert t.flatten(0, 1).shape == (6, 4)
    assert t.flatten(-2, -1).tolist() == nested(V, (2, 12))
    assert burn.tensor(3).flatten().shape == (1,)


def test_permute_matches_coordinate_mapping():
    shape = (2, 3, 4)
    t = burn.tensor(V).reshape(shape)
    for perm in ((0, 1, 2), (2, 0, 1), (1, 2, 0), (2, 1, 0)):
        p = t.permute(perm)
        out_shape = tuple(shape[i] for i in perm)
        assert p.shape == out_shape
        got = p.reshape(-1).tolist()
        for k, c in enumerate(all_coords(out_shape)):
            src = [0, 0, 0]
            for i in range(3):
                src[perm[i]] = c[i]
            assert got[k] == (src[0] * 3 + src[1]) * 4 + src[2]
    assert t.permute(-1, 0, 1).shape == (4, 2, 3)
    assert_message(ValueError, "permute: dims (0, 0, 1) are not a permutation of 3 dims",
                   t.permute, 0, 0, 1)


def test_transpose_and_T():
    m = burn.tensor([[1, 2, 3], [4, 5, 6]])
    assert m.T.tolist() == [[1, 4], [2, 5], [3, 6]]
    assert m.transpose(0, 1).tolist() == m.T.tolist()
    assert burn.tensor([1, 2]).T.tolist() == [1, 2]
    t = burn.tensor(V).reshape(2, 3, 4)
    assert t.transpose(0, 2).shape == (4, 3, 2)
    assert t.transpose(-1, 0)[3, 2, 1].item() == t[1, 2, 3].item()
    assert_message(ValueError, "T: expects a tensor of at most 2 dims, got shape (2, 3, 4); "
                   "use permute", getattr, t, "T")


def test_squeeze_unsqueeze():
    t = burn.zeros((1, 3, 1, 2))
    assert t.squeeze().shape == (3, 2)
    assert t.squeeze(0).shape == (3, 1, 2)
    assert t.squeeze(1).shape == (1, 3, 1, 2)
    assert t.squeeze((0, 2)).shape == (3, 2)
    assert t.unsqueeze(0).shape == (1, 1, 3, 1, 2)
    assert t.unsqueeze(-1).shape == (1, 3, 1, 2, 1)
    assert t.unsqueeze(4).shape == (1, 3, 1, 2, 1)
    assert_message(IndexError, "unsqueeze: dim 6 is out of range [-5, 4] for a tensor of 5 "
                   "dims", t.unsqueeze, 6)


def test_expand():
    t = burn.tensor([[1], [2]])
    assert t.expand(2, 3).tolist() == [[1, 1, 1], [2, 2, 2]]
    assert t.expand((3, 2, 2)).tolist() == [[[1, 1], [2, 2]]] * 3
    assert t.expand(-1, 2).tolist() == [[1, 1], [2, 2]]
    assert burn.tensor(7).expand(2).tolist() == [7, 7]
    assert_message(ValueError, "expand: cannot expand shape (2, 1) to (3, 1)", t.expand, 3, 1)
    assert_message(ValueError, "expand: cannot expand shape (2, 1) to (1,)", t.expand, 1)


def test_cat_and_stack():
    a = burn.tensor([[1, 2], [3, 4]])
    b = burn.tensor([[5, 6]])
    assert burn.cat([a, b]).tolist() == [[1, 2], [3, 4], [5, 6]]
    assert burn.cat((a, a), dim=-1).tolist() == [[1, 2, 1, 2], [3, 4, 3, 4]]
    assert burn.stack([a, a]).shape == (2, 2, 2)
    assert burn.stack([a, a], dim=2).tolist() == [[[1, 1], [2, 2]], [[3, 3], [4, 4]]]
    assert_message(ValueError, "cat: shapes (2, 2) and (1, 2) differ outside dim 1",
                   burn.cat, [a, b], 1)
    assert_message(TypeError, "cat: dtypes burn.int32 and burn.float32 differ",
                   burn.cat, [a, a.float()])
    assert_message(ValueError, "stack: shapes (2, 2) and (1, 2) differ", burn.stack, [a, b])
    assert_message(ValueError, "cat: expected a non-empty sequence of tensors", burn.cat, [])


def test_split_and_chunk():
    t = burn.arange(7)
    assert [p.tolist() for p in t.split(3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [p.tolist() for p in burn.split(t, [2, 5])] == [[0, 1], [2, 3, 4, 5, 6]]
    assert [p.tolist() for p in t.chunk(3)] == [[0, 1, 2], [3, 4, 5], [6]]
    m = burn.tensor(V).reshape(4, 6)
    parts = burn.chunk(m, 2, dim=1)
    assert [p.shape for p in parts] == [(4, 3), (4, 3)]
    assert parts[1].tolist() == [r[3:] for r in nested(V, (4, 6))]
    assert_message(ValueError, "split: sections [2, 2] do not add up to size 7 of dim 0",
                   t.split, [2, 2])


def test_pad_like_torch():
    t = burn.tensor([[1, 2], [3, 4]])
    assert burn.pad(t, (1, 0)).tolist() == [[0, 1, 2], [0, 3, 4]]
    assert burn.pad(t, (0, 1, 1, 0), value=9).tolist() == [[9, 9, 9], [1, 2, 9], [3, 4, 9]]
    assert burn.pad(t.float(), (1, 1), 0.5).tolist()[0] == [0.5, 1.0, 2.0, 0.5]
    assert_message(ValueError, "pad: pads (1, 1, 1, 1, 1, 1) must hold a (before, after) pair "
                   "for at most 2 dims", burn.pad, t, (1, 1, 1, 1, 1, 1))


def test_clone_and_contiguous():
    t = burn.tensor([1, 2])
    c = t.clone()
    assert c is not t and c.tolist() == [1, 2] and c.handle is not t.handle
    assert t.contiguous() is t
