"""`.bst` models for the flashing, REPL and fault tests: seeded `burn.nn` models quantized to
int8 by `burn.host.export` with seeded random calibration data."""

import numpy as np

import burn
from burn import nn
from burn.host.bst_writer import write_bst
from burn.host.export import add_reference_tests, quantize


def _export(path, layers, sample_shape, tests=3, tweak=None):
    burn.seed(0)
    model = nn.Sequential(*layers)
    samples = np.random.default_rng(0).random((8,) + sample_shape, dtype=np.float32)
    graph = quantize(model, samples, tests=tests)
    if tweak is not None:
        tweak(graph)
    write_bst(graph, path)
    return str(path)


def _change_one_weight(graph):
    w = graph.ops[0].consts["w"]
    flat = w.reshape(-1)
    flat[0] = flat[0] - 1 if flat[0] > -127 else flat[0] + 1
    samples = np.random.default_rng(0).random((3, 1, 8, 8), dtype=np.float32)
    add_reference_tests(graph, samples)


def _corrupt_reference(graph):
    out = graph.tests[0][1][0]
    out.reshape(-1)[0] = out.reshape(-1)[0] + 1 if out.reshape(-1)[0] < 127 else -128


def small(path, variant=None):
    """A small CNN on 8x8 images (about 7 KB). `variant`: "one-weight" changes one int8
    weight (and its reference outputs), "bad-reference" corrupts a reference output."""
    tweak = {None: None, "one-weight": _change_one_weight,
             "bad-reference": _corrupt_reference}[variant]
    return _export(path, [nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(8 * 4 * 4, 10)], (1, 8, 8), tweak=tweak)


def medium(path, variant=None):
    """A perceptron of about 17 KB of int8 weights (five 4 KB flash blocks). `variant`
    "one-weight" changes one weight (and its reference outputs): the same size, other
    bytes."""
    tweak = {None: None, "one-weight": _change_one_weight}[variant]
    return _export(path, [nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64),
                          nn.ReLU(), nn.Linear(64, 10)], (1, 8, 8), tweak=tweak)


def big(path):
    """A perceptron of about 26 KB of int8 weights in layers of at most 13 KB: a transfer
    long enough to cut (seven 4 KB blocks), a model the RP2040's heap holds and the flash
    that burn's files (as a stock firmware gets them, a 4 KB block or more each) leave
    free."""
    layers = [nn.Flatten(), nn.Linear(64, 192), nn.ReLU(), nn.Linear(192, 64), nn.ReLU(),
              nn.Linear(64, 10)]
    return _export(path, layers, (1, 8, 8), tests=1)


def wide(path, side):
    """A 1x1 convolution to 16 channels on a side x side image: an arena of about
    16 * side * side bytes with tiny weights."""
    return _export(path, [nn.Conv2d(1, 16, 1), nn.ReLU()], (1, side, side), tests=1)


def huge(path):
    """24 layers of 256x256 int8 weights: 1.5 MB, more than an RP2040's filesystem."""
    layers = [nn.Flatten(), nn.Linear(64, 256)]
    for _ in range(23):
        layers += [nn.ReLU(), nn.Linear(256, 256)]
    return _export(path, layers, (1, 8, 8), tests=0)
