"""What the emulated-board tests share: finding the firmware, Node and the bootrom, or the
reason to skip."""

import os
from pathlib import Path

import pytest

from burn.host import vendor
from burn.host.emulator import EmulatorError, default_firmware
from burn.host.emulator.runtime import find_node


def firmware_or_skip():
    """A MicroPython UF2 for the RP2040: $BURN_RP2040_FIRMWARE, else the firmware build's."""
    chosen = os.environ.get("BURN_RP2040_FIRMWARE") or default_firmware("rp2040")
    if not chosen:
        pytest.skip("no MicroPython RP2040 firmware: set BURN_RP2040_FIRMWARE to a UF2 (e.g. "
                    "RPI_PICO v1.28.0) or build one with `burn firmware build --board rp2040`")
    if not Path(chosen).is_file():
        pytest.skip("BURN_RP2040_FIRMWARE=%s does not exist" % chosen)
    return Path(chosen)


def emulator_or_skip():
    """Skip unless Node.js (>= 18) and the RP2040 bootrom are here."""
    try:
        find_node()
        vendor.bootrom()
    except (EmulatorError, vendor.VendorError) as exc:
        pytest.skip(str(exc))


def alive(pid):
    """Whether a process with this pid exists and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def children(pid):
    """The pids of the child processes of `pid` (Linux)."""
    found = []
    for task in Path("/proc/%d/task" % pid).iterdir():
        text = (task / "children").read_text()
        found += [int(x) for x in text.split()]
    return found
