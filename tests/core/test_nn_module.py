"""burn.nn.Module: registration, traversal, errors, modes and repr (state_dict is in
test_nn_state.py)."""

from nn_util import raises

import burn
from burn import nn


class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(4, 2)
        self.scale = nn.Parameter(burn.ones((2,)))
        self.label = "plain attribute"

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x))) * self.scale


def test_parameters_in_registration_order():
    m = TwoLayer()
    names = [n for n, _ in m.named_parameters()]
    # a module's own parameters come before its children's, as in PyTorch
    assert names == ["scale", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert len(list(m.parameters())) == 5
    assert [p.shape for p in m.parameters()] == [(2,), (4, 3), (4,), (2, 4), (2,)]


def test_parameter_is_a_tensor_that_requires_grad():
    p = nn.Parameter(burn.tensor([1.0, 2.0]))
    assert isinstance(p, burn.Tensor)
    assert p.requires_grad is True and p.grad is None
    assert p.tolist() == [1.0, 2.0]
    assert (p * 2).tolist() == [2.0, 4.0]
    assert nn.Parameter(burn.zeros((1,)), requires_grad=False).requires_grad is False
    assert repr(p).startswith("Parameter containing:\n")


def test_plain_attributes_are_not_registered():
    m = TwoLayer()
    assert m.label == "plain attribute"
    assert "label" not in m.state_dict()
    m.note = burn.zeros((3,))   # a plain tensor attribute is not state
    assert "note" not in m.state_dict()


def test_children_and_modules():
    m = TwoLayer()
    assert [n for n, _ in m.named_children()] == ["fc1", "act", "fc2"]
    assert list(m.children())[1] is m.act
    names = [n for n, _ in m.named_modules()]
    assert names == ["", "fc1", "act", "fc2"]
    mods = list(m.modules())
    assert mods[0] is m and mods[3] is m.fc2


def test_nested_module_names():
    outer = nn.Sequential(nn.Sequential(nn.Linear(2, 2)), nn.Linear(2, 1))
    assert [n for n, _ in outer.named_parameters()] == \
        ["0.0.weight", "0.0.bias", "1.weight", "1.bias"]
    assert [n for n, _ in outer.named_modules()] == ["", "0", "0.0", "1"]


def test_shared_module_counted_once():
    lin = nn.Linear(2, 2)
    m = nn.Sequential(lin, nn.ReLU(), lin)
    assert len(list(m.parameters())) == 2
    assert len(list(m.modules())) == 3


def test_reassigning_a_child_replaces_it_in_place():
    m = TwoLayer()
    m.act = nn.Tanh()
    assert [n for n, _ in m.named_children()] == ["fc1", "act", "fc2"]
    assert isinstance(m.act, nn.Tanh)


def test_train_and_eval_reach_every_module():
    m = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Dropout(), nn.ReLU()))
    assert all(mod.training for mod in m.modules())
    assert m.eval() is m
    assert not any(mod.training for mod in m.modules())
    m[1].train()
    assert m[1].training and m[1][0].training and not m.training and not m[0].training
    m.train()
    assert all(mod.training for mod in m.modules())


def test_registration_errors():
    class Early(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(1, 1)
            super().__init__()

    msg = raises(AttributeError, Early)
    assert "super().__init__()" in msg

    class Configured(nn.Module):
        def __init__(self):
            self.width = 3          # plain attributes may come first, as in PyTorch
            super().__init__()
            self.fc = nn.Linear(self.width, 1)

    assert [n for n, _ in Configured().named_parameters()] == ["fc.weight", "fc.bias"]
    m = nn.Linear(2, 2)
    msg = raises(TypeError, setattr, m, "weight", burn.zeros((2, 2)))
    assert "weight" in msg and "Parameter" in msg
    raises(TypeError, m.add_module, "x", 3)
    raises(TypeError, m.register_buffer, "b", [1.0])


def test_optional_parameter_set_to_none():
    m = nn.Linear(2, 2)
    m.bias = None
    assert [n for n, _ in m.named_parameters()] == ["weight"]
    assert sorted(m.state_dict()) == ["weight"]


def test_forward_must_be_defined():
    class NoForward(nn.Module):
        pass

    msg = raises(NotImplementedError, NoForward(), burn.zeros((1,)))
    assert "NoForward" in msg


def test_call_passes_arguments_to_forward():
    class Add(nn.Module):
        def forward(self, a, b=1.0):
            return a + b

    assert Add()(burn.tensor([1.0]), b=2.0).tolist() == [3.0]


def test_repr_like_pytorch():
    m = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Flatten(),
                      nn.Linear(32, 10))
    expected = (
        "Sequential(\n"
        "  (0): Conv2d(1, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))\n"
        "  (1): ReLU()\n"
        "  (2): Flatten(start_dim=1, end_dim=-1)\n"
        "  (3): Linear(in_features=32, out_features=10, bias=True)\n"
        ")"
    )
    assert repr(m) == expected
    nested = repr(nn.Sequential(nn.Sequential(nn.Tanh())))
    assert nested == "Sequential(\n  (0): Sequential(\n    (0): Tanh()\n  )\n)"


def test_requires_grad_and_zero_grad():
    m = TwoLayer()
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())
    for p in m.parameters():
        p.grad = burn.zeros(p.shape)
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())


def test_apply_visits_children_first():
    seen = []
    m = nn.Sequential(nn.Linear(1, 1), nn.ReLU())
    assert m.apply(lambda mod: seen.append(type(mod).__name__)) is m
    assert seen == ["Linear", "ReLU", "Sequential"]


def test_unknown_nn_attribute():
    msg = raises(AttributeError, getattr, nn, "Conv7d")
    assert "Conv7d" in msg
