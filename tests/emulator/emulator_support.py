"""What the emulated-board tests share: finding the firmware, Node and the bootrom, or the
reason to skip."""

import os
from pathlib import Path

import pytest

from burn.host import vendor
from burn.host.emulator import EmulatorError
from burn.host.emulator.runtime import find_node

_BUILT = {}


def firmware_or_skip():
    """A MicroPython UF2 for the RP2040: $BURN_RP2040_FIRMWARE, else the firmware build's
    (built now, once per test run, unless the cache holds it; skipped with the reason and
    the install line when the Arm toolchain is missing)."""
    chosen = os.environ.get("BURN_RP2040_FIRMWARE")
    if chosen:
        if not Path(chosen).is_file():
            pytest.skip("BURN_RP2040_FIRMWARE=%s does not exist" % chosen)
        return Path(chosen)
    if "rp2040" not in _BUILT:
        from burn.host.firmware import FirmwareError
        from burn.host.firmware.build import build_firmware

        try:
            _BUILT["rp2040"] = build_firmware("rp2040").uf2
        except FirmwareError as exc:
            _BUILT["rp2040"] = exc
    found = _BUILT["rp2040"]
    if isinstance(found, Exception):
        pytest.skip("no RP2040 firmware could be built: %s" % found)
    return Path(found)


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
