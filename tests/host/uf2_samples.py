"""UF2 files made in the tests: a firmware-like image carrying MicroPython's version strings
and frozen-module name table the way an rp2 build lays them out in flash, and the path of a
real MicroPython UF2 when one is named by $BURN_RP2040_FIRMWARE."""

import os
import random
import sys

from burn.host import uf2

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from firmware_support import rp2040_firmware_or_skip

FLASH = uf2.RP2040_FLASH_BASE
VERSION = "v1.28.0"
BANNER = "MicroPython v1.28.0 on 2026-12-01"
MACHINE = "Raspberry Pi Pico with RP2040"
FROZEN = ["_boot.py", "rp2.py", "asyncio/__init__.py", "asyncio/core.py", "dht.py",
          "neopixel.py"]


def _aligned(data):
    return data + b"\0" * (-len(data) % 4)


def firmware_image(seed=1, size=6000):
    """Bytes of a firmware-like flash image: random code around NUL-terminated, word-aligned
    strings (the banner, sys.version, the machine, the frozen names table and decoys a
    reader must not take for the table)."""
    rng = random.Random(seed)
    parts = [
        bytes(rng.randrange(256) for _ in range(size // 3)),
        _aligned(b"main.py\0"), _aligned(b"boot.py\0"),  # lone names, not the table
        _aligned(BANNER.encode() + b"\0"),
        _aligned(b"; " + MACHINE.encode() + b"\0"),
        bytes(rng.randrange(256) for _ in range(size // 3)),
        _aligned(b"".join(n.encode() + b"\0" for n in FROZEN) + b"\0"),
        _aligned(b"3.4.0; " + BANNER.encode() + b"\0"),
    ]
    return b"".join(parts) + bytes(rng.randrange(256) for _ in range(100))


def firmware_uf2(family="rp2040", seed=1):
    """A UF2 file of firmware_image() at the RP2040's flash base."""
    return uf2.write_uf2((FLASH, firmware_image(seed)), family)


def real_uf2_path():
    """A real MicroPython RP2040 UF2 (tests/firmware_support.py), or skip the test."""
    return str(rp2040_firmware_or_skip())
