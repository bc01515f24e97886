"""Where burn finds its own non-Python trees at run time.

The host tools read four folders of the project that are not Python packages: `flex_c`
(the C kernels, for cross builds, the native module and the firmware), `micropython` (the
burnflex bindings), `firmware` (the frozen manifest and board folders) and `boards` (the
board descriptions). Run from a source checkout or an editable install, they are the
checkout's folders. A wheel carries a copy of each under `burn/host/_project/`, made by
setup.py's build step with `source_files`, and an installed burn reads that copy.

This module needs nothing beyond the standard library: setup.py loads it by path.
"""

import os
from pathlib import Path

TREES = ("flex_c", "micropython", "firmware", "boards")
SHIPPED = "_project"  # the folder inside burn/host/ that holds the wheel's copies
_HERE = Path(__file__).resolve().parent
# Build outputs and caches, never sources: not shipped, not part of any build key.
_SKIP_DIRS = ("__pycache__", ".pytest_cache")
_SKIP_SUFFIXES = (".pyc", ".so", ".o", ".a", ".mpy", ".tmp")


def checkout_root(here=_HERE):
    """The source checkout that the package folder `here` (burn.host's) lies in, or None
    when burn runs from an installed wheel (or any other build of the package)."""
    root = here.parent
    if here.name == "host" and (root / "setup.py").is_file() and (root / "core").is_dir():
        return root
    return None


def tree(name, here=_HERE):
    """Folder of the project tree `name` (one of TREES): the checkout's, else the copy
    shipped in the package. ValueError for a name that is not a project tree."""
    if name not in TREES:
        raise ValueError("unknown project tree %r; known: %s" % (name, ", ".join(TREES)))
    root = checkout_root(here)
    return root / name if root is not None else here / SHIPPED / name


def source_files(folder, suffixes=None):
    """Paths relative to `folder` of its source files, sorted: build outputs (folders named
    build*, caches, objects, libraries, .mpy) are left out; `suffixes` keeps only those."""
    out = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("build"))
        for name in names:
            if name.endswith(_SKIP_SUFFIXES) or (suffixes and not name.endswith(suffixes)):
                continue
            out.append(os.path.relpath(os.path.join(root, name), folder))
    return sorted(out)


def core_files(core):
    """Paths relative to `core` of the .py files of the core package `burn` in folder
    `core`, sorted. An installed burn keeps burn.host inside that folder: it is left out."""
    return [rel for rel in source_files(core, (".py",)) if Path(rel).parts[0] != "host"]
