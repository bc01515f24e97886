"""Checkpoints: model, optimizer and schedule state in one file, written atomically.

A checkpoint is data only, never code: a zip holding `payload.json` (numbers, strings,
lists, dicts) and one `.npy` member per numpy array, which the JSON names; arrays are read
back with `allow_pickle=False`. It is written to a temporary name in the same folder,
flushed to disk, then renamed, so a process killed at any moment leaves either the previous
files or the complete new one. Loading skips files that fail to read and falls back to the
newest good one (the Learner refuses to resume when none can be read). Checkpoints of
older versions were pickles, which can run code when loaded: they are refused, and
`python -m burn.host.train.checkpoint --trust OLD.ckpt` converts one through a restricted
loader that admits only numpy arrays and plain data, so a hostile file runs nothing.
"""

import io
import json
import os
import re
import sys
import zipfile

import numpy as np

import burn

from ..atomic import remove_stale_temporaries, write_bytes_atomic
from ..convert import to_numpy, to_tensor
from ..npy_file import NpyFileError, read_npy_bytes

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


_JSON = "payload.json"
_PICKLE = "it is a pickle (the format of older versions), which can run code when loaded"


def _encode(value, arrays):
    """`value` as JSON data; numpy arrays go to `arrays` and are named in their place."""
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {k: _encode(v, arrays) for k, v in value.items()}
        return {"__items__": [[_encode(k, arrays), _encode(v, arrays)]
                              for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        return [_encode(v, arrays) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    array = to_numpy(value) if not isinstance(value, np.ndarray) else value
    name = "a%d.npy" % len(arrays)
    arrays[name] = array
    return {"__array__": name}


def _decode(value, arrays):
    if isinstance(value, list):
        return [_decode(v, arrays) for v in value]
    if not isinstance(value, dict):
        return value
    if "__array__" in value:
        return arrays[value["__array__"]]
    if "__items__" in value:
        return {_decode(k, arrays): _decode(v, arrays) for k, v in value["__items__"]}
    return {k: _decode(v, arrays) for k, v in value.items()}


def encode(payload):
    """The bytes of a checkpoint file holding `payload` (plain data and numpy arrays)."""
    arrays = {}
    doc = json.dumps(_encode(payload, arrays))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        z.writestr(_JSON, doc)
        for name, array in arrays.items():
            member = io.BytesIO()
            np.lib.format.write_array(member, np.asarray(array),
                                      allow_pickle=False)
            z.writestr(name, member.getvalue())
    return out.getvalue()


def decode(data):
    """The payload of checkpoint bytes; ValueError for anything else (a pickle included:
    it is refused, never loaded)."""
    if data[:1] == b"\x80":
        raise ValueError(_PICKLE + "; convert it with `python -m burn.host.train.checkpoint "
                         "--trust FILE` (a restricted loader: numpy arrays and plain data)")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            doc = json.loads(z.read(_JSON))
            # each member's header is checked against its bytes before numpy allocates
            arrays = {name: read_npy_bytes(z.read(name), "member " + repr(name)[:80])
                      for name in z.namelist() if name != _JSON}
        return _decode(doc, arrays)
    except NpyFileError as e:
        raise ValueError("not a burn checkpoint (%s)" % e) from None
    except RecursionError:  # json's or _decode's, on a document nested thousands deep
        raise ValueError("not a burn checkpoint (%s nests too deeply)" % _JSON) from None
    except (zipfile.BadZipFile, KeyError, ValueError, TypeError, OSError, EOFError) as e:
        raise ValueError("not a burn checkpoint (%s)" % type(e).__name__) from None


def write_atomic(path, payload):
    """Write `payload` as a checkpoint file at `path`, atomically."""
    write_bytes_atomic(path, encode(payload))


# What resuming a run reads from its checkpoint (`snapshot`).
RESUME_KEYS = ("model", "optimizer", "schedule", "epoch", "epoch_finished", "history",
               "best_score")


def read(path, keys=("model",)):
    """The payload of one checkpoint file, which must hold `keys`; ValueError if it is
    unreadable or lacks one."""
    try:
        with open(path, "rb") as f:
            payload = decode(f.read())
    except (OSError, ValueError) as e:
        raise ValueError("%s: unreadable checkpoint: %s" % (path, e)) from None
    if not isinstance(payload, dict) or "model" not in payload:
        raise ValueError(str(path) + ": not a burn checkpoint")
    missing = [k for k in keys if k not in payload]
    if missing:
        raise ValueError("%s: not a checkpoint to resume from: it has no %s" % (
            path, ", ".join(missing)))
    return payload


class CheckpointDir:
    """The checkpoints of one run: `epoch-NNNN.ckpt` files plus `best.ckpt`."""

    def __init__(self, folder, keep_last=3):
        self.folder = folder
        self.keep_last = keep_last
        os.makedirs(folder, exist_ok=True)
        remove_stale_temporaries(folder)  # left by a run killed while writing

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

    def newest(self):
        """(payload of the newest readable epoch checkpoint that a run can resume from, or
        None; the reasons why each newer one could not be read)."""
        skipped = []
        for epoch in reversed(self.epochs()):
            try:
                return read(self.path(epoch), RESUME_KEYS), skipped
            except ValueError as e:
                skipped.append(str(e))
        return None, skipped

    def latest(self):
        """The newest readable checkpoint's payload, or None when there is none."""
        return self.newest()[0]

    def best(self):
        """The payload of best.ckpt, or None."""
        path = os.path.join(self.folder, BEST)
        return read(path) if os.path.exists(path) else None


def snapshot(model, optimizer, schedule, epoch, history, best_score, finished, rng=None):
    """The plain-data payload of a checkpoint; `rng` is the random-number state
    (`rng_state.capture`) a resumed run continues from."""
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
        "rng": rng,
    }


def convert_trusted_pickle(path, out=None):
    """Rewrite an older, pickled checkpoint in the data-only format. The pickle is read by a
    restricted loader that admits only numpy arrays, numpy scalars and plain data
    (`pickled_checkpoint`), so a file that tries to run code or to change a numpy object
    is refused (ValueError), nothing runs and nothing is written."""
    from .pickled_checkpoint import read as read_pickled

    with open(path, "rb") as f:
        payload = read_pickled(f)
    write_atomic(out or path, payload)


def main(argv=None):
    """`python -m burn.host.train.checkpoint --trust OLD.ckpt [NEW.ckpt]`."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] != "--trust" or len(args) not in (2, 3):
        print("usage: python -m burn.host.train.checkpoint --trust OLD.ckpt [NEW.ckpt]\n"
              "Converts a pickled checkpoint of an older burn to the data-only format. The "
              "pickle is read by a loader that admits only numpy arrays and plain data.",
              file=sys.stderr)
        return 2
    try:
        convert_trusted_pickle(*args[1:])
    except (OSError, ValueError) as e:
        print("error: %s: %s" % (args[1], e), file=sys.stderr)
        return 1
    print("converted %s" % (args[-1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
