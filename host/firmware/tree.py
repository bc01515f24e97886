"""A private, prepared copy of a MicroPython source tree in the cache, so that builds never
write into the tree they were given: pico-sdk's docs/ folder added (its CMakeLists wants it),
mpy-tool.py made to freeze Cortex-M0+ and RISC-V native code word aligned (native_align) and
mpy-cross built. Prepared once per source tree, reused by every firmware build."""

import hashlib
import os
import shutil
import subprocess

from burn.host.cache import cache_dir
from burn.host.firmware import FirmwareError, qemu_port
from burn.host.firmware.native_align import word_align_native_code
from burn.host.vendor import micropython_version

# Names the preparation: a tree prepared by an older procedure (no native_align) is made anew.
_READY = ".burn-prepared-6"


def _build_outputs(folder, names):
    """Build folders a used tree may hold (build, build-BOARD, __pycache__): not copied."""
    return [n for n in names if (n == "build" or n.startswith("build-") or n == "__pycache__")
            and os.path.isdir(os.path.join(folder, n))]


def prepared_tree(source, log):
    """The prepared copy of MicroPython tree `source` (made now if needed); `log` is an open
    text file that receives the output of the mpy-cross build."""
    source = source.resolve()
    tag = hashlib.sha256(str(source).encode()).hexdigest()[:10]
    final = cache_dir("firmware", "tree") / ("micropython-%s-%s"
                                              % (micropython_version(source), tag))
    if (final / _READY).exists():
        return final
    tmp = final.with_name(final.name + ".tmp%d" % os.getpid())
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        shutil.copytree(source, tmp, symlinks=True, ignore=_build_outputs)
        if not (tmp / "lib" / "pico-sdk" / "CMakeLists.txt").is_file():
            raise FirmwareError("%s has no lib/pico-sdk: run `make -C ports/rp2 submodules` "
                                "in it" % source)
        (tmp / "lib" / "pico-sdk" / "docs").mkdir(exist_ok=True)
        word_align_native_code(tmp)
        qemu_port.name_the_uart(tmp)
        qemu_port.boot_with_flash(tmp)
        log.write("$ make -C mpy-cross -j2\n")
        log.flush()
        proc = subprocess.run(["make", "-C", str(tmp / "mpy-cross"), "-j2"], stdout=log,
                              stderr=subprocess.STDOUT, check=False)
        if proc.returncode != 0:
            raise FirmwareError("building mpy-cross failed (log: %s)" % log.name)
        (tmp / _READY).touch()
        shutil.rmtree(final, ignore_errors=True)
        os.replace(tmp, final)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return final
