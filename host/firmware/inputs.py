"""The inputs of a firmware build and the cache key made from them: the core's .py files,
the flex C module (micropython/, flex_c/), firmware/, the board description, MicroPython's
version and the compiler's version. Same inputs, same key, same cached image."""

import hashlib
import shutil
from pathlib import Path

import burn
from burn.host import project_files
from burn.host.atomic import write_text_atomic
from burn.host.firmware import ops_select

# Bumped when the build procedure itself changes what it makes from the same inputs.
# 2: frozen Cortex-M0+ native code word aligned (native_align); 3: the RP2040's UF2 written
# from the ELF by the project, without picotool; 4: no kernel check module in a firmware of
# the default selection; 5: frozen RISC-V native code word aligned too; 6: the qemu port's
# boards run a frozen _boot.py and may provide vfs.rom_ioctl; 7: and sleep while idle.
PROCEDURE = 7
# The package `burn`: core/ in a checkout; installed, its folder also holds burn.host.
CORE_DIR = Path(burn.__file__).resolve().parent
FLEX_MODULE = project_files.tree("micropython") / "micropython.cmake"


# Core modules left out of the frozen image to save flash: the op table (burn.graph.ops, about
# 4 KB frozen), which nothing on a board imports (it describes the ops for the host tools and
# tests/host/test_op_table.py), and the layers for training on the host, not for the .bst
# runtime that a firmware is for: the transposed convolution (about 2.8 KB), the hard
# sigmoid and the 1-D layers (burn.nn finds each in the module of its lower-case name).
NOT_FROZEN = ("graph/ops.py", "ops/conv_transpose.py", "nn/conv_transpose.py",
              "ops/hard_sigmoid.py", "nn/hardsigmoid.py", "ops/window1d.py", "nn/conv1d.py",
              "nn/batchnorm1d.py", "nn/maxpool1d.py", "nn/avgpool1d.py",
              "nn/adaptiveavgpool1d.py")
# burn.mpy_abi only explains a burnflex.mpy that the board refuses. With the flex C module
# built in, `import burnflex` finds that module first and never tries a file.
NOT_FROZEN_WITH_FLEX = ("mpy_abi.py",)


def core_files(ops=None):
    """The .py files of the package `burn` (core/) that are frozen, relative to core/; with
    `ops` (kernel names, see Recipe.ops) only the burn.graph modules those kernels need."""
    skip = NOT_FROZEN + (NOT_FROZEN_WITH_FLEX if has_flex_module() else ())
    files = [rel for rel in project_files.core_files(CORE_DIR) if rel not in skip]
    return files if ops is None else ops_select.kept_core_files(CORE_DIR, files, ops)


def has_flex_module():
    """Whether the flex C module (micropython/micropython.cmake) is in this checkout."""
    return FLEX_MODULE.is_file()


def stage_core(dest, ops=None):
    """Copy the frozen .py files of core/ to `dest`/burn/ (times kept), replacing it; with
    `ops`, only those the kernels need, and the module that lists the kernels (see
    ops_select.lists_kernels)."""
    target = dest / "burn"
    shutil.rmtree(target, ignore_errors=True)
    for rel in core_files(ops):
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(CORE_DIR / rel, target / rel)
    if ops_select.lists_kernels(ops):
        write_text_atomic(target / ops_select.BUILT_MODULE, ops_select.built_module_text(ops))
    return dest


def cache_key(recipe, mp_version, toolchain_version):
    """Hex digest of everything the firmware of `recipe` is built from."""
    h = hashlib.sha256()

    def add(*parts):
        for part in parts:
            data = part if isinstance(part, bytes) else str(part).encode()
            h.update(b"%d:" % len(data) + data)

    add(PROCEDURE, recipe.flavor, mp_version, toolchain_version,
        (project_files.tree("boards") / (recipe.board.name + ".json")).read_bytes())
    if not recipe.stock:
        folders = ("firmware", "micropython", "flex_c") if has_flex_module() else ("firmware",)
        if recipe.ops is not None:
            add("ops", ops_select.built_module_text(recipe.ops),
                ops_select.lists_kernels(recipe.ops))
            if ops_select.has_float_kernels(recipe.ops):  # built on any core since then
                add("float kernels")
        trees = [("core", CORE_DIR, core_files(recipe.ops))]
        for name in folders:
            base = project_files.tree(name)
            trees.append((name, base, project_files.source_files(base)))
        # labelled by project name, so a checkout and a wheel of the same sources agree
        for label, base, names in trees:
            add(label, len(names))
            for rel in names:
                add(rel, (base / rel).read_bytes())
    return h.hexdigest()
