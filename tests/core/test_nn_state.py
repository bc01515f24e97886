"""burn.nn.Module state: PyTorch-style state_dict keys, load_state_dict from tensors and
nested lists, its errors, and moving state between dtypes."""

from nn_util import close, raises

import burn
from burn import nn


def small_cnn():
    return nn.Sequential(
        nn.Conv2d(1, 2, 3, padding=1), nn.BatchNorm2d(2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(8, 3),
    )


CNN_KEYS = [
    "0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var",
    "1.num_batches_tracked", "5.weight", "5.bias",
]


def test_state_dict_keys_match_pytorch():
    sd = small_cnn().state_dict()
    assert sorted(sd) == sorted(CNN_KEYS)
    assert sd["1.num_batches_tracked"].shape == ()
    assert sd["1.num_batches_tracked"].dtype is burn.int32
    assert sd["1.running_var"].tolist() == [1.0, 1.0]
    slots = [n for n, _ in small_cnn().named_parameters()]
    assert slots == ["0.weight", "0.bias", "1.weight", "1.bias", "5.weight", "5.bias"]
    assert [n for n, _ in small_cnn().named_buffers()] == \
        ["1.running_mean", "1.running_var", "1.num_batches_tracked"]


def test_state_dict_round_trip():
    # test_nn_container runs a CNN forward; a small MLP keeps this file's heap low on boards
    def mlp():
        return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))

    burn.seed(1)
    a = mlp()
    burn.seed(2)
    b = mlp()
    x = burn.randn((2, 3))
    assert not close(a(x), b(x))
    b.load_state_dict(a.state_dict())
    assert close(a(x), b(x), 0.0)
    burn.seed(3)
    cnn = small_cnn()
    cnn[1].running_mean.copy_(burn.tensor([0.5, -0.5]))
    copy = small_cnn()
    copy.load_state_dict(cnn.state_dict())
    for key, t in cnn.state_dict().items():
        assert copy.state_dict()[key].tolist() == t.tolist()


def test_load_from_nested_lists_in_place():
    m = nn.Linear(2, 3)
    w = m.weight
    state = {"weight": [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], "bias": [0.5, -0.5, 0.0]}
    missing, unexpected = m.load_state_dict(state)
    assert missing == [] and unexpected == []
    assert m.weight is w and isinstance(w, nn.Parameter) and w.requires_grad
    assert w.tolist() == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    assert m(burn.tensor([[1.0, 1.0]])).tolist() == [[3.5, 6.5, 11.0]]


def test_load_converts_buffer_values():
    bn = nn.BatchNorm2d(2)
    bn.load_state_dict({"weight": [1.0, 1.0], "bias": [0.0, 0.0], "running_mean": [1, 2],
                        "running_var": [4.0, 9.0], "num_batches_tracked": 7})
    assert bn.running_mean.dtype is burn.float32
    assert bn.running_mean.tolist() == [1.0, 2.0]
    assert bn.num_batches_tracked.item() == 7
    assert bn.num_batches_tracked.dtype is burn.int32


def test_missing_key_is_an_error_and_changes_nothing():
    m = nn.Linear(2, 2)
    before = m.weight.tolist()
    msg = raises(ValueError, m.load_state_dict, {"weight": [[0.0, 0.0], [0.0, 0.0]]})
    assert msg.startswith("load_state_dict:")
    assert "missing" in msg and "bias" in msg
    assert m.weight.tolist() == before


def test_unexpected_key_is_an_error():
    m = nn.Linear(1, 1)
    state = {"weight": [[1.0]], "bias": [0.0], "extra.weight": [1.0]}
    msg = raises(ValueError, m.load_state_dict, state)
    assert "unexpected" in msg and "extra.weight" in msg


def test_non_strict_load_reports_keys():
    m = nn.Sequential(nn.Linear(1, 1), nn.Linear(1, 1))
    missing, unexpected = m.load_state_dict({"0.weight": [[2.0]], "9.bias": [1.0]},
                                            strict=False)
    assert sorted(missing) == ["0.bias", "1.bias", "1.weight"]
    assert unexpected == ["9.bias"]
    assert m[0].weight.tolist() == [[2.0]]


def test_shape_mismatch_names_key_and_shapes():
    m = nn.Sequential(nn.Linear(3, 2))
    state = {"0.weight": [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], "0.bias": [0.0, 0.0]}
    for strict in (True, False):
        msg = raises(ValueError, m.load_state_dict, state, strict)
        assert "0.weight" in msg and "(3, 2)" in msg and "(2, 3)" in msg


def test_value_that_is_not_tensor_data():
    m = nn.Linear(1, 1)
    msg = raises(TypeError, m.load_state_dict, {"weight": "ones", "bias": [0.0]})
    assert msg.startswith("load_state_dict:") and "weight" in msg
    assert "bias" in raises(ValueError, m.load_state_dict, {"weight": [[1.0]], "bias": [[0.0]]})


def test_load_accepts_tensors_of_other_dtype():
    m = nn.Linear(1, 2)
    m.load_state_dict({"weight": burn.tensor([[1], [2]]), "bias": burn.tensor([0, 1])})
    assert m.weight.dtype is burn.float32
    assert m(burn.tensor([[3.0]])).tolist() == [[3.0, 7.0]]


def test_to_dtype_keeps_integer_buffers():
    m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm2d(2))
    w = m[0].weight
    m.to(burn.float32)
    assert m[0].weight is w
    assert m[1].num_batches_tracked.dtype is burn.int32
