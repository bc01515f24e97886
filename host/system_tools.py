"""Programs outside Python that burn looks for on PATH, each with the line that installs it:
QEMU (MicroPython's qemu port, for Cortex-M and RISC-V boards), a Chromium-family browser
(MicroPython's WebAssembly port), PlatformIO (C libraries for boards). `burn doctor`
reports them."""

import importlib.metadata
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass


def install_line(apt, brew):
    """The install command for this kind of machine: `brew` on macOS, else `apt`."""
    return brew if platform.system() == "Darwin" else apt


@dataclass(frozen=True)
class Program:
    """A program searched for under any of `names`, and how to install it."""

    what: str
    names: tuple
    apt: str
    brew: str

    @property
    def install(self):
        """The install line for this machine."""
        return install_line(self.apt, self.brew)

    def find(self):
        """The path of the first of `names` on PATH, or None."""
        for name in self.names:
            found = shutil.which(name)
            if found:
                return found
        return None


QEMU = Program("QEMU", ("qemu-system-arm", "qemu-system-riscv32"),
               "sudo apt-get install -y qemu-system-arm qemu-system-misc", "brew install qemu")
CHROMIUM = Program("Chromium", ("chromium", "chromium-browser", "google-chrome",
                                "google-chrome-stable"),
                   "sudo apt-get install -y chromium", "brew install --cask chromium")


def version_line(path):
    """The first line `path --version` prints, or '' when it prints nothing or fails."""
    try:
        proc = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    lines = (proc.stdout or proc.stderr).strip().splitlines()
    return lines[0].strip() if proc.returncode == 0 and lines else ""


PLATFORMIO_INSTALL = "pip install platformio"


def find_platformio():
    """(version, command) of PlatformIO: the `platformio` package of this Python (run as
    `python -m platformio`), else a `pio` on PATH; None when neither is there."""
    try:
        return importlib.metadata.version("platformio"), "%s -m platformio" % sys.executable
    except importlib.metadata.PackageNotFoundError:
        pass
    pio = shutil.which("pio")
    if pio is None:
        return None
    return version_line(pio).rpartition(" ")[2] or "unknown version", pio
