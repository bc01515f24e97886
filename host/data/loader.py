"""DataLoader: batches of burn tensors with seeded shuffling."""

import numpy as np

from ..convert import to_tensor
from .dataset import _stack


class DataLoader:
    """Iterate over `dataset` in batches of (inputs, labels) burn tensors on `device`.

    With `shuffle`, each epoch uses a new permutation drawn from a generator seeded with
    `seed`, so a run is reproducible and a resumed run can skip to its epoch
    (`set_epoch`); `state_dict()` / `load_state_dict()` carry the seed and epoch through a
    checkpoint.
    """

    def __init__(self, dataset, batch_size=32, shuffle=False, seed=0, drop_last=False,
                 device=None):
        if batch_size < 1:
            raise ValueError("DataLoader: batch_size must be >= 1, got " + repr(batch_size))
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.seed = seed
        self.drop_last = drop_last
        self.device = device
        self.epoch = 0

    def set_epoch(self, epoch):
        """Use the permutation of epoch `epoch` on the next iteration."""
        self.epoch = epoch

    def state_dict(self):
        """The shuffling state: the seed and the epoch whose permutation comes next."""
        return {"seed": self.seed, "epoch": self.epoch}

    def load_state_dict(self, state):
        """Shuffle on as the loader whose `state_dict` this is (a resumed run shuffles as
        the run it continues)."""
        if not isinstance(state, dict) or \
                not all(type(state.get(k)) is int for k in ("seed", "epoch")):
            raise ValueError("DataLoader.load_state_dict: expected {'seed': int, 'epoch': "
                             "int}, got %.80r" % (state,))
        self.seed, self.epoch = state["seed"], state["epoch"]

    def __len__(self):
        n = len(self.dataset)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            order = np.random.default_rng((self.seed, self.epoch)).permutation(n)
        else:
            order = np.arange(n)
        self.epoch += 1
        for b in range(len(self)):
            idx = order[b * self.batch_size:(b + 1) * self.batch_size]
            if hasattr(self.dataset, "batch"):
                x, y = self.dataset.batch(idx)
            else:
                x, y = _stack([self.dataset[int(i)] for i in idx])
            yield to_tensor(x, self.device), to_tensor(y, self.device)
