"""The emulated board's flash: one file holding the whole flash (firmware and filesystem).

Writing a UF2 into it changes only the bytes the UF2 carries, as a real bootloader does, so
the filesystem a firmware made survives a firmware update. A missing image starts erased.
"""

import os
from pathlib import Path

from burn.host import uf2
from burn.host.atomic import write_bytes_atomic
from burn.host.emulator.runtime import EmulatorError


def firmware_ranges(firmware, board):
    """{flash offset: bytes} that the UF2 file `firmware` writes on `board`; EmulatorError for a
    missing, corrupt or truncated file, another chip family, or bytes outside the flash."""
    try:
        data = Path(firmware).read_bytes()
    except OSError as exc:
        raise EmulatorError("cannot read firmware %s: %s" % (firmware, exc.strerror)) from None
    try:
        blocks = uf2.parse(data)
        found = uf2.families(blocks)
        if board.uf2_family not in found:
            raise EmulatorError("firmware %s is not for the %s (UF2 family %s): it holds %s" % (
                firmware, board.mcu, uf2.family_name(board.uf2_family),
                ", ".join("family " + uf2.family_name(f) for f in found)))
        ranges = uf2.image(blocks, family=board.uf2_family)
    except uf2.UF2Error as exc:
        raise EmulatorError("firmware %s is not a valid UF2 file: %s" % (firmware, exc)) \
            from None
    offsets = {}
    for address, chunk in ranges.items():
        offset = address - uf2.RP2040_FLASH_BASE
        if offset < 0 or offset + len(chunk) > board.flash_bytes:
            raise EmulatorError(
                "firmware %s writes %d bytes at 0x%08x, outside the %s's %d KiB of flash at "
                "0x%08x" % (firmware, len(chunk), address, board.name, board.flash_bytes >> 10,
                            uf2.RP2040_FLASH_BASE))
        offsets[offset] = chunk
    return offsets


def prepare(image, board, firmware=None):
    """Create or update the flash image file `image` for `board`, writing `firmware` (a UF2
    path) into it when given; returns the image's path. EmulatorError for a bad firmware, an
    image of the wrong size, or neither an image nor a firmware to boot."""
    image = Path(image)
    ranges = firmware_ranges(firmware, board) if firmware is not None else None
    if image.exists():
        size = image.stat().st_size
        if size != board.flash_bytes:
            raise EmulatorError("flash image %s is %d bytes, but the %s has %d bytes of flash; "
                                "use another file or delete it"
                                % (image, size, board.name, board.flash_bytes))
        if ranges is None:
            return image
        flash = bytearray(image.read_bytes())
    elif ranges is None:
        raise EmulatorError("no firmware to run: give a MicroPython UF2 for the %s (--firmware), "
                            "build one with `burn firmware build --board %s`, or use an "
                            "existing flash image" % (board.mcu, board.name))
    else:
        flash = bytearray(b"\xff") * board.flash_bytes
    for offset, chunk in ranges.items():
        flash[offset:offset + len(chunk)] = chunk
    os.makedirs(image.parent, exist_ok=True)
    write_bytes_atomic(image, bytes(flash))
    return image
