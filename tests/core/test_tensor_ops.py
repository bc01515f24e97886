"""Composite ops on small inputs, against formulas evaluated here with `math`."""

import math

from checks import assert_close, assert_message

import burn

X = [[-2.0, -0.5, 0.0, 0.5, 3.0], [1.0, 2.0, 3.0, 4.0, 5.0]]


def _erf_gelu(v):
    return 0.5 * v * (1 + math.erf(v / math.sqrt(2)))


def _tanh_gelu(v):
    return 0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))


def test_activations():
    x = burn.tensor(X)
    rows = X
    table = ((burn.relu6(x * 3), lambda v: min(max(3 * v, 0.0), 6.0)),
             (burn.leaky_relu(x, 0.1), lambda v: v if v > 0 else 0.1 * v),
             (burn.gelu(x), _erf_gelu), (x.gelu("tanh"), _tanh_gelu),
             (burn.silu(x), lambda v: v / (1 + math.exp(-v))),
             (burn.sigmoid(x), lambda v: 1 / (1 + math.exp(-v))), (burn.tanh(x), math.tanh),
             (burn.relu(x), lambda v: max(v, 0.0)))
    for got, fn in table:
        assert_close(got.tolist(), [[fn(v) for v in r] for r in rows], 1e-5)
    assert_message(ValueError, "gelu: approximate must be 'none' or 'tanh', got 'fast'",
                   burn.gelu, x, "fast")


def test_softmax_and_log_softmax_are_stable():
    x = burn.tensor([[1000.0, 1001.0, 1002.0], [-5.0, 0.0, 5.0]])
    rows = [[0.0, 1.0, 2.0], [-5.0, 0.0, 5.0]]
    expected = []
    for r in rows:
        e = [math.exp(v - max(r)) for v in r]
        expected.append([v / sum(e) for v in e])
    assert_close(burn.softmax(x, 1).tolist(), expected, 1e-6)
    assert_close(x.log_softmax(-1).tolist(), [[math.log(v) for v in r] for r in expected], 1e-5)
    cols = burn.softmax(x, 0).sum(0).tolist()
    assert_close(cols, [1.0, 1.0, 1.0])
    assert_message(TypeError, "softmax: needs a float tensor, got burn.int32; use .float()",
                   burn.softmax, burn.tensor([1]), 0)


def test_conv2d_small_case_by_hand():
    x = burn.arange(16).float().reshape(1, 1, 4, 4)
    w = burn.ones((1, 1, 2, 2))
    y = burn.conv2d(x, w, burn.tensor([0.5]), stride=2)
    assert y.tolist() == [[[[0 + 1 + 4 + 5 + 0.5, 2 + 3 + 6 + 7 + 0.5],
                            [8 + 9 + 12 + 13 + 0.5, 10 + 11 + 14 + 15 + 0.5]]]]
    assert burn.conv2d(x, burn.ones((3, 1, 3, 3)), padding="same").shape == (1, 3, 4, 4)
    assert burn.conv2d(x[0], w).shape == (1, 3, 3)  # unbatched input
    assert_message(ValueError, "conv2d: padding='same' needs stride 1, got (2, 2)",
                   burn.conv2d, x, w, None, 2, "same")
    assert_message(ValueError, "conv2d: weight of shape (1, 2, 2, 2) expects 2 input channels,"
                   " got input of shape (1, 1, 4, 4)", burn.conv2d, x, burn.ones((1, 2, 2, 2)))
    assert_message(ValueError, "conv2d: input of shape (1, 1, 4, 4) is too small for a (5, 5) "
                   "window (output would be (0, 0))", burn.conv2d, x, burn.ones((1, 1, 5, 5)))


def test_pools_small_case_by_hand():
    x = burn.arange(16).float().reshape(1, 1, 4, 4)
    assert burn.max_pool2d(x, 2).tolist() == [[[[5.0, 7.0], [13.0, 15.0]]]]
    assert burn.avg_pool2d(x, 2).tolist() == [[[[2.5, 4.5], [10.5, 12.5]]]]
    assert burn.max_pool2d(x, 3, 2, ceil_mode=True).shape == (1, 1, 2, 2)
    assert burn.adaptive_avg_pool2d(x, 1).tolist() == [[[[7.5]]]]
    assert burn.adaptive_avg_pool2d(x, (3, 3)).shape == (1, 1, 3, 3)
    assert_message(ValueError, "max_pool2d: padding 2 must be between 0 and half the kernel "
                   "size (3, 3)", burn.max_pool2d, x, 3, 1, 2)


def test_linear_norms_embedding_dropout():
    x = burn.tensor([[1.0, 2.0, 3.0]])
    w = burn.tensor([[1.0, 0.0, -1.0], [0.5, 0.5, 0.5]])
    assert burn.linear(x, w, burn.tensor([1.0, 0.0])).tolist() == [[-1.0, 3.0]]
    ln = burn.layer_norm(x, 3).tolist()[0]
    s = math.sqrt(2 / 3 + 1e-5)
    assert_close(ln, [-1 / s, 0.0, 1 / s], 1e-5)
    bn = burn.batch_norm(x.reshape(1, 3, 1), burn.tensor([1.0, 1.0, 1.0]),
                         burn.tensor([4.0, 4.0, 4.0]), eps=0.0)
    assert_close(bn.reshape(3).tolist(), [0.0, 0.5, 1.0])
    emb = burn.embedding(burn.tensor([[1, 0]]), w)
    assert emb.shape == (1, 2, 3) and emb.tolist()[0][0] == [0.5, 0.5, 0.5]
    assert burn.dropout(x, 0.5, training=False) is x
    burn.seed(5)
    d = burn.dropout(burn.ones((200,)), 0.25).tolist()
    assert set(d) <= {0.0, burn.tensor(1.0 / 0.75).item()}
    assert 20 < d.count(0.0) < 80
    assert_message(ValueError, "linear: input of shape (1, 3) does not match weight of shape "
                   "(3, 2) (expects [..., in] and [out, in])", burn.linear, x, w.T)
