"""float32 flex_c kernels on the host against torch / numpy, forward and backward."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from burn.host.flex import f32
from burn.host.flex.binding import FlexError

RTOL, ATOL = 1e-5, 1e-5


def close(ours, want, rtol=RTOL, atol=ATOL):
    want = want.detach().numpy() if isinstance(want, torch.Tensor) else np.asarray(want)
    np.testing.assert_allclose(ours, want, rtol=rtol, atol=atol)


def test_gemm_every_transpose_and_beta():
    rng = np.random.default_rng(0)
    for m, n, k in [(1, 1, 1), (5, 7, 3), (33, 300, 130), (4, 17, 257)]:
        for ta in (False, True):
            for tb in (False, True):
                a = rng.standard_normal((k, m) if ta else (m, k)).astype(np.float32)
                b = rng.standard_normal((n, k) if tb else (k, n)).astype(np.float32)
                c = rng.standard_normal((m, n)).astype(np.float32)
                want = (a.T if ta else a) @ (b.T if tb else b) + 0.5 * c
                close(f32.gemm(a, b, ta, tb, c=c.copy(), beta=0.5), want, 1e-4, 1e-4)


def _conv_cases():
    rng = np.random.default_rng(1)
    for _ in range(25):
        groups = int(rng.choice([1, 1, 2, 3]))
        ic, oc = groups * int(rng.integers(1, 4)), groups * int(rng.integers(1, 4))
        kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        stride = (int(rng.integers(1, 3)), int(rng.integers(1, 3)))
        dilation = (int(rng.integers(1, 3)), int(rng.integers(1, 3)))
        pad = tuple(int(p) for p in rng.integers(0, 3, size=4))
        h = int(rng.integers((kh - 1) * dilation[0] + 1, 9))
        w = int(rng.integers((kw - 1) * dilation[1] + 1, 9))
        x = rng.standard_normal((int(rng.integers(1, 3)), ic, h, w)).astype(np.float32)
        wt = rng.standard_normal((oc, ic // groups, kh, kw)).astype(np.float32)
        bias = rng.standard_normal(oc).astype(np.float32)
        yield x, wt, bias, stride, pad, dilation, groups


def _torch_conv(x, w, b, stride, pad, dilation, groups):
    xp = F.pad(x, (pad[2], pad[3], pad[0], pad[1]))
    return F.conv2d(xp, w, b, stride=stride, dilation=dilation, groups=groups)


def test_conv2d_and_its_gradients_match_torch():
    for x, w, b, stride, pad, dilation, groups in _conv_cases():
        tx, tw, tb = (torch.tensor(v, requires_grad=True) for v in (x, w, b))
        ty = _torch_conv(tx, tw, tb, stride, pad, dilation, groups)
        dy = np.random.default_rng(2).standard_normal(ty.shape).astype(np.float32)
        ty.backward(torch.tensor(dy))
        close(f32.conv2d(x, w, b, stride, pad, dilation, groups), ty, 1e-4, 1e-4)
        close(f32.conv2d_input_grad(x.shape, w, dy, stride, pad, dilation, groups), tx.grad,
              1e-4, 1e-4)
        dw, db = f32.conv2d_weight_grad(x, w.shape, dy, stride, pad, dilation, groups)
        close(dw, tw.grad, 1e-4, 1e-4)
        close(db, tb.grad, 1e-4, 1e-4)


@pytest.mark.parametrize("op", ["max", "avg"])
def test_pools_and_their_gradients_match_torch(op):
    rng = np.random.default_rng(3)
    for case in range(30):
        k = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
        s = (int(rng.integers(1, 3)), int(rng.integers(1, 3)))
        p = (int(rng.integers(0, k[0] // 2 + 1)), int(rng.integers(0, k[1] // 2 + 1)))
        d = (int(rng.integers(1, 3)), int(rng.integers(1, 3))) if op == "max" else (1, 1)
        ceil_mode, include = bool(case % 2), bool(case % 3)
        h = int(rng.integers((k[0] - 1) * d[0] + 1, 9))
        w = int(rng.integers((k[1] - 1) * d[1] + 1, 9))
        x = rng.standard_normal((2, 3, h, w)).astype(np.float32)
        tx = torch.tensor(x, requires_grad=True)
        if op == "max":
            ty = F.max_pool2d(tx, k, s, p, d, ceil_mode=ceil_mode)
        else:
            ty = F.avg_pool2d(tx, k, s, p, ceil_mode=ceil_mode, count_include_pad=include)
        dy = rng.standard_normal(ty.shape).astype(np.float32)
        ty.backward(torch.tensor(dy))
        pads = (p[0], p[0], p[1], p[1])
        close(f32.pool2d(op, x, k, s, pads, d, ceil_mode, include), ty)
        if not ceil_mode:  # the gradient kernels take the forward's output shape from dy
            close(f32.pool2d_grad(op, x, dy, k, s, pads, d, include), tx.grad)


def test_unary_ops_match_torch():
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.uniform(-20, 20, 2000), rng.uniform(-2, 2, 2000),
                        [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1e-30, 88.0, -100.0]])
    x = x.astype(np.float32)
    pos = np.abs(x) + np.float32(1e-3)
    for op in f32.UNARY:
        arg = pos if op in ("log", "sqrt", "rsqrt") else x
        t = torch.tensor(arg)
        want = {"neg": -t, "rsqrt": torch.rsqrt(t), "relu": torch.relu(t),
                "reciprocal": 1 / t, "sign": torch.sign(t)}.get(op)
        if want is None:
            want = getattr(torch, op)(t)
        close(f32.unary(op, arg), want, 2e-6, 1e-6)


def test_binary_ops_broadcast_like_numpy():
    rng = np.random.default_rng(5)
    shapes = [((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (5,)),
              ((1, 2, 1, 3, 1, 2), (2, 1, 3, 1, 2, 1))]
    for sa, sb in shapes:
        a = rng.uniform(0.1, 3, sa).astype(np.float32)
        b = rng.uniform(-3, 3, sb).astype(np.float32)
        for op, fn in [("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                       ("div", np.divide), ("maximum", np.maximum), ("minimum", np.minimum),
                       ("pow", np.power)]:
            close(f32.binary(op, a, b), fn(a, b), 1e-5, 1e-6)
    a = rng.uniform(-3, 3, (7,)).astype(np.float32)
    close(f32.binary("pow", a, np.float32(2.0)), a * a, 0, 0)


def test_reductions_softmax_and_clamp():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((3, 5, 7)).astype(np.float32)
    for dim in range(3):
        for op, fn in [("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min)]:
            close(f32.reduce(op, x, dim), fn(x, axis=dim, keepdims=True))
        close(f32.softmax(x, dim), torch.softmax(torch.tensor(x), dim))
        close(f32.softmax(x, dim, log=True), torch.log_softmax(torch.tensor(x), dim))
    close(f32.clamp(x, -0.5, 0.25), np.clip(x, -0.5, 0.25), 0, 0)


def test_bad_arguments_raise_clear_errors():
    x = np.zeros((1, 2, 4, 4), np.float32)
    with pytest.raises(ValueError, match="flex_f32_conv2d: bad window"):
        f32.conv2d(x, np.zeros((4, 2, 5, 5), np.float32))
    with pytest.raises(ValueError, match="flex_f32_conv2d: bad shape"):
        f32.conv2d(x, np.zeros((4, 1, 3, 3), np.float32), groups=3)
    with pytest.raises(FlexError, match="flex_f32_clamp: parameter out of range"):
        f32.clamp(x, 1.0, -1.0)
    with pytest.raises(ValueError, match="flex gemm: inner dimensions differ"):
        f32.gemm(np.zeros((2, 3)), np.zeros((4, 5)))


def test_conv2d_on_larger_images_matches_torch():
    # Images of 128 pixels or more take the stride-1 path without im2col (padded copy, or
    # the input itself without padding) or, strided, the per-image GEMM; depthwise its own.
    rng = np.random.default_rng(5)
    cases = [((1, 3, 20, 20), (8, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
             ((2, 8, 16, 12), (12, 8, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
             ((1, 4, 18, 17), (6, 2, 3, 2), (1, 1), (2, 0, 1, 3), (2, 1), 2),
             ((1, 5, 24, 16), (7, 5, 3, 3), (2, 1), (1, 1, 1, 1), (1, 1), 1),
             ((2, 6, 14, 14), (6, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 6)]
    for x_shape, w_shape, stride, pad, dilation, groups in cases:
        x = rng.standard_normal(x_shape).astype(np.float32)
        w = rng.standard_normal(w_shape).astype(np.float32)
        b = rng.standard_normal(w_shape[0]).astype(np.float32)
        tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
        ty = _torch_conv(tx, tw, torch.tensor(b), stride, pad, dilation, groups)
        dy = rng.standard_normal(ty.shape).astype(np.float32)
        ty.backward(torch.tensor(dy))
        close(f32.conv2d(x, w, b, stride, pad, dilation, groups), ty, 1e-4, 1e-4)
        close(f32.conv2d_input_grad(x_shape, w, dy, stride, pad, dilation, groups), tx.grad,
              1e-4, 1e-4)
        close(f32.conv2d_weight_grad(x, w_shape, dy, stride, pad, dilation, groups)[0],
              tw.grad, 1e-4, 1e-4)


def _max_pool_reference(x, k, s, p, d):
    """Max pooling as flex_c defines it, one window at a time: padding is ignored, a window
    holding a NaN has NaN for maximum, and the gradient goes to the window's first maximum
    (its first NaN, if any) in scan order. Returns (y, index of that element per output)."""
    n, c, h, w = x.shape
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    y = np.empty((n, c, oh, ow), np.float32)
    at = np.empty((n, c, oh, ow), np.int64)
    for b, ch, oy, ox in np.ndindex(n, c, oh, ow):
        taps = [(iy, ix) for iy in range(oy * s[0] - p[0], oy * s[0] - p[0] + k[0] * d[0], d[0])
                for ix in range(ox * s[1] - p[1], ox * s[1] - p[1] + k[1] * d[1], d[1])
                if 0 <= iy < h and 0 <= ix < w]
        vals = [x[b, ch, iy, ix] for iy, ix in taps]
        nans = [i for i, v in enumerate(vals) if v != v]
        best = nans[0] if nans else int(np.argmax(vals))  # argmax: the first maximum
        y[b, ch, oy, ox] = vals[best]
        at[b, ch, oy, ox] = np.ravel_multi_index((b, ch) + taps[best], x.shape)
    return y, at


@pytest.mark.parametrize("k, s, p, d", [((2, 2), (2, 2), (0, 0), (1, 1)),
                                        ((3, 3), (1, 1), (1, 1), (1, 1)),
                                        ((3, 3), (2, 2), (1, 0), (1, 1)),
                                        ((2, 3), (1, 2), (1, 1), (2, 1))])
def test_max_pool_ties_nans_and_borders_match_the_reference(k, s, p, d):
    # 2x2 and 3x3 take the unrolled scans, 2x3 dilated the generic one; padding gives
    # border windows; NaN planes and ties (relu zeros, repeated values) the other rules.
    rng = np.random.default_rng(7)
    x = np.maximum(np.floor(rng.standard_normal((2, 5, 7, 9)) * 2), 0).astype(np.float32)
    x[0, 1, 3, 4] = np.nan
    x[1, 4, 0, 0] = np.nan
    x[1, 4, 5, 8] = np.nan
    y, at = _max_pool_reference(x, k, s, p, d)
    pads = (p[0], p[0], p[1], p[1])
    np.testing.assert_array_equal(f32.pool2d("max", x, k, s, pads, d), y)
    dy = rng.standard_normal(y.shape).astype(np.float32)
    want = np.zeros(x.size, np.float64)
    np.add.at(want, at.reshape(-1), dy.reshape(-1))
    close(f32.pool2d_grad("max", x, dy, k, s, pads, d).reshape(-1), want)


@pytest.mark.parametrize("shape", [(4, 3, 5, 2), (6, 3), (3, 5, 7, 9)])
def test_batch_norm_kernels_match_torch(shape):
    rng = np.random.default_rng(8)
    x = (rng.standard_normal(shape) * 2 + 40).astype(np.float32)  # a mean far from 0
    w, b = (rng.standard_normal(shape[1]).astype(np.float32) for _ in range(2))
    dy = rng.standard_normal(shape).astype(np.float32)
    axes = (0,) + tuple(range(2, len(shape)))
    mean, var = f32.batch_norm_stats(x)
    close(mean, x.astype(np.float64).mean(axis=axes), 1e-5, 1e-5)
    close(var, x.astype(np.float64).var(axis=axes), 1e-4, 1e-5)
    invstd = (1 / np.sqrt(var.astype(np.float64) + 1e-5)).astype(np.float32)
    for weight, bias in ((w, b), (None, None), (w, None)):
        tx = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        tw = torch.tensor(w if weight is not None else np.ones_like(w), dtype=torch.float64,
                          requires_grad=True)
        tb = torch.tensor(b if bias is not None else np.zeros_like(b), dtype=torch.float64,
                          requires_grad=True)
        ty = F.batch_norm(tx, None, None, tw, tb, True, 0.1, 1e-5)
        ty.backward(torch.tensor(dy, dtype=torch.float64))
        close(f32.batch_norm(x, mean, invstd, weight, bias), ty, 1e-4, 1e-4)
        dx, dw, db = f32.batch_norm_grad(x, dy, mean, invstd, weight)
        close(dx, tx.grad, 1e-3, 1e-4)
        close(dw, tw.grad, 1e-4, 1e-4)
        close(db, tb.grad, 1e-4, 1e-4)
    # fixed statistics (eval mode): the input gradient does not flow through them
    rm, rv = mean + 0.5, var * 2
    tx = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    tw = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    ty = F.batch_norm(tx, torch.tensor(rm, dtype=torch.float64),
                      torch.tensor(rv, dtype=torch.float64), tw, None, False, 0.1, 1e-5)
    ty.backward(torch.tensor(dy, dtype=torch.float64))
    r_invstd = (1 / np.sqrt(rv.astype(np.float64) + 1e-5)).astype(np.float32)
    close(f32.batch_norm(x, rm, r_invstd, w), ty, 1e-4, 1e-4)
    dx, dw, _db = f32.batch_norm_grad(x, dy, rm, r_invstd, w, batch_stats=False)
    close(dx, tx.grad, 1e-4, 1e-4)
    close(dw, tw.grad, 1e-4, 1e-4)
    assert f32.batch_norm_grad(x, dy, mean, invstd, w, input_grad=False)[0] is None
    with pytest.raises(ValueError, match="per-channel vector of 2 values"):
        f32.batch_norm(x, mean[:2], invstd)
    with pytest.raises(ValueError, match=r"must be \[n, c, ...\]"):
        f32.batch_norm_stats(x.reshape(-1))


@pytest.mark.parametrize("decoupled", [False, True])
def test_adam_kernel_matches_torch(decoupled):
    rng = np.random.default_rng(9)
    p = rng.standard_normal(37).astype(np.float32)  # not a whole number of vectors
    tp = torch.tensor(p, requires_grad=True)
    kind = torch.optim.AdamW if decoupled else torch.optim.Adam
    opt = kind([tp], lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.05)
    m, v = np.zeros_like(p), np.zeros_like(p)
    for step in range(1, 6):
        g = rng.standard_normal(p.shape).astype(np.float32)
        tp.grad = torch.tensor(g)
        opt.step()
        p = f32.adam(p, g, m, v, 0.01, (0.8, 0.99), 1e-6, 0.05, decoupled, step)
        close(p, tp.detach(), 1e-5, 1e-6)
    close(m, opt.state[tp]["exp_avg"], 1e-5, 1e-6)
    close(v, opt.state[tp]["exp_avg_sq"], 1e-5, 1e-7)
    with pytest.raises(ValueError, match="moments"):
        f32.adam(p, g, m[:5], v, 0.01, (0.8, 0.99), 1e-6, 0.0, decoupled, 1)
    with pytest.raises(FlexError, match="flex_f32_adam: parameter out of range"):
        f32.adam(p, g, m, v, 0.01, (0.8, 0.99), 1e-6, 0.0, decoupled, 0)  # no step 0
