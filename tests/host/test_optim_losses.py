"""Optimizers, schedules, losses and metrics against PyTorch and scikit-learn."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from sklearn import metrics as skm

import burn
from burn.host.autodiff import autodiff_device
from burn.host.convert import to_numpy, to_tensor
from burn.host.train import losses, metrics, optim, schedule

DEV = autodiff_device("numpy")

OPTIMIZERS = [
    (optim.SGD, torch.optim.SGD, dict(lr=0.1)),
    (optim.SGD, torch.optim.SGD, dict(lr=0.05, momentum=0.9, weight_decay=0.01)),
    (optim.SGD, torch.optim.SGD, dict(lr=0.05, momentum=0.9, nesterov=True)),
    (optim.Adam, torch.optim.Adam, dict(lr=0.01, weight_decay=0.1)),
    (optim.AdamW, torch.optim.AdamW, dict(lr=0.01)),
    (optim.RMSprop, torch.optim.RMSprop, dict(lr=0.01, momentum=0.5)),
]


@pytest.mark.parametrize("compiled", [True, False], ids=["flex", "numpy"])
@pytest.mark.parametrize("case", OPTIMIZERS, ids=lambda c: c[0].__name__ + str(c[2]))
def test_optimizer_matches_torch(case, compiled, monkeypatch):
    """Each optimizer against torch.optim; Adam's step both in flex_c and, as without the
    compiled library, in numpy."""
    if compiled and not optim._have_flex():
        pytest.skip("the compiled flex_c library burn._flex is absent")
    monkeypatch.setattr(optim, "_have_flex", lambda: compiled)
    ours, theirs, opts = case
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((3, 4)).astype(np.float32)
    target = rng.standard_normal((3, 4)).astype(np.float32)
    w = to_tensor(w0, DEV)
    w.requires_grad = True
    tw = torch.tensor(w0, requires_grad=True)
    opt, topt = ours([w], **opts), theirs([tw], **opts)
    for _ in range(5):
        opt.zero_grad()
        topt.zero_grad()
        ((w - to_tensor(target, DEV)) ** 2).sum().backward()
        ((tw - torch.tensor(target)) ** 2).sum().backward()
        opt.step()
        topt.step()
    np.testing.assert_allclose(to_numpy(w), tw.detach().numpy(), rtol=1e-4, atol=1e-5)
    assert w.requires_grad


def test_optimizer_state_round_trip_continues_identically():
    rng = np.random.default_rng(1)
    w0 = rng.standard_normal(5).astype(np.float32)

    def run(steps, state=None):
        w = to_tensor(w0, DEV)
        w.requires_grad = True
        opt = optim.Adam([w], lr=0.1)
        if state:
            w.copy_(to_tensor(state[0], DEV))
            opt.load_state_dict(state[1])
        for _ in range(steps):
            opt.zero_grad()
            (w * w * w).sum().backward()
            opt.step()
        return to_numpy(w), opt.state_dict()

    full, _ = run(6)
    mid_w, mid_state = run(3)
    resumed, _ = run(3, (mid_w, mid_state))
    np.testing.assert_array_equal(full, resumed)


def test_bad_optimizer_arguments():
    w = to_tensor(np.zeros(2, np.float32), DEV)
    with pytest.raises(ValueError, match="lr must be positive"):
        optim.SGD([w], lr=0)
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.Adam([], lr=0.1)
    with pytest.raises(TypeError, match="unknown options"):
        optim.SGD([w], lr=0.1, betas=(0.9, 0.9))


def test_gradient_clipping():
    w = to_tensor(np.array([3.0, 4.0], np.float32), DEV)
    w.requires_grad = True
    (w * w).sum().backward()  # grad = (6, 8), norm 10
    norm = optim.clip_grad_norm_([w], 1.0)
    assert abs(norm - 10.0) < 1e-5
    np.testing.assert_allclose(to_numpy(w.grad), [0.6, 0.8], rtol=1e-4)
    optim.clip_grad_value_([w], 0.7)
    np.testing.assert_allclose(to_numpy(w.grad), [0.6, 0.7], rtol=1e-4)


def _lrs(ours, theirs, steps):
    got, want = [], []
    for _ in range(steps):
        got.append(ours.optimizer.lr)
        want.append(theirs.get_last_lr()[0])
        ours.step()
        theirs.optimizer.step()
        theirs.step()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)


def _pair(lr=0.1):
    w = to_tensor(np.zeros(1, np.float32), DEV)
    tw = torch.zeros(1, requires_grad=True)
    return optim.SGD([w], lr=lr), torch.optim.SGD([tw], lr=lr)


def test_schedules_match_torch():
    o, t = _pair()
    _lrs(schedule.StepLR(o, 3, 0.5), torch.optim.lr_scheduler.StepLR(t, 3, 0.5), 10)
    o, t = _pair()
    _lrs(schedule.CosineLR(o, 8, 0.01),
         torch.optim.lr_scheduler.CosineAnnealingLR(t, 8, 0.01), 8)
    o, t = _pair()
    _lrs(schedule.OneCycleLR(o, 1.0, 20, pct_start=0.25),
         torch.optim.lr_scheduler.OneCycleLR(t, 1.0, total_steps=21, pct_start=0.25,
                                             anneal_strategy="cos", cycle_momentum=False),
         1)


def test_one_cycle_and_warmup_shapes():
    o, _ = _pair(1.0)
    s = schedule.OneCycleLR(o, 1.0, 20, pct_start=0.25)
    lrs = [o.lr] + [s.step() for _ in range(20)]
    assert lrs[0] == pytest.approx(1.0 / 25)
    assert max(lrs) == pytest.approx(1.0)
    assert lrs.index(max(lrs)) == 5
    assert lrs[-1] == pytest.approx(1.0 / 25 / 1e4)
    o, _ = _pair(0.5)
    w = schedule.WarmupLR(o, 4)
    assert [o.lr] + [w.step() for _ in range(5)] == pytest.approx(
        [0.125, 0.25, 0.375, 0.5, 0.5, 0.5])
    state = w.state_dict()
    o2, _ = _pair(0.5)
    w2 = schedule.WarmupLR(o2, 4)
    w2.load_state_dict(state)
    assert o2.lr == o.lr


def test_losses_match_torch():
    rng = np.random.default_rng(2)
    logits = rng.standard_normal((6, 4)).astype(np.float32)
    target = rng.integers(0, 4, 6)
    x = to_tensor(logits, DEV)
    y = burn.tensor(target.tolist()).to(DEV)
    tl, tt = torch.tensor(logits), torch.tensor(target)
    for smoothing in (0.0, 0.1):
        got = losses.cross_entropy(x, y, label_smoothing=smoothing).item()
        want = F.cross_entropy(tl, tt, label_smoothing=smoothing).item()
        assert got == pytest.approx(want, rel=1e-5)
    pred = rng.standard_normal((6, 4)).astype(np.float32)
    p, tp = to_tensor(pred, DEV), torch.tensor(pred)
    assert losses.mse_loss(p, x).item() == pytest.approx(F.mse_loss(tp, tl).item(), rel=1e-5)
    assert losses.huber_loss(p, x, 0.5).item() == pytest.approx(
        F.huber_loss(tp, tl, delta=0.5).item(), rel=1e-5)
    prob = (rng.random((6, 4)) > 0.5).astype(np.float32)
    assert losses.bce_with_logits(x, to_tensor(prob, DEV)).item() == pytest.approx(
        F.binary_cross_entropy_with_logits(tl, torch.tensor(prob)).item(), rel=1e-5)
    assert losses.mse_loss(p, x, reduction="none").shape == (6, 4)


def test_loss_errors():
    x = to_tensor(np.zeros((2, 3), np.float32), DEV)
    with pytest.raises(ValueError, match=r"cross_entropy: expects logits \[N, C\]"):
        losses.cross_entropy(x, burn.tensor([0, 1, 2]).to(DEV))
    with pytest.raises(TypeError, match="integer class indices"):
        losses.cross_entropy(x, burn.tensor([0.0, 1.0]).to(DEV))
    with pytest.raises(ValueError, match="mse_loss: input shape"):
        losses.mse_loss(x, to_tensor(np.zeros(3, np.float32), DEV))
    with pytest.raises(ValueError, match="reduction must be"):
        losses.mse_loss(x, x, reduction="avg")


def test_metrics_match_sklearn():
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((50, 5))
    target = rng.integers(0, 5, 50)
    pred = logits.argmax(1)
    assert metrics.accuracy(logits, target) == pytest.approx(skm.accuracy_score(target, pred))
    assert metrics.top_k_accuracy(logits, target, 3) == pytest.approx(
        skm.top_k_accuracy_score(target, logits, k=3, labels=range(5)))
    np.testing.assert_array_equal(metrics.confusion_matrix(pred, target, 5),
                                  skm.confusion_matrix(target, pred, labels=range(5)))
    p, r, f = metrics.precision_recall_f1(pred, target, 5)
    sp, sr, sf, _ = skm.precision_recall_fscore_support(target, pred, average="macro",
                                                        zero_division=0)
    assert (p, r, f) == pytest.approx((sp, sr, sf))
