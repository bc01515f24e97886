"""Reader of `.bst` model files (docs/bst-format.md), for CPython and MicroPython.

`BstFile(source)` reads and checks the fixed header and both checksums of a file given as
bytes / bytearray / memoryview (used in place, never copied: the file may live in flash) or
as a path or an open binary file (read piece by piece). The fixed header carries the buffer
sizes, so a runtime can allocate its big buffers while the heap is still unfragmented,
before `parse()` reads the JSON header. Every structural rule of the format is checked
here; a violation is a ValueError that says what is wrong. The op-specific checks live in
`burn.bst_ops`. The checksums and the JSON nesting are checked in pieces of `CHUNK` bytes,
and the header is at most `MAX_HEADER` bytes, so a hostile file costs bounded memory.
"""

import binascii
import json
import struct
import sys
from array import array

from burn.shape import numel

MAGIC = b"\x89BST"
VERSION = 1
HEADER_STRUCT = "<4sHHIIIIIIIIII"
HEADER_SIZE = 48
ALIGN = 16
MAX_HEADER = 1 << 16
MAX_NESTING = 8  # the format nests 5 levels deep (header, ops, op, params, a list)
CHUNK = 1024
MAX_DIM = 1 << 24
# int64, uint8 and uint32 hold plain data (no quantization): what the moves, the control
# ops and a few integer ops carry (docs/bst-format.md, "Plain integer tensors")
ITEMSIZE = {"int8": 1, "int32": 4, "float32": 4, "int16": 2, "int64": 8, "uint8": 1,
            "uint32": 4}
BLOB_DTYPES = ("int8", "int32", "float32", "int16", "int64", "uint8", "uint32")
TYPECODE = {"int8": "b", "int32": "i", "float32": "f", "int16": "h", "int64": "q",
            "uint8": "B", "uint32": "I"}
TENSOR_DTYPES = ("int8", "float32", "int16", "int32", "int64", "uint8", "uint32")
PLAIN_INTS = ("int64", "uint8", "uint32")  # no quantization; the flex bindings leave them out
# the dtypes whose arena sizes are JSON header keys (`arena_int16` ...), absent when 0
HEADER_ARENAS = ("int16", "int32", "int64", "uint8", "uint32")
_SIZE_OF = {"b": 1, "B": 1, "h": 2, "q": 8}  # typecode -> bytes; the others are 4
ROM_DIR = "/rom"  # where a board mounts its ROMFS partition (burn-flash puts models there)
_MP = sys.implementation.name == "micropython"

def zeros(typecode, count):
    """A zero-filled array of `count` elements."""
    return array(typecode, bytes(count * _SIZE_OF.get(typecode, 4)))


def array_from_le(typecode, buf):
    """A new array of `typecode` holding the little-endian bytes `buf` (a copy). Both
    interpreters fill an array from a bytes initialiser's raw memory."""
    a = array(typecode, bytes(buf))
    if sys.byteorder != "little":
        a.byteswap()
    return a


def open_path(path):
    """`path` opened for binary reading. A relative name that is not found from the current
    folder is looked for in ROM_DIR too, as MicroPython's import looks in '' and then /rom:
    so `burn.load("model.bst")` finds the model burn-flash put on any board, on the
    filesystem (/model.bst) or in ROMFS (/rom/model.bst). The first OSError otherwise."""
    try:
        return open(path, "rb")
    except OSError as e:
        missing = e
    if not path.startswith("/"):
        try:
            return open(ROM_DIR + "/" + path, "rb")
        except OSError:
            pass
    raise missing


def _crc32(buf, crc=0):
    return binascii.crc32(buf, crc)


def int_range(dtype):
    """(lowest, highest) value of integer dtype `dtype` ('int8' ... 'uint32')."""
    bits = ITEMSIZE[dtype] * 8
    if dtype[0] == "u":
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def check_int(v, lo, hi, what):
    """`v` if it is an int in [lo, hi], else ValueError naming `what`."""
    if type(v) is not int or v < lo or v > hi:
        raise ValueError("%s: expected an integer in [%d, %d], got %s" % (what, lo, hi,
                                                                          repr(v)[:40]))
    return v


def _tensor_dtype(entry, what):
    """The dtype of a tensor or variable entry, ValueError naming `what` for another."""
    dtype = entry["dtype"]
    if dtype not in TENSOR_DTYPES:
        raise ValueError("%s: dtype must be one of %s, got %s" % (
            what, TENSOR_DTYPES, repr(dtype)[:20]))
    return dtype


def _check_type(v, kind, what):
    if type(v) is not kind:
        raise ValueError("%s: expected %s, got %s" % (what, kind.__name__, type(v).__name__))
    return v


def check_number(v, what):
    """`v` as a float if it is a finite int or float, else ValueError naming `what`."""
    if type(v) is int and -MAX_DIM <= v <= MAX_DIM:
        return float(v)
    if type(v) is not float or v - v != 0:  # inf - inf and nan - nan are nan
        raise ValueError(what + ": expected a finite number, got " + repr(v)[:40])
    return v


def check_shape(v, what):
    """A tuple from a JSON list of at most 8 dims, each in [1, 2**24]."""
    _check_type(v, list, what)
    if len(v) > 8:
        raise ValueError(what + ": more than 8 dims")
    return tuple([check_int(d, 1, MAX_DIM, what) for d in v])


class BstFile:
    """A checked `.bst` file: its header fields, tensors, ops and blobs.

    `source`: bytes, bytearray or memoryview of the whole file, a path, or an open binary
    file (something with readinto and seek). `max_arena` caps the arena bytes a file may
    ask for.
    """

    def __init__(self, source, max_arena):
        self.file = None
        self.mem = None
        self.mapped = None  # a file whose bytes are addressable in place (ROMFS in flash)
        if isinstance(source, (bytes, bytearray, memoryview)):
            self.mem = memoryview(source)
            self.size = len(self.mem)
        else:
            if isinstance(source, str):
                source = open_path(source)
            elif not hasattr(source, "readinto"):
                raise TypeError("burn.load: expected bytes, a path or a binary file, got "
                                + type(source).__name__)
            try:
                self.mem = memoryview(source)  # a ROMFS file: weights read in place
                self.mapped = source
                self.size = len(self.mem)
            except TypeError:
                self.file = source
                self.size = source.seek(0, 2)
        try:
            self._read_prefix(max_arena)
        except BaseException:
            self.close()
            raise

    def parse(self):
        """Read and check the JSON header (tensors, ops, blobs, inputs, outputs, tests)."""
        self._check_nesting()
        try:
            text = self.read_at(HEADER_SIZE, self.header_len)
            # MicroPython's json reads a memoryview (of flash) in place; CPython's needs bytes
            header = json.loads(text if _MP and self.mem is not None else bytes(text))
            del text
        except MemoryError:
            raise ValueError("not enough memory to read the %d-byte header" %
                             self.header_len) from None
        except (ValueError, RuntimeError) as e:
            raise ValueError("header is not valid JSON: " + repr(e)[:80]) from None
        try:
            _check_type(header, dict, "header")
            self._parse(header)
        except (KeyError, IndexError, TypeError, AttributeError) as e:
            raise ValueError("corrupt .bst header: " + repr(e)[:120]) from None
        except MemoryError:
            raise ValueError("not enough memory for the %d-byte header's tables" %
                             self.header_len) from None

    def _check_nesting(self):
        """Refuse JSON nested deeper than MAX_NESTING before parsing it: a scan in pieces
        that knows strings and their escapes."""
        depth = 0
        in_str = escaped = False
        for piece in self._pieces(HEADER_SIZE, self.header_len):
            for c in piece:
                if in_str:
                    if escaped:
                        escaped = False
                    elif c == 92:  # backslash
                        escaped = True
                    elif c == 34:  # quote
                        in_str = False
                elif c == 34:
                    in_str = True
                elif c == 91 or c == 123:  # [ {
                    depth += 1
                    if depth > MAX_NESTING:
                        raise ValueError("header: JSON nested more than %d levels deep"
                                         % MAX_NESTING)
                elif c == 93 or c == 125:  # ] }
                    depth -= 1

    def _pieces(self, pos, n):
        """The bytes [pos, pos + n) of the file as memoryviews of at most CHUNK bytes; in
        file mode each is read into one reused buffer."""
        if self.mem is not None:
            for at in range(pos, pos + n, CHUNK):
                yield self.mem[at:min(at + CHUNK, pos + n)]
            return
        view = memoryview(bytearray(CHUNK))
        self.file.seek(pos)
        while n > 0:
            got = self.file.readinto(view[:min(n, CHUNK)])
            if not got:
                raise ValueError("file ended early")
            yield view[:got]
            n -= got

    def _crc(self, pos, n):
        crc = 0
        for piece in self._pieces(pos, n):
            crc = _crc32(piece, crc)
        return crc

    def close(self):
        """Close the file this reader opened or was given."""
        for f in (self.file, self.mapped):
            if f is not None:
                f.close()
        self.file = self.mapped = None

    def read_at(self, pos, n):
        """`n` bytes at `pos` (a memoryview in bytes mode, a bytes copy in file mode)."""
        if self.mem is not None:
            return self.mem[pos:pos + n]
        self.file.seek(pos)
        data = self.file.read(n)
        if data is None or len(data) != n:
            raise ValueError("file ended early")
        return data

    def _read_prefix(self, max_arena):
        if self.size < HEADER_SIZE:
            raise ValueError("not a .bst file: %d bytes, shorter than the header" % self.size)
        head = struct.unpack(HEADER_STRUCT, bytes(self.read_at(0, HEADER_SIZE)))
        magic, version, flags, hlen, hcrc, doff, dlen, dcrc = head[:8]
        a8, a32, l8, l32, li32 = head[8:]
        if magic != MAGIC:
            raise ValueError("not a .bst file: bad magic " + repr(magic))
        if version != VERSION or flags != 0:
            raise ValueError("unsupported .bst version %d (flags %d); this reader reads "
                             "version %d" % (version, flags, VERSION))
        if hlen > MAX_HEADER:
            raise ValueError("JSON header of %d bytes: the limit is %d" % (hlen, MAX_HEADER))
        if doff < HEADER_SIZE + hlen or doff % ALIGN:
            raise ValueError("bad data offset %d for a header of %d bytes" % (doff, hlen))
        if doff + dlen != self.size:
            raise ValueError("file size %d != data offset %d + data length %d (truncated?)"
                             % (self.size, doff, dlen))
        if a8 + a32 > max_arena or a32 % 4 or l8 + l32 + li32 > dlen or (l32 | li32) % 4:
            raise ValueError("arena of %d + %d bytes (limit %d) or layer buffers of %d + %d + "
                             "%d bytes (data %d) impossible" % (a8, a32, max_arena, l8, l32, li32,
                                                                dlen))
        self.arena = {"int8": a8, "float32": a32, "int16": max_arena - a8 - a32}
        self.layer = {"int8": l8, "float32": l32, "int32": li32}
        if self._crc(16, doff - 16) != hcrc:
            raise ValueError("header checksum mismatch: the file is corrupt")
        self.header_len = hlen
        self.data_offset = doff
        self.data_len = dlen
        if self._crc(doff, dlen) != dcrc:
            raise ValueError("data checksum mismatch: the file is corrupt")

    def _parse(self, h):
        # int16, int32 and the plain integer tensors came after the fixed header: their
        # arenas' sizes are header keys, absent in files without them (the limit is what
        # max_arena leaves)
        room = self.arena["int16"]
        for dt in HEADER_ARENAS:
            self.arena[dt] = n = check_int(h.get("arena_" + dt, 0), 0, room, dt + " arena")
            room -= n
        # Packed as 8 ints per blob (offset, bytes, dtype, ndim, 4 dims): a list of tuples
        # would take several times the RAM on a board.
        self.n_blobs = 0
        self._blobs = array("i")
        for b in _check_type(h["blobs"], list, "blobs"):
            self._blob(b)
        tensors = _check_type(h["tensors"], list, "tensors")
        self.tensors = [self._tensor(t, i) for i, t in enumerate(tensors)]
        self.ops = [self._op(o, i) for i, o in enumerate(_check_type(h["ops"], list, "ops"))]
        self.inputs = self._io(h["inputs"], "inputs")
        self.outputs = self._io(h["outputs"], "outputs")
        self._check_order(self.ops, [t for t, _s in self.inputs],
                          [t for t, _s in self.outputs], "")
        # subgraphs (IF, WHILE, CALL_ONCE) and resource variables: absent from most files
        # (docs/bst-format.md, "Subgraphs and variables"); burn.graph.control runs them
        self.subgraphs = [self._subgraph(g, i) for i, g in enumerate(
            _check_type(h.get("subgraphs", []), list, "subgraphs"))]
        self.variables = [self._variable(v, i) for i, v in enumerate(
            _check_type(h.get("variables", []), list, "variables"))]
        self.tests = [self._test(t, i) for i, t in enumerate(_check_type(h.get("tests", []),
                                                                        list, "tests"))]
        self.labels = _check_type(h.get("labels", []), list, "labels")
        for v in self.labels:
            _check_type(v, str, "label")
        self.metadata = _check_type(h.get("metadata", {}), dict, "metadata")

    def blob(self, index):
        """(offset, nbytes, dtype, shape) of blob `index`."""
        e = self._blobs
        i = index * 8
        return e[i], e[i + 1], BLOB_DTYPES[e[i + 2]], tuple(e[i + 4:i + 4 + e[i + 3]])

    def _check_order(self, ops, inputs, outputs, where):
        """Every tensor an op or the graph output reads is written before (`where`: "" for
        the main graph, "subgraph 2 " for a subgraph)."""
        written = [False] * len(self.tensors)
        for tid in inputs:
            written[tid] = True
        for i, (kind, ins, outs, _consts, _params) in enumerate(ops):
            for tid in ins:
                if not written[tid]:
                    raise ValueError("%sop %d (%s) reads tensor %d before it is written" % (
                        where, i, kind, tid))
            for tid in outs:
                written[tid] = True
        for tid in outputs:
            if not written[tid]:
                raise ValueError("%soutput tensor %d is never written" % (where, tid))

    def _subgraph(self, g, i):
        """(ops, input tensor ids, output tensor ids) of subgraph `i`, checked as the main
        graph is (the calls between graphs: burn.graph.control)."""
        where = "subgraph %d " % i
        _check_type(g, dict, where)
        ops = [self._op(o, k, where) for k, o in enumerate(_check_type(g["ops"], list,
                                                                       where + "ops"))]
        n = len(self.tensors)
        io = [[check_int(t, 0, n - 1, where + key) for t in _check_type(g[key], list,
                                                                           where + key)]
              for key in ("inputs", "outputs")]
        self._check_order(ops, io[0], io[1], where)
        return (ops, io[0], io[1])

    def _variable(self, v, i):
        """(dtype, element count, rest value, name) of resource variable `i`."""
        what = "variable %d" % i
        _check_type(v, dict, what)
        dtype = _tensor_dtype(v, what)
        count = numel(check_shape(v["shape"], what + " shape"))
        if dtype == "float32":
            rest = check_number(v["rest"], what + " rest")
        else:
            lo, hi = int_range(dtype)
            rest = check_int(v["rest"], lo, hi, what + " rest")
        return (dtype, count, rest, str(v.get("name", "")))

    def _blob(self, b):
        what = "blob %d" % self.n_blobs
        _check_type(b, list, what)
        if len(b) != 4:
            raise ValueError(what + ": expected [offset, nbytes, dtype, shape]")
        off = check_int(b[0], 0, self.data_len, what + " offset")
        nbytes = check_int(b[1], 0, self.data_len - off, what + " size")
        dtype = b[2]
        if dtype not in ITEMSIZE:
            raise ValueError(what + ": unknown dtype " + repr(dtype)[:20])
        shape = check_shape(b[3], what + " shape")
        if off % ALIGN or numel(shape) * ITEMSIZE[dtype] != nbytes or len(shape) > 4:
            raise ValueError(what + ": misaligned, more than 4 dims, or size does not match "
                             "its shape")
        dims = shape + (0,) * (4 - len(shape))
        self._blobs.extend(array("i", (off, nbytes, BLOB_DTYPES.index(dtype), len(shape)) +
                                 dims))
        self.n_blobs += 1

    def _tensor(self, t, i):
        what = "tensor %d" % i
        _check_type(t, dict, what)
        dtype = _tensor_dtype(t, what)
        shape = check_shape(t["shape"], what + " shape")
        off = check_int(t["arena"], 0, self.arena[dtype], what + " arena offset")
        nbytes = numel(shape) * ITEMSIZE[dtype]
        if off + nbytes > self.arena[dtype] or off % ITEMSIZE[dtype]:
            raise ValueError("%s: %d bytes at offset %d do not fit the %s arena of %d bytes"
                             % (what, nbytes, off, dtype, self.arena[dtype]))
        scale = zp = None
        if "scale" in t:
            scale = check_number(t["scale"], what + " scale")
            if not scale > 0:
                raise ValueError(what + " scale: must be positive, got " + repr(scale))
            lo, hi = int_range(dtype if dtype in ("int16", "uint8") else "int8")
            zp = check_int(t["zero_point"], lo, hi, what + " zero point")
        return (shape, dtype, off, scale, zp, str(t.get("name", "")))

    def _op(self, o, i, where=""):
        what = where + "op %d" % i
        _check_type(o, dict, what)
        kind = _check_type(o["op"], str, what + " kind")
        n = len(self.tensors)
        ins = [check_int(t, 0, n - 1, what + " input") for t in _check_type(o["in"], list,
                                                                               what)]
        outs = [check_int(t, 0, n - 1, what + " output") for t in _check_type(o["out"], list,
                                                                                 what)]
        consts = {}
        for name, b in _check_type(o.get("consts", {}), dict, what + " consts").items():
            consts[name] = check_int(b, 0, self.n_blobs - 1, what + " const " + name)
        params = _check_type(o.get("params", {}), dict, what + " params")
        return (kind, ins, outs, consts, params)

    def _io(self, items, what):
        out = []
        for i, item in enumerate(_check_type(items, list, what)):
            _check_type(item, dict, what)
            tid = check_int(item["tensor"], 0, len(self.tensors) - 1, what + " tensor")
            shape = check_shape(item["shape"], what + " shape")
            if numel(shape) != numel(self.tensors[tid][0]):
                raise ValueError("%s %d: shape %s does not match tensor %d" % (
                    what, i, shape, tid))
            out.append((tid, shape))
        if not out:
            raise ValueError("the graph has no " + what)
        return out

    def _test(self, t, i):
        _check_type(t, dict, "test %d" % i)
        pair = []
        for key, io in (("inputs", self.inputs), ("outputs", self.outputs)):
            blobs = _check_type(t[key], list, "test %d %s" % (i, key))
            if len(blobs) != len(io):
                raise ValueError("test %d: expected %d %s" % (i, len(io), key))
            for b, (tid, shape) in zip(blobs, io):
                b = check_int(b, 0, self.n_blobs - 1, "test blob")
                blob = self.blob(b)
                if blob[2] != self.tensors[tid][1] or numel(blob[3]) != numel(shape):
                    raise ValueError("test %d: a %s blob does not match its tensor" % (i, key))
            pair.append(blobs)
        return pair

    def blob_bytes(self, index):
        """The raw bytes of blob `index`: a memoryview into the file (bytes mode) or a copy."""
        off, nbytes, _dtype, _shape = self.blob(index)
        return self.read_at(self.data_offset + off, nbytes)

    def blob_array(self, index):
        """Blob `index` as a new array of its dtype (a copy)."""
        return array_from_le(TYPECODE[self.blob(index)[2]], self.blob_bytes(index))
