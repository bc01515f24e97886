"""Checkpoints: model, optimizer and schedule state in one file, written atomically.

A checkpoint is a pickle of plain data (numpy arrays, numbers, strings). It is written to a
temporary name in the same folder, flushed to disk, then renamed, so a process killed at
any moment leaves either the previous files or the complete new one. Loading skips files
that fail to read and falls back to the newest good one.
"""

import os
import pickle
import re

import numpy as np

import burn

from ..atomic import write_bytes_atomic
from ..convert import to_numpy, to_tensor

_NAME = re.compile(r"^epoch-(\d+)\.ckpt$")
BEST = "best.ckpt"


def model_state(model):
    """The model's state_dict as numpy arrays."""
    return {k: to_numpy(v) for k, v in model.state_dict().items()}


def load_model_state(model, state):
    """Load numpy arrays (from `model_state`) into `model`, keeping its device."""
    current = model.state_dict()
    converted = {}
    for key, value in state.items():
        like = current.get(key)
        t = to_tensor(np.asarray(value))
        converted[key] = t.to(like.device) if like is not None else t
    model.load_state_dict(converted)


def write_atomic(path, payload):
    """Pickle `payload` to `path` atomically."""
    write_bytes_atomic(path, pickle.dumps(payload, protocol=4))


def read(path):
    """The payload of one checkpoint file; ValueError if it is unreadable."""
    try:
        with open(path, "rb") as f:
            payload = pickle.load(f)
    except Exception as e:
        raise ValueError(str(path) + ": unreadable checkpoint (" + type(e).__name__ + ")") from e
    if not isinstance(payload, dict) or "model" not in payload:
        raise ValueError(str(path) + ": not a burn checkpoint")
    return payload


class CheckpointDir:
    """The checkpoints of one run: `epoch-NNNN.ckpt` files plus `best.ckpt`."""

    def __init__(self, folder, keep_last=3):
        self.folder = folder
        self.keep_last = keep_last
        os.makedirs(folder, exist_ok=True)

    def epochs(self):
        """Epoch numbers of the saved checkpoints, oldest first."""
        found = []
        for name in os.listdir(self.folder):
            m = _NAME.match(name)
            if m:
                found.append(int(m.group(1)))
        return sorted(found)

    def path(self, epoch):
        """File name of the checkpoint of `epoch`."""
        return os.path.join(self.folder, "epoch-%04d.ckpt" % epoch)

    def save(self, epoch, payload, best=False):
        """Write the checkpoint of `epoch` (and best.ckpt), then prune old ones."""
        write_atomic(self.path(epoch), payload)
        if best:
            write_atomic(os.path.join(self.folder, BEST), payload)
        for old in self.epochs()[:-self.keep_last] if self.keep_last else []:
            os.unlink(self.path(old))

    def latest(self):
        """The newest readable checkpoint's payload, or None when there is none."""
        for epoch in reversed(self.epochs()):
            try:
                return read(self.path(epoch))
            except ValueError:
                continue
        return None

    def best(self):
        """The payload of best.ckpt, or None."""
        path = os.path.join(self.folder, BEST)
        return read(path) if os.path.exists(path) else None


def snapshot(model, optimizer, schedule, epoch, history, best_score, finished):
    """The plain-data payload of a checkpoint."""
    return {
        "format": "burn-checkpoint-1",
        "burn_version": burn.__version__,
        "model": model_state(model),
        "optimizer": optimizer.state_dict() if optimizer is not None else None,
        "schedule": schedule.state_dict() if schedule is not None else None,
        "epoch": epoch,
        "epoch_finished": finished,
        "history": history,
        "best_score": best_score,
    }
