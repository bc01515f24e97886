"""MicroPython ROMFS in burn's layout: a directory block of entry slots, then file data in
whole blocks, so that a file can be replaced without the partition ever lacking it.

ROMFS is the read-only filesystem that MicroPython (1.25 and later) maps from a flash
partition and mounts at /rom. Its files are addressable in place: `burn.load("/rom/m.bst")`
uses the int8 weights where they lie in flash.

Format (MicroPython's extmod/vfs_rom.c): a record is a varuint kind, a varuint payload
length and the payload; varuints are big-endian base-128 and may be widened with leading
0x80 bytes. The image is one record of kind 0x14a6b1 holding file (5) records; a file record
holds a varuint name length, the name, then nested records, here a data-pointer record (3:
size and offset of the data from the start of the image's payload). Records of kinds
MicroPython does not know are skipped, and so are padding records (1).

burn's layout of a partition of `size` bytes, erased in blocks of `block` bytes:

    block 0    the header (its length covers the whole partition), slot_count(block) entry
               slots of SLOT_BYTES each, then one padding record over the rest
    block 1..  file data, each file from a block boundary, pointed to by its entry

An entry slot is one record whose kind byte says its state. The states follow each other
by clearing bits only, which NOR flash does without an erase, one byte at a time:

    FREE  0x7f  a kind MicroPython skips; its payload still erased (0xff)
    LIVE  0x05  a file record: name, data pointer, padding
    DEAD  0x01  a padding record, skipped

MicroPython's lookup takes the first LIVE entry of a name, so a new version of a file is
committed by making its entry LIVE and then the old one DEAD (see burn.host.romfs.write).

In this package: `plan` (which files change, where they go) and `write` (sending a
partition to a board). This module imports nothing, so that it runs unchanged on MicroPython:
the web page's emulated Pico makes a picked model's image with it there
(burn.host.web.pico_site ships it as pico/burn_romfs.py).
"""

FILESYSTEM = 0x14A6B1
PADDING, DATA, POINTER, DIRECTORY, FILE = 1, 2, 3, 4, 5
FREE, LIVE, DEAD = 0x7F, FILE, PADDING
_LEN_WIDTH = 4  # lengths and offsets written 4 bytes wide, so sizes are known in advance
HEADER_BYTES = 3 + _LEN_WIDTH  # the filesystem record's kind and length
SLOT_BYTES = 64
_SLOT_PAYLOAD = SLOT_BYTES - 2  # after the slot's kind byte and its one-byte length
_POINTER_BYTES = 2 + 2 * _LEN_WIDTH
MAX_NAME = _SLOT_PAYLOAD - 1 - _POINTER_BYTES
_TAIL_BYTES = 1 + _LEN_WIDTH  # the padding record over the data area: kind and length
ROM_MOUNT = "/rom"


class RomfsError(ValueError):
    """A ROMFS image is invalid, or does not fit the board's partition."""


def _varuint(value, width=None):
    out = [value & 0x7F]
    rest = value >> 7
    while rest:
        out.append(0x80 | (rest & 0x7F))
        rest >>= 7
    if width is not None:
        if len(out) > width:
            raise RomfsError("a length of %d does not fit %d varuint bytes" % (value, width))
        out += [0x80] * (width - len(out))
    return bytes(reversed(out))


def _read_varuint(data, pos, end):
    value = 0
    while True:
        if pos >= end:
            raise RomfsError("a varuint runs past its record at byte %d" % pos)
        byte = data[pos]
        pos += 1
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, pos


def _padding(count):
    """Bytes that skip `count` bytes: nothing, or a padding record of erased bytes."""
    if count == 0:
        return b""
    if count < 2 or count > 129:
        raise RomfsError("cannot pad by %d bytes" % count)
    return bytes([PADDING, count - 2]) + b"\xff" * (count - 2)


def check_name(name):
    """RomfsError unless `name` can be a file at the top of /rom in an entry slot."""
    encoded = name.encode()
    if not encoded or "/" in name or name in (".", "..") or "\0" in name:
        raise RomfsError("bad file name %r: ROMFS files are plain names at the top of /rom"
                         % name)
    if len(encoded) > MAX_NAME:
        raise RomfsError("file name %r is %d bytes; a ROMFS entry holds names of at most %d"
                         % (name, len(encoded), MAX_NAME))


def slot_count(block):
    """How many entry slots the directory block of `block` bytes holds."""
    return (block - HEADER_BYTES - _TAIL_BYTES) // SLOT_BYTES


def slot_offset(index):
    """Partition offset of entry slot `index`."""
    return HEADER_BYTES + index * SLOT_BYTES


def blocks_for(length, block):
    """Whole blocks that `length` bytes of file data take."""
    return -(-length // block)


def bytes_needed(lengths, block):
    """Partition bytes that files of these `lengths` take in burn's layout: the directory
    block and each file's data in whole blocks."""
    return block * (1 + sum(blocks_for(n, block) for n in lengths))


def entry(name, offset, length):
    """The SLOT_BYTES of a LIVE entry: file `name` whose data lies at partition `offset`."""
    check_name(name)
    encoded = name.encode()
    pointer = bytes([POINTER, 2 * _LEN_WIDTH]) + _varuint(length, _LEN_WIDTH) + \
        _varuint(offset - HEADER_BYTES, _LEN_WIDTH)
    name_len = _varuint(len(encoded))
    spare = _SLOT_PAYLOAD - len(name_len) - len(encoded) - len(pointer)
    if spare == 1:  # one byte is not a record: widen the name length varuint instead
        name_len, spare = b"\x80" + name_len, 0
    payload = name_len + encoded + pointer + _padding(spare)
    return bytes([LIVE, _SLOT_PAYLOAD]) + payload


def header_block(size, block, entries):
    """Block 0 of a partition of `size` bytes: the header, `entries` [(name, offset,
    length)] LIVE in the first slots, FREE slots after them, the padding record over the
    data area; erased (0xff) bytes elsewhere."""
    count = slot_count(block)
    if len(entries) > count:
        raise RomfsError("%d files; a ROMFS directory block holds %d" % (len(entries), count))
    out = bytearray(b"\xff" * block)
    out[:HEADER_BYTES] = _varuint(FILESYSTEM) + _varuint(size - HEADER_BYTES, _LEN_WIDTH)
    for index in range(count):
        at = slot_offset(index)
        if index < len(entries):
            out[at:at + SLOT_BYTES] = entry(*entries[index])
        else:
            out[at:at + 2] = bytes([FREE, _SLOT_PAYLOAD])
    tail = slot_offset(count)
    out[tail:tail + _TAIL_BYTES] = bytes([PADDING]) + \
        _varuint(size - tail - _TAIL_BYTES, _LEN_WIDTH)
    return bytes(out)


def build_image(files, size, block=4096):
    """The start of a partition of `size` bytes holding `files` ({name: bytes}) in burn's
    layout, what a write into an erased partition leaves: the directory block, then each
    file's data from a block boundary, in name order. RomfsError if they do not fit."""
    names = sorted(files)
    need = bytes_needed([len(files[n]) for n in names], block)
    if need > size:
        raise RomfsError("the files take %d bytes in ROMFS; the partition holds %d"
                         % (need, size))
    entries, data, at = [], bytearray(), block
    for name in names:
        entries.append((name, at, len(files[name])))
        chunk = bytes(files[name])
        data += chunk + b"\xff" * (blocks_for(len(chunk), block) * block - len(chunk))
        at += blocks_for(len(chunk), block) * block
    return header_block(size, block, entries) + bytes(data)


class Slot:
    """One entry slot as read from a directory block: `state` FREE, LIVE or DEAD (FREE with
    `erased` False: a slot whose writing was cut, never used again); a LIVE one's `name`,
    data `offset` (in the partition) and `length`."""

    def __init__(self, index, state, erased=True, name=None, offset=None, length=None):
        self.index = index
        self.state = state
        self.erased = erased
        self.name = name
        self.offset = offset
        self.length = length

    def __repr__(self):
        return "Slot(%d, %#x, %r, %r, %r)" % (self.index, self.state, self.name,
                                             self.offset, self.length)


def read_slots(data, size, block):
    """The slots of the directory block `data` of a partition of `size` bytes, or None when
    the block is not in burn's layout (erased, another ROMFS, anything else). LIVE entries
    whose data would lie outside the data area make it not burn's layout either."""
    data = bytes(data)
    if len(data) != block or size % block or size < 2 * block:
        return None
    if data[:HEADER_BYTES] != _varuint(FILESYSTEM) + _varuint(size - HEADER_BYTES, _LEN_WIDTH):
        return None
    slots = []
    for index in range(slot_count(block)):
        at = slot_offset(index)
        kind, length = data[at], data[at + 1]
        payload = data[at + 2:at + SLOT_BYTES]
        if length != _SLOT_PAYLOAD:
            return None
        if kind == FREE:
            slots.append(Slot(index, FREE, erased=payload == b"\xff" * _SLOT_PAYLOAD))
        elif kind == DEAD:
            slots.append(Slot(index, DEAD))
        elif kind == LIVE:
            found = _read_entry(payload, size, block)
            if found is None:
                return None
            slots.append(Slot(index, LIVE, True, *found))
        else:
            return None
    tail = slot_offset(len(slots))
    if data[tail:tail + _TAIL_BYTES] != bytes([PADDING]) + \
            _varuint(size - tail - _TAIL_BYTES, _LEN_WIDTH):
        return None
    return slots


def _read_entry(payload, size, block):
    """(name, offset, length) of a LIVE slot's payload, or None if it is not one burn
    wrote: a name, then a data-pointer record into the data area."""
    try:
        name_len, pos = _read_varuint(payload, 0, len(payload))
        name = payload[pos:pos + name_len].decode()
        pos += name_len
        kind, pos = _read_varuint(payload, pos, len(payload))
        n, pos = _read_varuint(payload, pos, len(payload))
        if kind != POINTER or pos + n > len(payload):
            return None
        length, inner = _read_varuint(payload, pos, pos + n)
        offset, inner = _read_varuint(payload, inner, pos + n)
    except (RomfsError, UnicodeError):
        return None
    offset += HEADER_BYTES
    if offset < block or offset % block or offset + length > size or not name \
            or "/" in name:
        return None
    return name, offset, length
