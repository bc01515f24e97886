"""Mutation fuzz of the PyTorch checkpoint reader: bit-flipped, overwritten and truncated
copies of real checkpoints (zip and legacy), and zip checkpoints whose data.pkl is mutated
and re-zipped (so the CRC holds and the unpickler sees the damage). Every case must end in
a read or a CheckpointError; anything else is printed. Prints a JSON line of counts.

    python checkpoint_fuzz.py --cases 240 --seed 1 model.pt legacy.pt
"""

import argparse
import io
import json
import random
import resource
import signal
import sys
import time
import traceback
import zipfile

from burn.host.importers.torch_checkpoint import read_bytes
from burn.host.importers.torch_pickle import CheckpointError

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


def _timeout(signum, frame):
    raise TimeoutError


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="+")
    p.add_argument("--cases", type=int, default=240)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    sources = [open(f, "rb").read() for f in args.files]
    zips = [s for s in sources if s[:2] == b"PK"]
    counts = {"read": 0, "clean": 0, "traceback": 0, "hang": 0, "slowest": 0.0}
    signal.signal(signal.SIGALRM, _timeout)
    start = time.monotonic()
    for case in range(args.cases):
        rng = random.Random(args.seed * 1000003 + case)
        if zips and rng.random() < 0.4:
            data = _rezipped(rng.choice(zips), rng)
        else:
            data = _damage(rng.choice(sources), rng)
        signal.alarm(CASE_SECONDS)
        t0 = time.monotonic()
        try:
            read_bytes(data)
            counts["read"] += 1
        except CheckpointError:
            counts["clean"] += 1
        except TimeoutError:
            counts["hang"] += 1
            print("case %d: hang" % case, file=sys.stderr)
        except Exception:  # the fuzz counts every other exception as a failure
            counts["traceback"] += 1
            print("case %d:\n%s" % (case, traceback.format_exc()), file=sys.stderr)
        finally:
            signal.alarm(0)
            counts["slowest"] = max(counts["slowest"], round(time.monotonic() - t0, 3))
    counts["seconds"] = round(time.monotonic() - start, 2)
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
