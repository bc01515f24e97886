"""A tiny `.bst` encoder for the core tests (MicroPython-safe): it follows
docs/bst-format.md independently of burn.host.bst_writer, which needs numpy."""

import binascii
import json
import struct


def _pad16(data):
    return data + bytes(-len(data) % 16)


def encode(header, blobs, arena8, layer8=0, layer32=0, magic=b"\x89BST", version=1,
           arena_f32=0):
    """Bytes of a .bst file: `blobs` is a list of (dtype, shape, raw bytes); arena8 and
    arena_f32 are the int8 and float32 arena bytes, layer8 and layer32 the int8 and int32
    layer buffers' bytes."""
    data = b""
    table = []
    for dtype, shape, raw in blobs:
        data = _pad16(data)
        table.append([len(data), len(raw), dtype, shape])
        data += raw
    header = dict(header, blobs=table)
    text = json.dumps(header).encode()
    doff = (48 + len(text) + 15) // 16 * 16
    rest = struct.pack("<8I", doff, len(data), binascii.crc32(data), arena8, arena_f32,
                       layer8, 0, layer32)
    pad = bytes(doff - 48 - len(text))
    head = struct.pack("<4sHHII", magic, version, 0, len(text),
                       binascii.crc32(rest + text + pad)) + rest
    return head + text + pad + data
