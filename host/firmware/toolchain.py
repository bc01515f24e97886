"""The system tools a firmware build needs: the Arm GNU toolchain with newlib (checked for
the Cortex-M0+ multilib), or for a RISC-V board the RISC-V one with picolibc (checked for
the rv32imac multilib), cmake, make, and picotool (built once from its vendor sources)."""

import os
import shutil
import subprocess
from dataclasses import dataclass

from burn.host import system_tools, vendor
from burn.host.cache import cache_dir
from burn.host.firmware import FirmwareError

APT_LINE = ("sudo apt-get install -y gcc-arm-none-eabi libnewlib-arm-none-eabi "
            "libstdc++-arm-none-eabi-newlib")
BREW_LINE = "brew install --cask gcc-arm-embedded"
GCC = "arm-none-eabi-gcc"
# Files the rp2 build links against, looked up in the Cortex-M0+ multilib folder.
_M0_LIBS = ("nano.specs", "libc_nano.a", "libstdc++.a")
_M0_FLAGS = ("-mcpu=cortex-m0plus", "-mthumb")


RISCV_APT_LINE = "sudo apt-get install -y gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf"
RISCV_BREW_LINE = "brew install riscv64-elf-gcc"
RISCV_GCC = "riscv64-unknown-elf-gcc"
# what the qemu port's RISC-V image links, looked up in the rv32imac/ilp32 multilib
_RV32_LIBS = ("picolibc.specs", "libgcc.a")
_RV32_FLAGS = ("-march=rv32imac", "-mabi=ilp32")


def install_line(riscv=False):
    """The command that installs the Arm (or RISC-V) toolchain on this kind of machine."""
    if riscv:
        return system_tools.install_line(RISCV_APT_LINE, RISCV_BREW_LINE)
    return system_tools.install_line(APT_LINE, BREW_LINE)


@dataclass(frozen=True)
class Toolchain:
    """The Arm compiler found: its path and the first line of `--version`."""

    gcc: str
    version: str


def _run(argv):
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError) as e:
        raise FirmwareError("cannot run %s: %s" % (argv[0], e)) from None
    return proc.stdout.strip() if proc.returncode == 0 else None


def find_toolchain(board=None):
    """The toolchain `board` builds with (None: the Arm one, the rp2 boards'), checked for
    its C library in the multilib the firmware links (Cortex-M0+, or rv32imac for a RISC-V
    board); FirmwareError with the install line when something is missing."""
    riscv = board is not None and board.mpy_arch.startswith("rv")
    name, libs, flags = ((RISCV_GCC, _RV32_LIBS, _RV32_FLAGS) if riscv
                         else (GCC, _M0_LIBS, _M0_FLAGS))
    what = "the RISC-V toolchain" if riscv else "the Arm toolchain"
    gcc = shutil.which(name)
    if gcc is None:
        raise FirmwareError("%s not found on PATH; install %s: %s"
                            % (name, what, install_line(riscv)))
    version = (_run([gcc, "--version"]) or "").splitlines()
    missing = [lib for lib in libs
               if not os.path.isabs(_run([gcc, *flags, "-print-file-name=" + lib]) or "")]
    if riscv and not missing and "rv32imac" not in (_run(
            [gcc, *flags, "-print-file-name=libgcc.a"]) or ""):
        missing = ["an rv32imac/ilp32 libgcc"]
    if missing or not version:
        raise FirmwareError("%s lacks %s for %s; install: %s" % (
            gcc, ", ".join(missing) or "a version", "rv32imac" if riscv else "Cortex-M0+",
            install_line(riscv)))
    return Toolchain(gcc, version[0])


def check_build_tools():
    """FirmwareError unless cmake and make are on PATH."""
    for tool, package in (("cmake", "cmake"), ("make", "make")):
        if shutil.which(tool) is None:
            raise FirmwareError("%s not found on PATH; install it (apt-get install -y %s, or "
                                "brew install %s)" % (tool, package, package))


def built_picotool():
    """The picotool executable built into the cache, or None when it is not built yet."""
    program = cache_dir("tools", "picotool-" + vendor.PICOTOOL_VERSION) / "picotool" / "picotool"
    return program if os.access(program, os.X_OK) else None


def picotool_dir(tree):
    """The folder holding a built picotool (the layout of `PICOTOOL_FLAT_INSTALL`), built
    the first time from the vendor sources against the pico-sdk of MicroPython `tree`;
    pico-sdk finds it through PICOTOOL_FETCH_FROM_GIT_PATH instead of downloading it."""
    built = built_picotool()
    if built is not None:
        return built.parent.parent
    final = cache_dir("tools", "picotool-" + vendor.PICOTOOL_VERSION)
    source = vendor.picotool_source()
    if source is None:
        raise FirmwareError("picotool %s is not built and its sources are missing: put "
                            "picotool-%s.tar.xz in $BURN_VENDOR_DIR"
                            % (vendor.PICOTOOL_VERSION, vendor.PICOTOOL_VERSION))
    sdk = tree / "lib" / "pico-sdk"
    build = final.with_name(final.name + ".build%d" % os.getpid())
    staged = final.with_name(final.name + ".install%d" % os.getpid())
    try:
        for argv in (["cmake", "-S", str(source), "-B", str(build), "-DPICO_SDK_PATH=%s" % sdk,
                      "-DPICOTOOL_NO_LIBUSB=1", "-DPICOTOOL_FLAT_INSTALL=1",
                      "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_INSTALL_PREFIX=%s" % staged],
                     ["make", "-C", str(build), "-j2"], ["make", "-C", str(build), "install"]):
            proc = subprocess.run(argv, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                raise FirmwareError("building picotool failed (%s):\n%s"
                                    % (" ".join(argv[:3]), (proc.stdout + proc.stderr)[-3000:]))
        shutil.rmtree(final)
        os.replace(staged, final)
    finally:
        shutil.rmtree(build, ignore_errors=True)
        shutil.rmtree(staged, ignore_errors=True)
    return final
