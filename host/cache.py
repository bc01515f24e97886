"""The user-level cache of built artefacts: `$BURN_CACHE_DIR`, or `~/.cache/burn`.

Firmware builds, MicroPython source trees, native modules and the emulator live here, each
in a folder keyed by its inputs, so that every checkout and every wheel install shares them.
"""

import os
from pathlib import Path


def cache_dir(*parts):
    """The folder `parts` under the cache root, created if needed."""
    base = os.environ.get("BURN_CACHE_DIR") or Path.home() / ".cache" / "burn"
    folder = Path(base, *parts)
    folder.mkdir(parents=True, exist_ok=True)
    return folder
