"""Index assignment, boolean masks, gather, index_select, scatter and masked_fill (pure
backend) against torch on seeded random shapes, keys and values. CPython only."""

import numpy as np
import torch

import burn

RNG_SEED = 20261206


def _pair(rng, shape):
    a = rng.standard_normal(shape).astype(np.float32)
    return burn.tensor(a.reshape(-1).tolist()).reshape(shape), torch.tensor(a)


def _random_pair(rng):
    """(shape, (burn tensor, torch tensor)) of a random shape of 1 to 3 dims."""
    shape = tuple(int(s) for s in rng.integers(1, 5, size=int(rng.integers(1, 4))))
    return shape, _pair(rng, shape)


def _same(got, want):
    assert got.shape == tuple(want.shape), (got.shape, tuple(want.shape))
    np.testing.assert_array_equal(np.array(got.tolist(), dtype=np.float32).reshape(got.shape),
                                  want.numpy())


def _key(rng, shape):
    """A random key of ints, slices (any step) and None for a tensor of `shape`."""
    key = []
    for d in shape[:int(rng.integers(1, len(shape) + 1))]:
        kind = rng.integers(0, 3)
        if kind == 0:
            key.append(int(rng.integers(-d, d)))
        elif kind == 1:
            a, b = sorted(int(v) for v in rng.integers(-d - 1, d + 2, size=2))
            step = int(rng.choice([1, 2, 3]))
            key.append(slice(a, b, step))
        else:
            key.append(None)
    return tuple(key)


def test_assignment_matches_torch():
    rng = np.random.default_rng(RNG_SEED)
    for _ in range(60):
        shape, (x, tx) = _random_pair(rng)
        key = _key(rng, shape)
        selected = tx[key].shape
        if rng.random() < 0.5:
            value = float(rng.standard_normal())
            x[key] = value
            tx[key] = value
        else:
            vshape = tuple(1 if rng.random() < 0.3 else s for s in selected)
            v, tv = _pair(rng, vshape)
            x[key] = v
            tx[key] = tv
        _same(x, tx)


def test_masks_match_torch():
    rng = np.random.default_rng(RNG_SEED + 1)
    for _ in range(30):
        shape, (x, tx) = _random_pair(rng)
        lead = int(rng.integers(1, len(shape) + 1))
        m = rng.random(shape[:lead]) < 0.5
        mask, tmask = burn.tensor(m.tolist(), dtype=burn.bool), torch.tensor(m)
        _same(x[mask], tx[tmask])
        _same(x[x > 0.3], tx[tx > 0.3])
        _same(x.masked_fill(x < 0, 2.5), tx.masked_fill(tx < 0, 2.5))
        x[mask] = -1.0
        tx[tmask] = -1.0
        _same(x, tx)


def test_gather_index_select_and_scatter_match_torch():
    rng = np.random.default_rng(RNG_SEED + 2)
    for _ in range(40):
        shape, (x, tx) = _random_pair(rng)
        dim = int(rng.integers(-len(shape), len(shape)))
        d = dim % len(shape)
        ishape = tuple(int(rng.integers(1, s + 1)) if k != d else int(rng.integers(1, 5))
                       for k, s in enumerate(shape))
        idx = rng.integers(-shape[d], shape[d], size=ishape)
        i, ti = burn.tensor(idx.tolist()), torch.tensor(idx % shape[d])
        _same(x.gather(dim, i), tx.gather(dim, ti))
        pick = rng.integers(0, shape[d], size=int(rng.integers(1, 6)))
        _same(x.index_select(dim, burn.tensor(pick.tolist())),
              tx.index_select(dim, torch.tensor(pick)))
        # scatter: one write per entry (torch leaves the winner of several unspecified)
        perm = np.stack([rng.permutation(shape[d])[:min(ishape[d], shape[d])]
                         for _ in range(int(np.prod(ishape)) // ishape[d])], -1)
        sidx = np.moveaxis(perm.reshape((perm.shape[0],) + tuple(
            s for k, s in enumerate(ishape) if k != d)), 0, d)
        src, tsrc = _pair(rng, sidx.shape)
        _same(x.scatter(dim, burn.tensor(sidx.tolist()), src),
              tx.scatter(dim, torch.tensor(sidx), tsrc))
