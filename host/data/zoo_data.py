"""Training data of the shapes the zoo models take (`burn.host.zoo.INPUT_SHAPES`), built from
the digits set or drawn at random, for `burn train` and the benchmarks.

Two sources, each split 0.8/0.2 with seed 0:

- `digits`: the 8x8 handwritten digits, 10 classes, reshaped to the model's input. ResNet-8
  gets each pixel repeated 4x4 (32x32) with the gray level in all three channels,
  MobileNetV1 the same at 12x12 (96x96); DS-CNN gets rows stretched 8 -> 49 and columns
  8 -> 10 by nearest neighbour ([1, 49, 10], like an MFCC map); the autoencoder gets the 64
  pixels tiled ten times (640 features) and learns to reproduce them.
- `synthetic`: for class k, a fixed random pattern of the model's shape (constant over 4x4
  blocks) under Gaussian noise six times as strong (the autoencoder reconstructs rank-8
  data). It has the right shape and a learnable rule, and nothing else: no accuracy on it
  means anything about the reference tasks.
"""

import numpy as np

from ..zoo import INPUT_SHAPES
from .dataset import ArrayDataset, random_split
from .sources import load_digits

SOURCES = ("digits", "synthetic")
CLASSES = 10
SYNTHETIC_SAMPLES = 1797  # as many as the digits
NOISE = 6.0  # noise std over the patterns' 1: hard enough that float and int8 can differ


def _stretch(x, shape):
    """Nearest-neighbour resize of [N, 1, 8, 8] images to [N, C, H, W] = `shape`."""
    c, h, w = shape
    rows = np.arange(h) * x.shape[2] // h
    cols = np.arange(w) * x.shape[3] // w
    return np.repeat(x[:, :, rows][:, :, :, cols], c, axis=1)


def _from_digits(name):
    d = load_digits()
    x, y = d.x, d.y
    shape = INPUT_SHAPES[name]
    if name == "autoencoder":
        flat = np.tile(x.reshape(len(x), -1), shape[0] // 64)
        return flat, flat
    return _stretch(x, shape), y


def _synthetic(name, seed=0):
    rng = np.random.default_rng(seed)
    shape = INPUT_SHAPES[name]
    if name == "autoencoder":
        basis = rng.standard_normal((8, shape[0])) / np.sqrt(8)
        x = rng.standard_normal((SYNTHETIC_SAMPLES, 8)) @ basis
        return x, x
    c, h, w = shape
    coarse = rng.standard_normal((CLASSES, c, -(-h // 4), -(-w // 4))).astype(np.float32)
    patterns = np.repeat(np.repeat(coarse, 4, axis=2), 4, axis=3)[:, :, :h, :w]
    y = rng.integers(0, CLASSES, SYNTHETIC_SAMPLES)
    noise = rng.standard_normal((SYNTHETIC_SAMPLES,) + shape, dtype=np.float32)
    return patterns[y] + NOISE * noise, y


def zoo_data(name, source="digits", limit=None):
    """(train, valid) ArrayDatasets for the zoo model `name` from `source` ('digits' or
    'synthetic'): float32 inputs of the model's shape with int64 labels, or the inputs
    themselves as float32 targets for the autoencoder. `limit` keeps the first `limit`
    training samples and a quarter as many validation samples (quick runs)."""
    if name not in INPUT_SHAPES:
        raise ValueError("no zoo model %r; choose from %s" % (name, ", ".join(INPUT_SHAPES)))
    if source not in SOURCES:
        raise ValueError("data %r: choose from %s" % (source, ", ".join(SOURCES)))
    if limit is not None and limit < 4:
        raise ValueError("limit must be >= 4 samples, got %r" % (limit,))
    x, y = _from_digits(name) if source == "digits" else _synthetic(name)
    x = x.astype(np.float32)
    y = y.astype(np.float32) if name == "autoencoder" else y.astype(np.int64)
    parts = []
    for part, cap in zip(random_split(ArrayDataset(x, y), [0.8, 0.2], seed=0),
                         (limit, None if limit is None else max(1, limit // 4))):
        xs, ys = part.batch(np.arange(len(part) if cap is None else min(cap, len(part))))
        parts.append(ArrayDataset(xs, ys))
    return tuple(parts)
