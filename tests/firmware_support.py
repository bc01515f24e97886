"""A real MicroPython RP2040 firmware for the tests that need one: $BURN_RP2040_FIRMWARE,
else burn's own (`burn firmware build --board rp2040`, built once per run unless the cache
holds it); the QEMU boards' ELFs likewise. Tests skip with the reason, and the install line,
where this machine cannot build one, and fail where a build ran and failed."""

import os
from pathlib import Path

import pytest

_BUILT = {}


def built_or_skip(board):
    """burn's firmware build for `board` (built once per run unless the cache holds it), or
    skip the calling test with the reason where this machine cannot build it (a tool
    missing). A build that ran and failed fails the test: the sources are at fault."""
    if board not in _BUILT:
        from burn.host.firmware import BuildFailed, FirmwareError
        from burn.host.firmware.build import build_firmware

        try:
            _BUILT[board] = build_firmware(board)
        except BuildFailed as exc:
            _BUILT[board] = AssertionError("burn's %s firmware failed to build: %s"
                                           % (board, exc))
        except FirmwareError as exc:
            _BUILT[board] = exc
    found = _BUILT[board]
    if isinstance(found, AssertionError):
        pytest.fail(str(found), pytrace=False)
    if isinstance(found, Exception):
        pytest.skip("no %s firmware could be built: %s" % (board, found))
    return found


def rp2040_firmware_or_skip():
    """Path of a MicroPython RP2040 UF2, or skip the calling test with the reason."""
    chosen = os.environ.get("BURN_RP2040_FIRMWARE")
    if chosen:
        if not Path(chosen).is_file():
            pytest.skip("BURN_RP2040_FIRMWARE=%s does not exist" % chosen)
        return Path(chosen)
    return Path(built_or_skip("rp2040").uf2)
