"""One firmware build: find the inputs, reuse the cached image when they are unchanged,
otherwise configure and compile in a work folder of the cache and store the finished image
under a key of its inputs. Only one build runs at a time (a lock file in the cache)."""

import contextlib
import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from burn.host import project_files, uf2, vendor
from burn.host.atomic import write_bytes_atomic, write_text_atomic
from burn.host.cache import cache_dir, held_lock
from burn.host.firmware import (
    BuildFailed,
    FirmwareError,
    inputs,
    ops_select,
    qemu_port,
    sizes,
    toolchain,
)
from burn.host.firmware.recipe import FLASH_BASE, load_recipe
from burn.host.firmware.tree import prepared_tree

ARTIFACTS = ("firmware.uf2", "firmware.elf", "firmware.elf.map")
# Kept beside them when the build made it: what the size report's frozen share comes from.
FROZEN_C = "frozen_content.c"
_PERCENT = re.compile(r"^\[\s*(\d+)%\]")
LOG_TAIL_LINES = 40
KEEP_IMAGES = 3  # cached images kept per board and flavour (each about 8 MB)
# Object paths of the flex module in the linker map: the bindings (micropython/burnflex*.c)
# and flex_c, compiled into the static libraries libburnflex_flex.a and libburnflex_flex_plan.a
# (cmake), or into the build folder's flex_c/ (make ports).
FLEX_MARKERS = ("burnflex", str(project_files.tree("flex_c")).lstrip("/"), "/build/flex_c/")


@dataclass(frozen=True)
class BuildResult:
    """A finished image: its cache folder, the size report (sizes.json) and whether it was
    taken from the cache."""

    folder: Path
    report: dict
    cached: bool

    @property
    def uf2(self):
        """Path of the UF2 image in the cache."""
        return self.folder / "firmware.uf2"

    @property
    def image(self):
        """The image to put on the board: the UF2, or the ELF of a QEMU board (no UF2)."""
        return self.uf2 if self.uf2.is_file() else self.elf

    @property
    def elf(self):
        """Path of the linked ELF (with symbols) in the cache."""
        return self.folder / "firmware.elf"


def _quiet(phase, percent=None):
    """The default progress callback: says nothing."""


def build_firmware(board, micropython=None, force=False, stock=False, progress=_quiet,
                   debug=False, ops=None):
    """Build (or take from the cache) the firmware of `board`; `micropython` is an explicit
    source tree, `stock` builds the port's own board with nothing of burn, `debug` keeps the
    line numbers of burn's frozen bytecode, `ops` (kernel names, see ops_select.kernels_of)
    keeps only those kernels (None: the default selection; recipe.ALL_OPS: every kernel),
    `force` rebuilds from a clean build folder.
    `progress(phase, percent)` hears about long steps.
    Raises FirmwareError with a clear message on any failure."""
    recipe, source, tools, key = _locate(board, micropython, stock, debug=debug, ops=ops)
    entry = _entry(board, recipe, key)
    version = vendor.micropython_version(source)
    if not force and (entry / "sizes.json").is_file():
        return _cached(entry)
    with build_lock(progress):
        if not force and (entry / "sizes.json").is_file():  # built while we waited
            return _cached(entry)
        work = cache_dir("firmware", "work", "%s-%s" % (recipe.board_name, recipe.base_flavor))
        log_path = work / "build.log"
        with open(log_path, "w") as log:
            started = time.monotonic()
            progress("preparing the MicroPython source tree")
            tree = prepared_tree(source, log)
            if force:
                shutil.rmtree(work / "build", ignore_errors=True)
            # makemanifest.py compares only the sources' times with its outputs, so a change of
            # manifest options (the -O level) or of mpy-tool.py (see native_align) would be
            # missed: the frozen bytecode and frozen_content.c are made again every build.
            (work / "build" / "frozen_content.c").unlink(missing_ok=True)
            shutil.rmtree(work / "build" / "frozen_mpy", ignore_errors=True)
            if recipe.board.micropython_port == "qemu":
                progress("compiling")
                qemu_port.keep_or_clean(recipe, work / "build")
                run_logged(qemu_port.make_argv(recipe, tree, work), log, log_path, None)
                qemu_port.finish(work / "build")
            else:
                _build_rp2(recipe, tree, work, log, log_path, progress)
            seconds = time.monotonic() - started
        if inputs.cache_key(recipe, version, tools.version) != key:
            raise FirmwareError("the sources changed while the firmware was building; run "
                                "the build again")
        report = _report(recipe, work / "build", version, tools.version, seconds)
        _store(entry, work, report)
    return BuildResult(entry, report, False)


def _build_rp2(recipe, tree, work, log, log_path, progress):
    """Configure and compile an rp2 firmware (cmake, the pico-sdk) in `work`/build."""
    picotool = None if _writes_own_uf2(recipe) else toolchain.picotool_dir(tree)
    progress("configuring")
    run_logged(_configure_argv(recipe, tree, work), log, log_path, picotool)
    progress("compiling", 0)
    run_logged(["make", "-C", str(work / "build"), "-j2"], log, log_path, picotool,
               lambda percent: progress("compiling", percent))
    if picotool is None:
        _uf2_from_elf(work / "build", recipe)


def artifacts(recipe):
    """The files a finished build of `recipe` leaves, its image first."""
    return qemu_port.ARTIFACTS if recipe.board.micropython_port == "qemu" else ARTIFACTS


def _locate(board, micropython, stock, allow_clone=True, debug=False, ops=None):
    """(recipe, source tree, toolchain, input key) of a build, all checked."""
    recipe = load_recipe(board, stock, debug, ops)
    toolchain.check_build_tools()
    tools = toolchain.find_toolchain(recipe.board)
    try:
        source = vendor.micropython_source(micropython, allow_clone=allow_clone)
    except vendor.VendorError as e:
        raise FirmwareError(str(e)) from None
    key = inputs.cache_key(recipe, vendor.micropython_version(source), tools.version)
    return recipe, source, tools, key


def _entry(board, recipe, key):
    """The cache folder of the image with input key `key`."""
    return cache_dir("firmware", "images") / ("%s-%s-%s" % (board, recipe.flavor, key[:16]))


def cached_image(board, stock=False, ops=None):
    """The cached image of `board` (the UF2; a QEMU board's ELF), with kernels `ops` (see
    recipe.load_recipe), for the inputs, or None when it is not built (or cannot be: no
    toolchain, no source tree). Never builds anything."""
    try:
        recipe, _source, _tools, key = _locate(board, None, stock, allow_clone=False, ops=ops)
    except FirmwareError:
        return None
    entry = _entry(board, recipe, key)
    image = entry / artifacts(recipe)[0]
    return image if (entry / "sizes.json").is_file() else None


@contextlib.contextmanager
def build_lock(progress):
    """Hold the cache's firmware lock: one build (firmware or pico-sdk program) at a time on
    this machine; `progress(phase)` hears when it has to wait."""
    with held_lock(cache_dir("firmware") / "build.lock",
                   lambda: progress("waiting for another firmware build to finish")):
        yield


def _writes_own_uf2(recipe):
    """Whether the project writes the board's UF2 itself (RP2040: a plain image, so the
    pico-sdk needs no picotool, which would otherwise be built from source first)."""
    return recipe.board.uf2_family == uf2.FAMILIES["rp2040"]


def _uf2_from_elf(build, recipe):
    """firmware.uf2 from firmware.elf's loadable segments, for the board's UF2 family."""
    try:
        ranges = uf2.elf_ranges((build / "firmware.elf").read_bytes())
    except (OSError, ValueError) as e:
        raise FirmwareError("cannot read %s: %s" % (build / "firmware.elf", e)) from None
    write_bytes_atomic(build / "firmware.uf2", uf2.write_uf2(ranges, recipe.board.uf2_family))


def _configure_argv(recipe, tree, work):
    board = recipe.board
    argv = ["cmake", "-S", str(tree / "ports" / "rp2"), "-B", str(work / "build"),
            "-DPICO_BUILD_DOCS=0", "-DMICROPY_BOARD=" + recipe.board_name]
    if _writes_own_uf2(recipe):
        argv.append("-Dpicotool_FOUND=0")  # the pico-sdk then neither builds nor fetches it
    if not recipe.stock:
        stage = inputs.stage_core(work / "frozen", recipe.ops)
        module = str(inputs.FLEX_MODULE) if inputs.has_flex_module() else ""
        argv += ["-DMICROPY_BOARD_DIR=%s" % recipe.board_dir,
                 "-DMICROPY_FROZEN_MANIFEST=%s" % recipe.manifest,
                 "-DMICROPY_MANIFEST_BURN_FROZEN=%s" % stage,
                 "-DUSER_C_MODULES=" + module,
                 "-DBURNFLEX_OPS=" + _cmake_ops(recipe.ops),
                 "-DBURN_FS_BYTES=%d" % board.fs_bytes,
                 "-DBURN_ROMFS_BYTES=%d" % board.romfs_bytes,
                 # every time: the build folder's cache would keep an earlier build's choice
                 "-DBURNFLEX_FLOAT_KERNELS=%s" % (
                     "ON" if ops_select.has_float_kernels(recipe.ops) else "OFF")]
    return argv


def _cmake_ops(ops):
    """The BURNFLEX_OPS setting of kernels `ops`: empty keeps every kernel, so a selection
    of none is spelled by a name that matches no kernel."""
    if ops is None:
        return ""
    return ";".join(ops) or "none"


def run_logged(argv, log, log_path, picotool, on_percent=None):
    """Run one build command, its output into `log` (an open file at `log_path`), with the
    picotool folder `picotool` (or None) known to the pico-sdk; FirmwareError with the log's
    tail. `on_percent(n)` hears make's progress."""
    env = dict(os.environ)
    if picotool is not None:
        env["PICOTOOL_FETCH_FROM_GIT_PATH"] = str(picotool)
    log.write("$ %s\n" % " ".join(argv))
    log.flush()
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, errors="replace", env=env)
    except OSError as e:
        raise FirmwareError("cannot run %s: %s" % (argv[0], e)) from None
    best = 0
    for line in proc.stdout:
        log.write(line)
        match = _PERCENT.match(line)
        if on_percent and match and int(match.group(1)) > best:
            best = int(match.group(1))
            on_percent(best)
    if proc.wait() != 0:
        log.flush()
        raise BuildFailed("%s failed; the last lines of %s:\n%s"
                          % (" ".join(argv[:3]), log_path, _tail(log_path)))


def _tail(path):
    with open(path, errors="replace") as f:
        return "".join(f.readlines()[-LOG_TAIL_LINES:])


def _report(recipe, build, version, toolchain_version, seconds):
    """The size report of a finished build, checked against the board's code space."""
    for name in artifacts(recipe):
        if not (build / name).is_file():
            raise BuildFailed("the build made no %s (see %s)" % (name, build.parent))
    frozen = build / FROZEN_C
    report = sizes.image_sizes((build / "firmware.elf").read_bytes(),
                               (build / "firmware.elf.map").read_text(errors="replace"),
                               frozen.read_text(errors="replace") if frozen.is_file() else "",
                               FLEX_MARKERS)
    limit = recipe.code_limit
    base, used = FLASH_BASE, report["flash_end"]
    if limit is None:  # a QEMU board: the bytes QEMU loads, against their share of RAM
        base, used, limit = None, report["image_bytes"], recipe.board.flash_bytes
    report.update(board=recipe.board.name, flavor=recipe.flavor, micropython=version,
                  toolchain=toolchain_version, flex_module=inputs.has_flex_module()
                  and not recipe.stock, code_base=base, code_limit=limit,
                  ops=None if recipe.ops is None else list(recipe.ops),
                  build_seconds=round(seconds, 1))
    if base is None and used > limit:
        raise BuildFailed("the image is %d bytes, more than the %d of RAM that boards/%s.json "
                          "gives it (flash_bytes)" % (used, limit, recipe.board.name))
    if base is not None and used > limit:
        raise BuildFailed(
            "the image ends at 0x%08x, %d bytes past the end of the code space at 0x%08x "
            "(flash less littlefs and ROMFS); keep fewer ops (burn firmware build --ops-from "
            "MODEL.bst keeps those your models use) or make romfs_bytes in boards/%s.json "
            "smaller" % (used, used - limit, limit, recipe.board.name))
    return report


def _store(entry, work, report):
    """Copy the artefacts and the log into the cache entry `entry`, all or nothing."""
    tmp = entry.with_name(".%s.tmp%d" % (entry.name, os.getpid()))
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        for name in (*ARTIFACTS, FROZEN_C):
            if (work / "build" / name).is_file():
                shutil.copy2(work / "build" / name, tmp / name)
        shutil.copy2(work / "build.log", tmp / "build.log")
        write_text_atomic(tmp / "sizes.json", json.dumps(report, indent=1))
        shutil.rmtree(entry, ignore_errors=True)
        os.replace(tmp, entry)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    _prune(entry)


def _cached(entry):
    """The BuildResult of the cached image `entry`, marked as just used: pruning removes the
    images used least recently, so one that another run (a second checkout sharing the
    cache) keeps taking stays."""
    try:
        os.utime(entry / "sizes.json")
    except OSError:  # a read-only cache: nothing is pruned there either
        pass
    return BuildResult(entry, json.loads((entry / "sizes.json").read_text()), True)


def _prune(entry, keep=KEEP_IMAGES):
    """Remove all but the `keep` most recently built or used images of the same board and
    flavour."""
    prefix = entry.name.rsplit("-", 1)[0] + "-"
    images = sorted((p for p in entry.parent.iterdir()
                     if p.name.startswith(prefix) and (p / "sizes.json").is_file()),
                    key=lambda p: (p / "sizes.json").stat().st_mtime, reverse=True)
    for old in images[keep:]:
        shutil.rmtree(old, ignore_errors=True)
