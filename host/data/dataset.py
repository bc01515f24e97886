"""Datasets: indexable collections of (input, label) samples."""

import numpy as np


class Dataset:
    """Base class: `len(ds)` samples, `ds[i]` -> (input ndarray, label)."""

    def __len__(self):
        raise NotImplementedError

    def __getitem__(self, i):
        raise NotImplementedError


class ArrayDataset(Dataset):
    """Samples from parallel arrays `x` [N, ...] and `y` [N], with an optional transform
    applied to each input as it is read."""

    def __init__(self, x, y, transform=None):
        x = np.asarray(x)
        y = np.asarray(y)
        if len(x) != len(y):
            raise ValueError("ArrayDataset: " + str(len(x)) + " inputs but " + str(len(y)) +
                             " labels")
        self.x = x
        self.y = y
        self.transform = transform

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        x = self.x[i]
        return (self.transform(x) if self.transform else x), self.y[i]

    def batch(self, indices):
        """Stacked inputs and labels for `indices` (fast path used by DataLoader)."""
        x = self.x[indices]
        if self.transform:
            x = np.stack([self.transform(v) for v in x])
        return x, self.y[indices]


class Subset(Dataset):
    """The samples of `dataset` at `indices`."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = np.asarray(indices, dtype=np.int64)

    def __len__(self):
        return len(self.indices)

    def __getitem__(self, i):
        return self.dataset[int(self.indices[i])]

    def batch(self, indices):
        """Stacked samples, delegating to the parent's fast path when it has one."""
        picked = self.indices[indices]
        if hasattr(self.dataset, "batch"):
            return self.dataset.batch(picked)
        return _stack([self.dataset[int(i)] for i in picked])


def random_split(dataset, fractions, seed=0):
    """Split into Subsets of the given fractions (summing to 1) with a seeded shuffle."""
    if abs(sum(fractions) - 1.0) > 1e-6 or any(f < 0 for f in fractions):
        raise ValueError("random_split: fractions must be >= 0 and sum to 1, got " +
                         repr(list(fractions)))
    n = len(dataset)
    order = np.random.default_rng(seed).permutation(n)
    sizes = [round(f * n) for f in fractions]
    sizes[-1] = n - sum(sizes[:-1])
    out, start = [], 0
    for size in sizes:
        out.append(Subset(dataset, order[start:start + size]))
        start += size
    return out


def _stack(samples):
    xs, ys = zip(*samples)
    return np.stack(xs), np.asarray(ys)
