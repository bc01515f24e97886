"""A small CNN (Conv2d-BatchNorm2d-ReLU-MaxPool2d-Flatten-Linear) end to end, in a file of its
own so that it has a fresh MicroPython heap."""

from nn_util import close

import burn
from burn import nn


def _cnn():
    # small enough for a 192 KB MicroPython heap; tests/oracle compares a larger one to torch
    return nn.Sequential(
        nn.Conv2d(1, 3, 3, padding=1), nn.BatchNorm2d(3), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(3 * 2 * 2, 5),
    )


def test_small_cnn_forward():
    burn.seed(21)
    m = _cnn()
    samples = burn.randn((2, 1, 4, 4)).tolist()
    x = burn.tensor(samples)
    y = m(x)
    assert y.shape == (2, 5)
    assert m[1].num_batches_tracked.item() == 1
    m.eval()
    first = m(x).tolist()
    assert m(x).tolist() == first
    assert m[1].num_batches_tracked.item() == 1
    one = m(burn.tensor(samples[:1])).tolist()
    assert close(one[0], first[0], 1e-5)   # eval output of a sample ignores the batch
    assert sum(p.numel() for p in m.parameters()) == 3 * 9 + 3 + 3 + 3 + 12 * 5 + 5
