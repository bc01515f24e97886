"""A 32-bit build of the MicroPython unix port: small ints hold 31 bits there, as on a
board, so it shows on the host what allocates on a board and what does not.

`build()` compiles the vendor MicroPython tree (`burn.host.vendor.micropython_source()`)
once, with `MICROPY_FORCE_32BIT=1`, into the cache (`unix32/<version>/micropython`). It
needs a C compiler that can build 32-bit programs (Debian: `apt-get install -y
gcc-multilib`); `missing()` says why it cannot be built here. The command can then be run
like the 64-bit one (`burn.host.mpy.unix.run_code(..., binary=path)`).
"""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from burn.host.cache import cache_dir

INSTALL = "apt-get install -y gcc-multilib"
# The vendor tree carries only the rp2 submodules: no berkeley-db (btree) and no
# micropython-lib (the frozen manifest), which the core does not need.
MAKE_ARGS = ("VARIANT=standard", "MICROPY_FORCE_32BIT=1", "MICROPY_PY_FFI=0",
             "MICROPY_STANDALONE=1", "MICROPY_PY_BTREE=0", "FROZEN_MANIFEST=")
# Folders of the tree the unix port does not read (board SDKs), left out of the build copy.
_SKIP = ("pico-sdk", "tinyusb", "cmsis", "stm32lib", "nxp_driver", "asf4", "btstack",
         "mynewt-nimble", "lwip", "esp-hosted")


def missing():
    """Why a 32-bit unix port cannot be built here (with the install line), or None."""
    for tool in ("gcc", "make"):
        if not shutil.which(tool):
            return "%s not found: %s" % (tool, INSTALL)
    probe = "#include <stdio.h>\n#include <stdint.h>\nint main(void) { return 0; }\n"
    try:
        done = subprocess.run(["gcc", "-m32", "-x", "c", "-", "-o", os.devnull], input=probe,
                              text=True, capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        return "gcc -m32 failed (%s): %s" % (e, INSTALL)
    if done.returncode:
        return "gcc cannot build 32-bit programs (no multilib): " + INSTALL
    return None


def binary_path(version):
    """Where the built 32-bit `micropython` of MicroPython `version` lives in the cache."""
    return cache_dir("unix32", version) / "micropython"


def build(tree=None, jobs=2, progress=print):
    """Path of the 32-bit unix port of the vendor tree (or `tree`), built once into the
    cache. Raises RuntimeError with the reason when it cannot be built."""
    from burn.host import vendor

    tree = Path(tree) if tree else vendor.micropython_source()
    target = binary_path(vendor.micropython_version(tree))
    if target.is_file():
        return target
    reason = missing()
    if reason:
        raise RuntimeError(reason)
    work = Path(tempfile.mkdtemp(prefix="build.", dir=target.parent))
    try:
        progress("burn: building the 32-bit MicroPython unix port in %s (a few minutes)"
                 % work)
        src = work / "micropython"
        shutil.copytree(tree, src, symlinks=True,
                        ignore=lambda folder, names: [n for n in names if n in _SKIP])
        cmd = ["make", "-C", str(src / "ports" / "unix"), "-j%d" % jobs] + list(MAKE_ARGS)
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
        if done.returncode:
            raise RuntimeError("building the 32-bit unix port failed:\n"
                               + (done.stdout + done.stderr)[-3000:])
        built = src / "ports" / "unix" / "build-standard" / "micropython"
        tmp = target.with_name(".micropython.%d" % os.getpid())
        shutil.copy2(built, tmp)
        os.replace(tmp, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target
