"""What the emulated-board tests share: finding the firmware, Node and the bootrom, or the
reason to skip."""

import pytest
from firmware_support import rp2040_firmware_or_skip

from burn.host import vendor
from burn.host.emulator import EmulatorError
from burn.host.emulator.runtime import find_node

firmware_or_skip = rp2040_firmware_or_skip  # a MicroPython UF2 for the RP2040, or skip


def emulator_or_skip():
    """Skip unless Node.js (>= 18) and the RP2040 bootrom are here."""
    try:
        find_node()
        vendor.bootrom()
    except (EmulatorError, vendor.VendorError) as exc:
        pytest.skip(str(exc))
