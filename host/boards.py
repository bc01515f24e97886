"""The boards burn knows: one JSON description per board in the top-level `boards/` folder.

A board file is data, not code: MCU, `mpy-cross -march`, RAM, MicroPython heap, flash and
filesystem size, USB ids, MicroPython port and board name, and how to flash it. Boards whose
bootloader takes UF2 files also give `uf2_family` (hex text, e.g. "0xe48bff56") and
`uf2_board_id` (the Board-ID its bootloader drive's INFO_UF2.TXT starts with).
"""

import json
from dataclasses import MISSING, dataclass

from burn.host import project_files

BOARDS_DIR = project_files.tree("boards")

_FS_TYPES = ("littlefs2", "fat", "none")  # none: no filesystem (fs_bytes 0)


@dataclass(frozen=True)
class Board:
    """One board description (sizes in bytes; USB ids as lowercase 'vvvv:pppp')."""

    name: str
    title: str
    mcu: str
    cpu: str
    mpy_arch: str
    ram_bytes: int
    heap_bytes: int
    flash_bytes: int
    fs_bytes: int
    fs_block_bytes: int
    fs_type: str
    usb_ids: tuple
    bootloader_usb_ids: tuple
    micropython_port: str
    micropython_board: str
    sys_platform: str
    flash_method: str
    flash_instructions: str
    firmware_url: str
    # Optional: the flash kept for a read-only ROMFS partition in burn's firmware, and the
    # MicroPython board folder under firmware/boards/ that builds it ("" when there is none).
    romfs_bytes: int = 0
    firmware_board: str = ""
    uf2_family: int = None
    uf2_board_id: str = None
    # Boards that QEMU emulates (MicroPython's qemu port): the QEMU program and machine.
    qemu_system: str = ""
    qemu_machine: str = ""

    @property
    def fs_blocks(self):
        """Number of filesystem blocks on the board's flash."""
        return self.fs_bytes // self.fs_block_bytes


def _usb_id(text, where):
    vid, sep, pid = text.lower().partition(":")
    try:
        if sep and len(vid) == 4 and len(pid) == 4:
            int(vid, 16), int(pid, 16)
            return vid + ":" + pid
    except ValueError:
        pass
    raise ValueError("%s: USB id %r is not of the form 'vvvv:pppp' (hex)" % (where, text))


def _uf2_family(text, where):
    try:
        value = int(text, 16) if isinstance(text, str) else -1
    except ValueError:
        value = -1
    if not 0 <= value <= 0xFFFFFFFF:
        raise ValueError("%s: uf2_family %r is not a 32-bit hex number such as '0xe48bff56'"
                         % (where, text))
    return value


def _from_dict(data, where):
    fields = Board.__dataclass_fields__
    missing = sorted(name for name, f in fields.items()
                     if f.default is MISSING and name not in data)
    unknown = sorted(set(data) - set(fields))
    if missing or unknown:
        raise ValueError("%s: missing fields %s, unknown fields %s" % (where, missing, unknown))
    values = dict(data)
    for key in ("usb_ids", "bootloader_usb_ids"):
        values[key] = tuple(_usb_id(text, where) for text in data[key])
    for key in ("ram_bytes", "heap_bytes", "flash_bytes", "fs_bytes", "fs_block_bytes"):
        empty = key == "fs_bytes" and data.get("fs_type") == "none"
        if not isinstance(data[key], int) or data[key] < 0 or (data[key] == 0) != empty:
            raise ValueError("%s: %s must be a positive integer (0 for fs_type none), got %r"
                             % (where, key, data[key]))
    if "uf2_family" in data:
        values["uf2_family"] = _uf2_family(data["uf2_family"], where)
    if data["fs_type"] not in _FS_TYPES:
        raise ValueError("%s: fs_type must be one of %s" % (where, _FS_TYPES))
    romfs = data.get("romfs_bytes", 0)
    if not isinstance(romfs, int) or romfs < 0 or romfs % data["fs_block_bytes"]:
        raise ValueError("%s: romfs_bytes must be a whole number of blocks" % where)
    if data["fs_bytes"] % data["fs_block_bytes"]:
        raise ValueError("%s: fs_bytes is not a whole number of blocks" % where)
    if data["heap_bytes"] > data["ram_bytes"] or data["fs_bytes"] + romfs > data["flash_bytes"]:
        raise ValueError("%s: heap exceeds RAM or filesystem exceeds flash" % where)
    return Board(**values)


def board_names():
    """Names of every known board, sorted."""
    return sorted(path.stem for path in BOARDS_DIR.glob("*.json"))


def load_board(name):
    """The `Board` called `name` (e.g. 'rp2040'); ValueError naming the known boards if none."""
    if isinstance(name, Board):
        return name
    path = BOARDS_DIR / (str(name) + ".json")
    if not path.is_file():
        raise ValueError(
            "unknown board %r; known boards: %s" % (name, ", ".join(board_names()))
        )
    with open(path, encoding="utf-8") as f:
        return _from_dict(json.load(f), str(path))


def all_boards():
    """Every known `Board`, sorted by name."""
    return [load_board(name) for name in board_names()]


def boards_for_usb_id(vid, pid, bootloader=False):
    """Boards whose MicroPython (or, with `bootloader`, ROM bootloader) USB id is vid:pid."""
    key = "%04x:%04x" % (vid, pid)
    return [
        board
        for board in all_boards()
        if key in (board.bootloader_usb_ids if bootloader else board.usb_ids)
    ]
