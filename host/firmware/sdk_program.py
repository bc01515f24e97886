"""Builds a plain pico-sdk program (C, no MicroPython) for the RP2040 against the pico-sdk
inside the MicroPython source tree, with the firmware build's toolchain, into the cache.

    uf2 = build_sdk_program(Path("tests/emulator/multicore_check"))

The folder holds a CMakeLists.txt that includes ${PICO_SDK_PATH}/pico_sdk_init.cmake and adds
one executable named after the folder. The image is kept under a key of the folder's files,
the MicroPython version and the compiler, so an unchanged program is built once; the UF2 is
written from the ELF here, so no picotool is needed.
"""

import hashlib
import shutil
from pathlib import Path

from burn.host import uf2, vendor
from burn.host.atomic import write_bytes_atomic
from burn.host.cache import cache_dir
from burn.host.firmware import FirmwareError, toolchain
from burn.host.firmware.build import build_lock, run_logged
from burn.host.firmware.tree import prepared_tree

_KEEP = 2  # cached images kept per program


def _source_files(folder):
    """The program's files (sorted), CMakeLists.txt among them; FirmwareError otherwise."""
    if not (folder / "CMakeLists.txt").is_file():
        raise FirmwareError("%s is not a pico-sdk program: it has no CMakeLists.txt" % folder)
    return sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def _key(folder, files, version, compiler):
    digest = hashlib.sha256(("%s\n%s\n" % (version, compiler)).encode())
    for path in files:
        digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def build_sdk_program(folder, progress=lambda phase: None):
    """Path of the UF2 of the pico-sdk program in `folder`, built now unless the cache holds
    it for these sources; FirmwareError saying what is missing or where the build failed."""
    folder = Path(folder).resolve()
    name = folder.name
    files = _source_files(folder)
    toolchain.check_build_tools()
    tools = toolchain.find_toolchain()
    try:
        source = vendor.micropython_source(allow_clone=False)
    except vendor.VendorError as e:
        raise FirmwareError(str(e)) from None
    version = vendor.micropython_version(source)
    entry = cache_dir("firmware", "programs") / ("%s-%s" % (name, _key(folder, files, version,
                                                                          tools.version)))
    image = entry / (name + ".uf2")
    if image.is_file():
        return image
    with build_lock(progress):
        if image.is_file():  # built while we waited
            return image
        work = cache_dir("firmware", "work", "program-" + name)
        log_path = work / "build.log"
        with open(log_path, "w") as log:
            progress("preparing the MicroPython source tree")
            tree = prepared_tree(source, log)
            progress("building %s" % name)
            build = work / "build"
            _forget_other_source(build, folder)
            run_logged(["cmake", "-S", str(folder), "-B", str(build),
                        "-DPICO_SDK_PATH=%s" % (tree / "lib" / "pico-sdk"),
                        "-DPICO_BOARD=pico", "-DPICO_BUILD_DOCS=0", "-Dpicotool_FOUND=0"],
                       log, log_path, None)
            run_logged(["make", "-C", str(build), "-j2", name], log, log_path, None)
        elf = build / (name + ".elf")
        try:
            ranges = uf2.elf_ranges(elf.read_bytes())
        except (OSError, ValueError) as e:
            raise FirmwareError("cannot read %s: %s" % (elf, e)) from None
        entry.mkdir(parents=True, exist_ok=True)
        shutil.copy2(elf, entry / elf.name)
        shutil.copy2(log_path, entry / "build.log")
        write_bytes_atomic(image, uf2.write_uf2(ranges, uf2.FAMILIES["rp2040"]))
    _prune(entry)
    return image


def _forget_other_source(build, folder):
    """Clear the build folder when CMake configured it for another copy of the program (the
    same name in another folder), which CMake refuses to reuse."""
    cache = build / "CMakeCache.txt"
    if not cache.is_file():
        return
    for line in cache.read_text(errors="replace").splitlines():
        if line.startswith("CMAKE_HOME_DIRECTORY:INTERNAL="):
            if Path(line.split("=", 1)[1]) != folder:
                shutil.rmtree(build, ignore_errors=True)
            return


def _prune(entry):
    """Remove all but the `_KEEP` newest images of the same program."""
    prefix = entry.name.rsplit("-", 1)[0] + "-"
    images = sorted((p for p in entry.parent.iterdir() if p.name.startswith(prefix)),
                    key=lambda p: p.stat().st_mtime, reverse=True)
    for old in images[_KEEP:]:
        shutil.rmtree(old, ignore_errors=True)
