"""burn.nn Embedding and Dropout."""


from nn_util import raises

import burn
from burn import nn


def test_embedding_lookup():
    e = nn.Embedding(3, 2)
    assert e.weight.shape == (3, 2)
    e.load_state_dict({"weight": [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]})
    y = e(burn.tensor([[0, 2], [1, 0]]))
    assert y.shape == (2, 2, 2)
    assert y.tolist() == [[[0.0, 1.0], [4.0, 5.0]], [[2.0, 3.0], [0.0, 1.0]]]


def test_embedding_padding_idx_row_is_zero():
    burn.seed(3)
    e = nn.Embedding(4, 3, padding_idx=-1)
    assert e.padding_idx == 3
    rows = e.weight.tolist()
    assert rows[3] == [0.0, 0.0, 0.0] and any(v != 0.0 for v in rows[0])
    assert repr(e) == "Embedding(4, 3, padding_idx=3)"
    raises(ValueError, nn.Embedding, 4, 3, padding_idx=4)


def test_dropout_train_and_eval():
    d = nn.Dropout(0.5)
    x = burn.ones((200,))
    burn.seed(5)
    y = d(x).tolist()
    assert set(y) <= {0.0, 2.0}
    assert 50 < y.count(0.0) < 150
    burn.seed(5)
    assert d(x).tolist() == y
    d.eval()
    assert d(x).tolist() == x.tolist()
    assert nn.Dropout(0.0)(x).tolist() == x.tolist()
    raises(ValueError, nn.Dropout, 1.5)
    assert repr(d) == "Dropout(p=0.5)"
