"""Calibration: run the float model on sample inputs and record the range of every value.

The model's forward runs in eval mode, recorded as when it was traced, so each graph value
is observed exactly as the float model computes it; the range of a value is taken from the
last recorded op that writes it (a convolution's output after its folded BatchNorm and
fused ReLU). Ranges come from the min/max over all samples
or, with `method="percentile"`, from the `percentile` / `100 - percentile` percentiles,
which ignores rare outliers at the price of clipping them.
"""

import numpy as np

from ..convert import to_numpy
from .record import ExportError, record

METHODS = ("minmax", "percentile")


def as_batches(calibration, max_samples=None):
    """Float32 numpy batches [N, ...] from an array, a list of arrays or tensors, or an
    iterable of batches (a DataLoader: the first element of each (inputs, labels) pair)."""
    if isinstance(calibration, np.ndarray):
        source = [calibration]
    elif isinstance(calibration, (list, tuple)) and calibration and \
            isinstance(calibration[0], (int, float)):
        raise TypeError("calibration: expected a batch [N, ...], got a list of numbers")
    else:
        source = calibration
    batches, count = [], 0
    for item in source:
        x = item[0] if isinstance(item, (tuple, list)) else item
        x = x if isinstance(x, np.ndarray) else to_numpy(x)
        x = np.asarray(x, dtype=np.float32)
        if max_samples is not None:
            x = x[:max_samples - count]
        if len(x):
            batches.append(x)
            count += len(x)
        if max_samples is not None and count >= max_samples:
            break
    if not batches:
        raise ValueError("calibration: no samples")
    shapes = {b.shape[1:] for b in batches}
    if len(shapes) != 1:
        raise ValueError("calibration: batches of different sample shapes %s"
                         % sorted(shapes))
    return batches


def observe(model, trace, batches, method="minmax", percentile=99.99, progress=None):
    """{value index: (lo, hi)} of every traced value over the calibration batches."""
    if method not in METHODS:
        raise ValueError("calibration method must be one of %s, got %r" % (METHODS, method))
    if method == "percentile" and not 50.0 < percentile <= 100.0:
        raise ValueError("percentile must be in (50, 100], got %r" % (percentile,))
    extremes = {}
    samples = {}
    for k, xb in enumerate(batches):
        if progress:
            progress("calibration batch %d/%d" % (k + 1, len(batches)))
        nodes, _out = record(model, xb, {v.node for v in trace.values})
        if len(nodes) != trace.nodes:
            raise ExportError("the model's forward ran %d ops on calibration batch %d but %d "
                              "when traced; export needs the same ops for every input"
                              % (len(nodes), k + 1, trace.nodes))
        for v in trace.values:
            _record(extremes, samples, v.index, nodes[v.node].value, method)
    if method == "minmax":
        return extremes
    return {v: _percentile_range(np.concatenate(parts), percentile)
            for v, parts in samples.items()}


def _record(extremes, samples, value, a, method):
    if not np.all(np.isfinite(a)):
        raise ValueError("calibration: value %d holds NaN or infinity" % value)
    if method == "minmax":
        lo, hi = float(a.min()), float(a.max())
        old = extremes.get(value)
        extremes[value] = (lo, hi) if old is None else (min(old[0], lo), max(old[1], hi))
    else:
        samples.setdefault(value, []).append(a.reshape(-1))


def _percentile_range(values, percentile):
    lo, hi = np.percentile(values, [100.0 - percentile, percentile])
    return float(lo), float(hi)
