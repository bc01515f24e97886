"""UF2 firmware files: reading with full validation, writing, and conversion from ELF and raw
binaries and back.

A UF2 file is a sequence of 512-byte blocks, each carrying up to 476 bytes of payload for one
target address:

    offset  0  magic 0x0A324655      offset 16  payload size (<= 476)
    offset  4  magic 0x9E5D5157      offset 20  block number (0-based)
    offset  8  flags                 offset 24  number of blocks
    offset 12  target address        offset 28  family id (flag 0x2000) or file size
    offset 32  payload (476 bytes, the first `payload size` of them used)
    offset 508 magic 0x0AB16F30

Files may be concatenations of several UF2 files (a "section" each, its block numbers
starting again from 0), e.g. one for the RP2040 and one for the RP2350; a bootloader keeps
the blocks of its own family. Within one section the family and block count never change.

    from burn.host import uf2
    blocks = uf2.parse(open("firmware.uf2", "rb").read())     # UF2Error if invalid
    ranges = uf2.image(blocks)                                # {address: bytes}
    data = uf2.write_uf2((0x10000000, code), "rp2040")

`drive` copies a UF2 onto a board in BOOTSEL mode (its RPI-RP2 drive).
"""

import re
import struct
from dataclasses import dataclass

from burn.host.flex.elf import Elf

BLOCK_SIZE = 512
MAX_PAYLOAD = 476
MAGIC_START0 = 0x0A324655
MAGIC_START1 = 0x9E5D5157
MAGIC_END = 0x0AB16F30

FLAG_NOT_MAIN_FLASH = 0x00000001
FLAG_FILE_CONTAINER = 0x00001000
FLAG_FAMILY_ID = 0x00002000
FLAG_MD5 = 0x00004000
FLAG_EXTENSION_TAGS = 0x00008000

RP2040_FLASH_BASE = 0x10000000

# Family ids (the UF2 specification's registry); the names are what --family accepts.
FAMILIES = {
    "rp2040": 0xE48BFF56,
    "absolute": 0xE48BFF57,
    "data": 0xE48BFF58,
    "rp2350-arm-s": 0xE48BFF59,
    "rp2350-riscv": 0xE48BFF5A,
    "rp2350-arm-ns": 0xE48BFF5B,
    "esp32": 0x1C5F21B0,
    "esp32s2": 0xBFDD4EEE,
    "esp32s3": 0xC47E5767,
    "esp32c3": 0xD42BA06C,
    "samd21": 0x68ED2B88,
    "samd51": 0x55114460,
    "nrf52": 0x1B57745F,
    "nrf52840": 0xADA52840,
    "stm32f1": 0x5EE21072,
    "stm32f4": 0x57755A57,
    "stm32h7": 0x6DB66082,
}
_FAMILY_NAMES = {value: name for name, value in FAMILIES.items()}

_HEADER = struct.Struct("<IIIIIIII")
_MP_VERSION = re.compile(rb"MicroPython (v\d+\.\d+[\w.+-]*)(?: on (\d{4}-\d{2}-\d{2}))?")
_MP_MACHINE = re.compile(rb"; ([\x20-\x7e]{1,80}) with ([\x20-\x7e]{1,40})\0")
_FROZEN_NAMES = re.compile(rb"(?:[A-Za-z0-9_][A-Za-z0-9_./-]{0,80}\.m?py\0)+")


class UF2Error(ValueError):
    """The data is not a valid UF2 file, or cannot be turned into one; the message says which
    block and what is wrong."""


@dataclass(frozen=True)
class Block:
    """One UF2 block: `index` is its position in the file, `family` None when the block
    carries no family id."""

    index: int
    flags: int
    address: int
    data: bytes
    block_no: int
    num_blocks: int
    family: int

    @property
    def end(self):
        """The address after the block's last byte."""
        return self.address + len(self.data)


def family_name(family):
    """A family id's name ('rp2040', ...), or its hex form when unknown; 'none' for None."""
    if family is None:
        return "none"
    return _FAMILY_NAMES.get(family, "0x%08x" % family)


def family_id(text):
    """The family id named by `text`: a name of FAMILIES (any case, '_' for '-') or a number
    such as '0xe48bff56'. UF2Error when it is neither."""
    key = str(text).strip().lower().replace("_", "-")
    if key in FAMILIES:
        return FAMILIES[key]
    try:
        value = int(key, 0)
    except ValueError:
        value = -1
    if not 0 <= value <= 0xFFFFFFFF:
        raise UF2Error("unknown UF2 family %r: use a number such as 0xe48bff56 or one of %s"
                       % (text, ", ".join(sorted(FAMILIES))))
    return value


def is_uf2(data):
    """Whether `data` starts like a UF2 file (the two start magic words)."""
    return len(data) >= 8 and struct.unpack_from("<II", data) == (MAGIC_START0, MAGIC_START1)


# ---- reading ----------------------------------------------------------------------------------


def _block(data, index):
    where = "block %d (file offset %d)" % (index, index * BLOCK_SIZE)
    (magic0, magic1, flags, address, size, block_no, num_blocks,
     family) = _HEADER.unpack_from(data, index * BLOCK_SIZE)
    if (magic0, magic1) != (MAGIC_START0, MAGIC_START1):
        what = "not a UF2 file" if index == 0 else "bad start magic in %s" % where
        raise UF2Error("%s: found 0x%08x 0x%08x, expected 0x%08x 0x%08x"
                       % (what, magic0, magic1, MAGIC_START0, MAGIC_START1))
    (magic_end,) = struct.unpack_from("<I", data, index * BLOCK_SIZE + 508)
    if magic_end != MAGIC_END:
        raise UF2Error("bad end magic in %s: found 0x%08x, expected 0x%08x"
                       % (where, magic_end, MAGIC_END))
    if size > MAX_PAYLOAD:
        raise UF2Error("%s: payload size %d is over the maximum of %d"
                       % (where, size, MAX_PAYLOAD))
    if num_blocks == 0 or block_no >= num_blocks:
        raise UF2Error("%s: block number %d is not below the number of blocks %d"
                       % (where, block_no, num_blocks))
    if flags & FLAG_NOT_MAIN_FLASH == 0 and address + size > 1 << 32:
        raise UF2Error("%s: %d bytes at 0x%08x run past the 4 GB address space"
                       % (where, size, address))
    start = index * BLOCK_SIZE + 32
    return Block(index, flags, address, bytes(data[start:start + size]), block_no,
                 num_blocks, family if flags & FLAG_FAMILY_ID else None)


def parse(data):
    """The blocks of the UF2 file `data` (bytes), checked: length a whole number of blocks,
    the magic words, payload sizes, block numbers 0..n-1 in order within each section, the
    same block count and family within a section, no section cut short. UF2Error otherwise."""
    data = memoryview(bytes(data))
    if not data:
        raise UF2Error("the file is empty: no UF2 blocks")
    if not is_uf2(data):
        raise UF2Error(_not_uf2(bytes(data[:16])))
    count, extra = divmod(len(data), BLOCK_SIZE)
    if extra:
        raise UF2Error("the file is %d bytes, not a whole number of %d-byte blocks: it is "
                       "truncated in block %d (%d of its %d bytes present)"
                       % (len(data), BLOCK_SIZE, count, extra, BLOCK_SIZE))
    blocks = []
    first = None  # the first block of the current section
    for index in range(count):
        block = _block(data, index)
        expected = 0 if first is None else block.index - first.index
        if first is not None and expected == first.num_blocks:
            first, expected = None, 0  # the section is complete; a new one must start at 0
        if block.block_no == 0 and first is not None and _errata_block(first, expected):
            first, expected = None, 0
        if block.block_no != expected:
            raise UF2Error(_numbering(block, expected, first))
        if first is None:
            first = block
        elif block.num_blocks != first.num_blocks:
            raise UF2Error("block %d says the file has %d blocks, block %d said %d"
                           % (index, block.num_blocks, first.index, first.num_blocks))
        elif block.family != first.family:
            raise UF2Error("block %d is for family %s, block %d for %s: mixed families in one "
                           "section" % (index, family_name(block.family), first.index,
                                        family_name(first.family)))
        blocks.append(block)
    done = blocks[-1].index - first.index + 1
    if done != first.num_blocks:
        raise UF2Error("the file ends after block %d of %d (section starting at block %d): "
                       "it is truncated" % (done - 1, first.num_blocks, first.index))
    return blocks


def _errata_block(first, seen):
    """Whether a section cut short is picotool's RP2350-E10 workaround: one block for the
    'absolute' family that says it is 1 of 2, before the image's own section."""
    return seen == 1 and first.family == FAMILIES["absolute"] and first.num_blocks == 2


def _not_uf2(head):
    if head.startswith(b"\x7fELF"):
        return "not a UF2 file but an ELF file: convert it with `burn uf2 convert`"
    return "not a UF2 file: it starts with %s, not the UF2 magic 0x%08x 0x%08x" % (
        head[:8].hex(" ") or "nothing", MAGIC_START0, MAGIC_START1)


def _numbering(block, expected, first):
    where = "block %d" % block.index
    if first is None:
        return "%s has block number %d, expected 0 (the start of a section)" % (
            where, block.block_no)
    if block.block_no == 0:
        return ("%s starts a new section, but the section starting at block %d has only %d "
                "of its %d blocks" % (where, first.index, expected, first.num_blocks))
    kind = "duplicate" if block.block_no < expected else "gap"
    return "%s has block number %d, expected %d (%s in the numbering)" % (
        where, block.block_no, expected, kind)


def families(blocks):
    """The family ids of `blocks` in order of first appearance (None for blocks without)."""
    return list(dict.fromkeys(b.family for b in blocks))


def image(blocks, family=None):
    """The bytes `blocks` put in memory as contiguous ranges {start address: bytes}, sorted.
    Blocks flagged 'not main flash' are left out; with `family`, only that family's blocks
    count. UF2Error when blocks overlap or several families would be mixed."""
    if family is not None and family not in families(blocks):
        raise UF2Error("the file holds no blocks for family %s; it has %s" % (
            family_name(family), ", ".join(family_name(f) for f in families(blocks))))
    chosen = [b for b in blocks if not b.flags & FLAG_NOT_MAIN_FLASH
              and (family is None or b.family == family)]
    kinds = families(chosen)
    if len(kinds) > 1:
        raise UF2Error("the file holds images for several families (%s): choose one"
                       % ", ".join(family_name(f) for f in kinds))
    ranges = {}
    start, parts, last = None, [], None
    for block in sorted(chosen, key=lambda b: b.address):
        if last is not None and block.address < last.end:
            raise UF2Error("block %d (0x%08x..0x%08x) overlaps block %d (0x%08x..0x%08x)"
                           % (block.index, block.address, block.end, last.index,
                              last.address, last.end))
        if last is None or block.address != last.end:
            if parts:
                ranges[start] = b"".join(parts)
            start, parts = block.address, []
        parts.append(block.data)
        last = block
    if parts:
        ranges[start] = b"".join(parts)
    return ranges


def to_bin(ranges, fill=0xFF, max_bytes=64 << 20):
    """(base address, bytes) covering `ranges` from the lowest to the highest address, the
    gaps filled with `fill`. UF2Error for an empty image or one spanning over `max_bytes`
    (e.g. flash and RAM addresses together)."""
    if not ranges:
        raise UF2Error("the image holds no bytes")
    base = min(ranges)
    end = max(start + len(data) for start, data in ranges.items())
    if end - base > max_bytes:
        raise UF2Error("the image spans 0x%08x to 0x%08x (%d MB), too far apart for one "
                       "binary of at most %d MB; its ranges: %s" % (
                           base, end, (end - base) >> 20, max_bytes >> 20,
                           ", ".join("0x%08x+%d" % (s, len(d)) for s, d in sorted(
                               ranges.items()))))
    out = bytearray([fill]) * (end - base)
    for start, data in ranges.items():
        out[start - base:start - base + len(data)] = data
    return base, bytes(out)


# ---- writing ----------------------------------------------------------------------------------


def write_uf2(ranges, family, payload=256, fill=0xFF):
    """The UF2 file (bytes) for `ranges` ({address: bytes}, or one (base, bytes) pair) and
    `family` (an id, or a name of FAMILIES). Each block carries `payload` bytes (a power of
    two, 4..256) at an address aligned to `payload`, as the RP2040 bootloader requires; the
    parts of a block the ranges do not cover are `fill`."""
    if isinstance(ranges, tuple):
        ranges = {ranges[0]: ranges[1]}
    family = family_id(family) if isinstance(family, str) else family
    if not (4 <= payload <= 256 and payload & (payload - 1) == 0):
        raise UF2Error("payload size %r must be a power of two from 4 to 256" % payload)
    pages = {}
    for start, data in ranges.items():
        if start < 0 or start + len(data) > 1 << 32:
            raise UF2Error("%d bytes at 0x%x do not fit the 4 GB address space"
                           % (len(data), start))
        address = start
        while address < start + len(data):
            page = address - address % payload
            chunk_end = min(page + payload, start + len(data))
            buf = pages.setdefault(page, bytearray([fill]) * payload)
            buf[address - page:chunk_end - page] = data[address - start:chunk_end - start]
            address = chunk_end
    if not pages:
        raise UF2Error("nothing to write: the image holds no bytes")
    out = bytearray()
    for number, page in enumerate(sorted(pages)):
        out += _HEADER.pack(MAGIC_START0, MAGIC_START1, FLAG_FAMILY_ID, page, payload, number,
                            len(pages), family)
        out += bytes(pages[page]).ljust(MAX_PAYLOAD, b"\0")
        out += struct.pack("<I", MAGIC_END)
    return bytes(out)


def elf_ranges(data):
    """{physical address: bytes} of an ELF file's loadable segments. UF2Error when `data` is
    not a valid 32-bit little-endian ELF or loads nothing."""
    try:
        elf = Elf(data)
    except (ValueError, struct.error, IndexError) as exc:
        raise UF2Error("not a valid ELF file (truncated or corrupt): %s" % exc) from None
    ranges = {}
    for address, chunk in sorted(elf.load_images):
        if ranges:
            last = max(ranges)
            if address < last + len(ranges[last]):
                raise UF2Error("ELF segments overlap at physical address 0x%08x" % address)
            if address == last + len(ranges[last]):
                ranges[last] += chunk
                continue
        ranges[address] = chunk
    if not ranges:
        raise UF2Error("the ELF file has no loadable segment with bytes")
    return ranges


# ---- describing -------------------------------------------------------------------------------


def micropython_facts(ranges):
    """What a MicroPython firmware image tells about itself, or None when none is found:
    {'version', 'build_date', 'banner', 'machine', 'frozen'} (frozen: module names)."""
    blob = b"\xff".join(ranges[start] for start in sorted(ranges))
    found = _MP_VERSION.search(blob)
    if found is None:
        return None
    machine = _MP_MACHINE.search(blob)
    names = max((m.group(0) for m in _FROZEN_NAMES.finditer(blob)),
                key=lambda run: run.count(b"\0"), default=b"")
    return {
        "version": found.group(1).decode(),
        "build_date": found.group(2).decode() if found.group(2) else None,
        "banner": found.group(0).decode(),
        "machine": "%s with %s" % (machine.group(1).decode(), machine.group(2).decode())
        if machine else None,
        "frozen": [n.decode() for n in names.split(b"\0") if n],
    }


def info(data):
    """A description of the UF2 file `data`: {'families': [{'name', 'id'}], 'family' (the
    first), 'blocks', 'payload_bytes', 'ranges': [{'family', 'start', 'end', 'size'}] and
    'micropython' (micropython_facts of the first family's image, or None)}. UF2Error if
    invalid."""
    blocks = parse(data)
    kinds = families(blocks)
    images = {f: image([b for b in blocks if b.family == f]) for f in kinds}
    spans = [{"family": family_name(f), "start": start, "end": start + len(chunk),
              "size": len(chunk)}
             for f in kinds for start, chunk in images[f].items()]
    described = [{"name": family_name(f), "id": f} for f in kinds]
    return {
        "family": described[0],
        "families": described,
        "blocks": len(blocks),
        "payload_bytes": sum(len(b.data) for b in blocks),
        "ranges": spans,
        "micropython": micropython_facts(images[kinds[0]]),
    }
