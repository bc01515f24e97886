"""A real MicroPython RP2040 firmware for the tests that need one: $BURN_RP2040_FIRMWARE,
else burn's own (`burn firmware build --board rp2040`, built once per run unless the cache
holds it). Tests skip with the reason, and the install line, where neither is possible."""

import os
from pathlib import Path

import pytest

_BUILT = {}


def rp2040_firmware_or_skip():
    """Path of a MicroPython RP2040 UF2, or skip the calling test with the reason."""
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
