"""The inputs of a firmware build and the cache key made from them: the core's .py files,
the flex C module (micropython/, flex_c/), firmware/, the board description, MicroPython's
version and the compiler's version. Same inputs, same key, same cached image."""

import hashlib
import os
import shutil

from burn.host.firmware.recipe import REPO

# Bumped when the build procedure itself changes what it makes from the same inputs.
# 2: frozen Cortex-M0+ native code word aligned (native_align); 3: the RP2040's UF2 written
# from the ELF by the project, without picotool.
PROCEDURE = 3
CORE_DIR = REPO / "core"
FLEX_MODULE = REPO / "micropython" / "micropython.cmake"
_SKIP_DIRS = ("__pycache__", ".pytest_cache")
_SKIP_SUFFIXES = (".pyc", ".so", ".o", ".a", ".mpy", ".tmp")


def _files(folder, suffixes=None):
    """Relative paths of the source files under `folder`, sorted (build outputs skipped)."""
    out = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS and not d.startswith("build")]
        for name in names:
            if name.endswith(_SKIP_SUFFIXES) or (suffixes and not name.endswith(suffixes)):
                continue
            out.append(os.path.relpath(os.path.join(root, name), folder))
    return sorted(out)


def core_files():
    """The .py files of the package `burn` (core/) that are frozen, relative to core/."""
    return _files(CORE_DIR, (".py",))


def has_flex_module():
    """Whether the flex C module (micropython/micropython.cmake) is in this checkout."""
    return FLEX_MODULE.is_file()


def stage_core(dest):
    """Copy the frozen .py files of core/ to `dest`/burn/ (times kept), replacing it."""
    target = dest / "burn"
    shutil.rmtree(target, ignore_errors=True)
    for rel in core_files():
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(CORE_DIR / rel, target / rel)
    return dest


def cache_key(recipe, mp_version, toolchain_version):
    """Hex digest of everything the firmware of `recipe` is built from."""
    h = hashlib.sha256()

    def add(*parts):
        for part in parts:
            data = part if isinstance(part, bytes) else str(part).encode()
            h.update(b"%d:" % len(data) + data)

    add(PROCEDURE, recipe.flavor, mp_version, toolchain_version,
        (REPO / "boards" / (recipe.board.name + ".json")).read_bytes())
    if not recipe.stock:
        trees = [(CORE_DIR, core_files()), (REPO / "firmware", _files(REPO / "firmware"))]
        if has_flex_module():
            trees += [(REPO / d, _files(REPO / d)) for d in ("micropython", "flex_c")]
        for base, names in trees:
            add(base.name, len(names))
            for rel in names:
                add(rel, (base / rel).read_bytes())
    return h.hexdigest()
