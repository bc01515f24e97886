"""Fuzz of the two readers built on the restricted unpickler: the PyTorch checkpoint reader
and the converter of old pickled burn checkpoints. Five kinds of case:

- torch: a bit-flipped, overwritten or truncated copy of a real PyTorch checkpoint;
- rezip: a zip checkpoint whose data.pkl is damaged and re-zipped (so the CRC holds and the
  unpickler sees the damage);
- old: a damaged copy of a real pickled burn checkpoint, converted (read, then encoded);
- crafted_torch / crafted_old: a random well-formed opcode stream (hostile_pickles) that
  calls the reader's admitted globals with random arguments and sets the state of what it
  holds, as a zip checkpoint's data.pkl or as an old checkpoint.

Every case must end in a read or a CheckpointError, and after each one every genuine file
must read exactly as it did at the start (a hostile file must not change anything shared).
Anything else is printed. Run it in a subprocess: a crash shows as its exit status. Prints
a JSON line of counts.

    python checkpoint_fuzz.py --cases 600 --seed 1 --old old.ckpt model.pt legacy.pt
"""

import argparse
import faulthandler
import io
import json
import random
import resource
import signal
import sys
import time
import traceback
import zipfile

import hostile_pickles
import numpy as np

from burn.host.importers.torch_checkpoint import read_bytes
from burn.host.importers.torch_pickle import CheckpointError
from burn.host.train import checkpoint, pickled_checkpoint

CASE_SECONDS = 5
MEMORY = 2 << 30  # address space of this process: a reader that allocates wildly fails here


def _damage(data, rng):
    data = bytearray(data)
    how = rng.choice(("flip", "overwrite", "truncate"))
    if how == "truncate":
        return bytes(data[:rng.randrange(len(data))])
    if how == "flip":
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
        return bytes(data)
    i = rng.randrange(len(data))
    data[i:i + rng.randint(1, 8)] = bytes(rng.randrange(256) for _ in range(8))
    return bytes(data)


def _zipped(pkl, storages=(("0", 64),)):
    """A zip checkpoint whose archive/data.pkl is `pkl`, with zero-filled storages."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("archive/data.pkl", pkl)
        for key, size in storages:
            z.writestr("archive/data/" + key, bytes(size))
    return out.getvalue()


def _rezipped(data, rng):
    """The zip checkpoint `data` with its data.pkl damaged, written back with a good CRC."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            body = src.read(info)
            if info.filename.endswith("/data.pkl"):
                body = _damage(body, rng)
            dst.writestr(info.filename, body)
    return out.getvalue()


def _convert(data):
    """What the converter does with an old checkpoint's bytes, short of writing the file."""
    return checkpoint.encode(pickled_checkpoint.read(io.BytesIO(data)))


_TORCH = hostile_pickles.TORCH_GLOBALS + hostile_pickles.SHARED_GLOBALS
_OLD = hostile_pickles.NUMPY_GLOBALS + hostile_pickles.SHARED_GLOBALS


def _case(kind, rng, torch_files, old_files):
    """(reader, bytes) of one case of `kind`."""
    if kind == "torch":
        return read_bytes, _damage(rng.choice(torch_files), rng)
    if kind == "rezip":
        return read_bytes, _rezipped(rng.choice([f for f in torch_files if f[:2] == b"PK"]),
                                     rng)
    if kind == "old":
        return _convert, _damage(rng.choice(old_files), rng)
    if kind == "crafted_torch":
        return read_bytes, _zipped(hostile_pickles.random_pickle(rng, _TORCH))
    return _convert, hostile_pickles.random_pickle(rng, _OLD)


def _fingerprint(value):
    """A comparable digest of what a reader returned: every array's dtype, shape and bytes
    and every other value's repr, in order."""
    if isinstance(value, dict):
        return [("dict", _fingerprint(k), _fingerprint(v)) for k, v in value.items()]
    if isinstance(value, (list, tuple)):
        return [type(value).__name__] + [_fingerprint(v) for v in value]
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    return repr(value)


def _reads_as(read, data, want):
    """Whether the genuine `data` still reads to the fingerprint `want`."""
    if isinstance(data, io.BytesIO):
        data.seek(0)
    try:
        return _fingerprint(read(data)) == want
    except Exception:  # a genuine file that no longer reads has been changed too
        return False


def _kinds(torch_files, old_files):
    kinds = []
    if torch_files:
        kinds += ["torch", "crafted_torch"]
        if any(f[:2] == b"PK" for f in torch_files):
            kinds.append("rezip")
    if old_files:
        kinds += ["old", "crafted_old"]
    return kinds


def _timeout(signum, frame):
    raise TimeoutError


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="*", help="PyTorch checkpoints (zip or legacy)")
    p.add_argument("--old", action="append", default=[],
                   help="a pickled burn checkpoint of an older version (repeatable)")
    p.add_argument("--cases", type=int, default=600)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    faulthandler.enable()
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    torch_files = [open(f, "rb").read() for f in args.files]
    old_files = [open(f, "rb").read() for f in args.old]
    genuine = [(read_bytes, d) for d in torch_files] + \
        [(pickled_checkpoint.read, io.BytesIO(d)) for d in old_files]
    expected = [_fingerprint(reader(d)) for reader, d in genuine]
    kinds = _kinds(torch_files, old_files)
    counts = {"cases": 0, "read": 0, "clean": 0, "traceback": 0, "hang": 0, "changed": 0,
              "slowest": 0.0, "kinds": dict.fromkeys(kinds, 0)}
    signal.signal(signal.SIGALRM, _timeout)
    start = time.monotonic()
    for case in range(args.cases):
        rng = random.Random(args.seed * 1000003 + case)
        kind = rng.choice(kinds)
        reader, data = _case(kind, rng, torch_files, old_files)
        counts["cases"] += 1
        counts["kinds"][kind] += 1
        signal.alarm(CASE_SECONDS)
        t0 = time.monotonic()
        try:
            reader(data)
            counts["read"] += 1
        except CheckpointError:
            counts["clean"] += 1
        except TimeoutError:
            counts["hang"] += 1
            print("case %d (%s): hang" % (case, kind), file=sys.stderr)
        except Exception:  # the fuzz counts every other exception as a failure
            counts["traceback"] += 1
            print("case %d (%s):\n%s" % (case, kind, traceback.format_exc()), file=sys.stderr)
        finally:
            signal.alarm(0)
            counts["slowest"] = max(counts["slowest"], round(time.monotonic() - t0, 3))
        for (read, d), want in zip(genuine, expected):
            if not _reads_as(read, d, want):
                counts["changed"] += 1
                print("case %d (%s): a genuine file reads differently after it"
                      % (case, kind), file=sys.stderr)
                break
    counts["seconds"] = round(time.monotonic() - start, 2)
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
