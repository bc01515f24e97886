"""The system tools a firmware build needs: the Arm GNU toolchain with newlib (checked for
the Cortex-M0+ multilib), cmake, make, and picotool (built once from its vendor sources)."""

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


def install_line():
    """The command that installs the Arm toolchain on this kind of machine."""
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


def find_toolchain():
    """The Arm toolchain, checked for newlib and libstdc++ in its Cortex-M0+ multilib;
    FirmwareError with the install line when something is missing."""
    gcc = shutil.which(GCC)
    if gcc is None:
        raise FirmwareError("%s not found on PATH; install the Arm toolchain: %s"
                            % (GCC, install_line()))
    version = (_run([gcc, "--version"]) or "").splitlines()
    missing = [name for name in _M0_LIBS
               if not os.path.isabs(_run([gcc, *_M0_FLAGS, "-print-file-name=" + name]) or "")]
    if missing or not version:
        raise FirmwareError("%s lacks %s for Cortex-M0+ (newlib / libstdc++ packages); "
                            "install: %s" % (gcc, ", ".join(missing) or "a version",
                                             install_line()))
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
