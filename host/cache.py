"""The user-level cache of built artefacts: `$BURN_CACHE_DIR`, or `~/.cache/burn`.

Firmware builds, MicroPython source trees, native modules and the emulator live here, each
in a folder keyed by its inputs, so that every checkout and every wheel install shares them.
"""

import contextlib
import fcntl
import os
from pathlib import Path


def cache_dir(*parts):
    """The folder `parts` under the cache root, created if needed."""
    base = os.environ.get("BURN_CACHE_DIR") or Path.home() / ".cache" / "burn"
    folder = Path(base, *parts)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@contextlib.contextmanager
def held_lock(path, waiting=None):
    """Hold an exclusive lock on the file `path` (created if missing) for a `with` block, so
    that one process at a time on this machine fills a cache entry; `waiting()` runs first
    when another process holds it."""
    with open(path, "w") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if waiting is not None:
                waiting()
            fcntl.flock(f, fcntl.LOCK_EX)
        yield
