"""MicroPython ROMFS images with aligned file data: build, read back, put on a board.

ROMFS is the read-only filesystem that MicroPython (1.25 and later) maps from a flash
partition and mounts at /rom. Its files are addressable in place: `burn.load("/rom/m.bst")`
uses the int8 weights where they lie in flash. This module writes the image itself so that
every file's data starts on an `align`-byte boundary (the `.bst` blobs are aligned relative
to the file's start; word loads of unaligned data fault on a Cortex-M0+).

Format (MicroPython's extmod/vfs_rom.c): a record is a varuint kind, a varuint payload
length and the payload; varuints are big-endian base-128 and may be widened with leading
0x80 bytes. The image is one record of kind 0x14a6b1 holding file (5) and directory (4)
records; a file record holds a varuint name length, the name, then nested records, here a
padding record (1) when needed and one verbatim data record (2).
"""

import base64
import hashlib

FILESYSTEM = 0x14A6B1
PADDING, DATA, DIRECTORY, FILE = 1, 2, 4, 5
_LEN_WIDTH = 4  # payload lengths written 4 bytes wide, so offsets are known in advance
ROM_MOUNT = "/rom"


class RomfsError(ValueError):
    """A ROMFS image is invalid, or does not fit the board's partition."""


def _varuint(value, width=None):
    out = [value & 0x7F]
    value >>= 7
    while value:
        out.append(0x80 | (value & 0x7F))
        value >>= 7
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
    """Bytes that skip `count` bytes: nothing, or a padding record (count >= 2)."""
    if count == 0:
        return b""
    if count < 2 or count > 129:
        raise RomfsError("cannot pad by %d bytes" % count)
    return bytes([PADDING, count - 2]) + b"\0" * (count - 2)


def build_image(files, align=16):
    """The ROMFS image (bytes) of `files`, {path: bytes} with '/'-separated relative paths,
    each file's data starting at a multiple of `align` bytes from the image's start."""
    head_len = 3 + _LEN_WIDTH
    body = bytearray()
    for path in sorted(files):
        parts = [p for p in path.split("/") if p]
        if not parts or any(p in (".", "..") for p in parts):
            raise RomfsError("bad file name %r" % path)
        if len(parts) > 1:
            raise RomfsError("%r: only files at the top of /rom are supported" % path)
        name = parts[0].encode()
        data = bytes(files[path])
        # file record: kind, length, name length, name, [padding], data record header, data
        start = head_len + len(body)
        fixed = 1 + _LEN_WIDTH + len(_varuint(len(name))) + len(name) + 1 + _LEN_WIDTH
        pad = (-(start + fixed)) % align
        name_len = _varuint(len(name))
        if pad == 1:  # one byte is not a record: widen the name length varuint instead
            name_len = b"\x80" + name_len
            pad = 0
        inner = name_len + name + _padding(pad) + bytes([DATA]) + \
            _varuint(len(data), _LEN_WIDTH) + data
        body += bytes([FILE]) + _varuint(len(inner), _LEN_WIDTH) + inner
    if (head_len + len(body)) % 2:  # the image's size must be even: a 3-byte padding record
        body += _padding(3)
    return _varuint(FILESYSTEM) + _varuint(len(body), _LEN_WIDTH) + bytes(body)


def read_image(data):
    """{name: (offset, length)} of the files of a ROMFS image (top level); RomfsError if it
    is not a valid image."""
    data = bytes(data)
    if len(data) < 4 or data[:3] != _varuint(FILESYSTEM):
        raise RomfsError("not a ROMFS image (no 'RM1' header)")
    length, pos = _read_varuint(data, 3, len(data))
    end = pos + length
    if end > len(data):
        raise RomfsError("the image is truncated: %d bytes of %d" % (len(data), end))
    found = {}
    while pos < end:
        kind, pos = _read_varuint(data, pos, end)
        size, pos = _read_varuint(data, pos, end)
        if pos + size > end:
            raise RomfsError("a record runs past the image at byte %d" % pos)
        if kind == FILE:
            name_len, inner = _read_varuint(data, pos, pos + size)
            name = data[inner:inner + name_len].decode("utf-8", "replace")
            inner += name_len
            while inner < pos + size:
                k, inner = _read_varuint(data, inner, pos + size)
                n, inner = _read_varuint(data, inner, pos + size)
                if inner + n > pos + size:
                    raise RomfsError("a file's record %r runs past its end at byte %d"
                                     % (name, inner))
                if k == DATA:
                    found[name] = (inner, n)
                inner += n
        pos += size
    return found


# ---- on a board ----------------------------------------------------------------------------

_QUERY = """
import vfs
try:
    _d = vfs.rom_ioctl(2, 0)
    print(repr((len(memoryview(_d)), _d.ioctl(5, 0))))
except Exception:
    print(repr(None))
"""

_HASH = """
import vfs, hashlib, binascii
print(binascii.hexlify(hashlib.sha256(memoryview(vfs.rom_ioctl(2, 0))[:%d]).digest()).decode())
"""

_BEGIN = """
import vfs, binascii
try:
    vfs.umount(%r)
except OSError:
    pass
_d = vfs.rom_ioctl(2, 0)
_d.ioctl(6, 0)
_b = bytearray(%d)
"""

_WRITE = """_b[:] = binascii.a2b_base64(%r)
_d.writeblocks(%d, _b)
"""

_END = """
try:
    vfs.mount(vfs.VfsRom(_d), %r)
except OSError:
    pass
del _d, _b
"""


def partition(link):
    """(bytes, block size) of the board's ROMFS partition, or None when it has none."""
    return link.exec_literal(_QUERY, timeout=30.0)


def board_image_hash(link, size):
    """SHA-256 (hex) of the first `size` bytes of the board's ROMFS partition."""
    return link.exec(_HASH % size, timeout=60.0).strip().splitlines()[-1]


def deploy(link, image, progress=None):
    """Write `image` into the board's ROMFS partition and mount it at /rom. The first block
    (the header) is erased first and written last, so an interrupted write leaves no valid
    image. Returns False when the partition already holds `image` (nothing written).
    RomfsError when the board has no partition or the image does not fit."""
    found = partition(link)
    if found is None:
        raise RomfsError("the board's firmware has no ROMFS partition (MicroPython 1.25+ "
                         "built with one: `burn firmware build`)")
    size, block = found
    if len(image) > size:
        raise RomfsError("the ROMFS image is %d bytes; the board's partition holds %d"
                         % (len(image), size))
    if board_image_hash(link, len(image)) == hashlib.sha256(image).hexdigest():
        return False
    link.exec(_BEGIN % (ROM_MOUNT, block), timeout=30.0)
    blocks = [(i // block, image[i:i + block]) for i in range(0, len(image), block)]
    for done, (index, chunk) in enumerate(blocks[1:] + blocks[:1]):
        chunk = chunk + b"\xff" * (block - len(chunk))  # writeblocks erases whole blocks
        link.exec(_WRITE % (base64.b64encode(chunk).decode(), index), timeout=60.0)
        if progress is not None:
            progress((done + 1) * block, len(blocks) * block)
    link.exec(_END % ROM_MOUNT, timeout=30.0)
    if board_image_hash(link, len(image)) != hashlib.sha256(image).hexdigest():
        raise RomfsError("after writing, the board's ROMFS partition differs from the image")
    return True
