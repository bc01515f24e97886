"""PyTorch checkpoints (`.pt`, `.pth`) read without importing torch.

Two formats are read: the zip archive `torch.save` writes since PyTorch 1.6 (`NAME/data.pkl`
plus one member `NAME/data/KEY` per storage) and the older stream of pickles
(`_use_new_zipfile_serialization=False`: magic number, protocol, system info, the object,
the storage keys, then each storage as an int64 element count and its bytes). Both go
through the restricted unpickler of `torch_pickle`, so a file that asks to run code is
refused and nothing runs. Tensors come back as read-only numpy views of the file's bytes.
"""

import io
import os
import struct
import zipfile
import zlib

import numpy as np

from .state_load import load_state
from .torch_pickle import CheckpointError, StorageRef, resolve, unpickle, unpickle_bytes

_MAGIC = 0x1950A86A20F9469CFC6C
_LEGACY_PROTOCOL = 1001
MAX_PICKLE = 256 << 20  # bytes of the object's pickle in a zip checkpoint
STATE_KEYS = ("state_dict", "model_state_dict", "model", "net", "module")


class _Storages:
    """The storages a pickle names: one StorageRef per key, the bytes filled in later."""

    def __init__(self):
        self.index = {}
        self.kinds = []
        self.sizes = []
        self.arrays = []

    def __call__(self, kind, key, numel):
        if key in self.index:
            i = self.index[key]
            if self.kinds[i].dtype != kind.dtype or self.sizes[i] != numel:
                raise CheckpointError("storage %s is named with two types or sizes" % key)
            return StorageRef((i,))
        self.index[key] = len(self.kinds)
        self.kinds.append(kind)
        self.sizes.append(numel)
        self.arrays.append(None)
        return StorageRef((self.index[key],))

    def fill(self, key, f, byteorder):
        """Read storage `key`'s bytes (exactly its size) from the file object f, in the
        file's byte order."""
        raw = f.read(self.nbytes(key))
        if len(raw) != self.nbytes(key):
            raise CheckpointError("storage %s is truncated" % key)
        i = self.index[key]
        dtype = self.kinds[i].dtype.newbyteorder(byteorder)
        self.arrays[i] = np.frombuffer(raw, dtype=dtype, count=self.sizes[i]).astype(
            dtype.newbyteorder("="), copy=False)

    def nbytes(self, key):
        i = self.index[key]
        return self.sizes[i] * self.kinds[i].dtype.itemsize


def _read_zip(data):
    archive = zipfile.ZipFile(io.BytesIO(data))
    pickles = [n for n in archive.namelist() if n.count("/") == 1 and n.endswith("/data.pkl")]
    if len(pickles) != 1:
        raise CheckpointError("a zip checkpoint holds one NAME/data.pkl; this one has %d"
                              % len(pickles))
    prefix = pickles[0][:-len("data.pkl")]
    members = {i.filename: i for i in archive.infolist()}
    order = "<"
    if prefix + "byteorder" in members:
        text = archive.read(prefix + "byteorder")
        if text not in (b"little", b"big"):
            raise CheckpointError("byteorder is %.20r, not little or big" % text)
        order = "<" if text == b"little" else ">"
    info = members[pickles[0]]
    if info.file_size > MAX_PICKLE:
        raise CheckpointError("data.pkl is %d bytes (at most %d)" % (info.file_size, MAX_PICKLE))
    storages = _Storages()
    obj = unpickle_bytes(archive.read(info), storages)
    for key in storages.index:
        name = prefix + "data/" + key
        member = members.get(name)
        need = storages.nbytes(key)
        if member is None or member.file_size < need:
            raise CheckpointError("storage %s: %s" % (key, "missing" if member is None else
                                  "%d bytes, needs %d" % (member.file_size, need)))
        with archive.open(member) as f:
            storages.fill(key, f, order)
    return obj, storages


def _read_legacy(data):
    f = io.BytesIO(data)
    if unpickle(f) != _MAGIC:
        raise CheckpointError("not a PyTorch checkpoint (wrong magic number)")
    if unpickle(f) != _LEGACY_PROTOCOL:
        raise CheckpointError("unknown legacy protocol version")
    info = unpickle(f)
    if not isinstance(info, dict) or info.get("little_endian") not in (True, False):
        raise CheckpointError("malformed system information record")
    order = "<" if info["little_endian"] else ">"
    storages = _Storages()
    obj = unpickle(f, storages)
    keys = unpickle(f)
    if (not isinstance(keys, list) or not all(isinstance(k, str) for k in keys) or
            sorted(keys) != sorted(storages.index)):
        raise CheckpointError("the storage key list does not match the storages the "
                              "object names")
    for key in keys:
        head = f.read(8)
        if len(head) != 8:
            raise CheckpointError("storage %s is truncated" % key)
        count = struct.unpack(order + "q", head)[0]
        i = storages.index[key]
        if count != storages.sizes[i]:
            raise CheckpointError("storage %s holds %d elements, the object says %d"
                                  % (key, count, storages.sizes[i]))
        storages.fill(key, f, order)
    return obj, storages


def read_bytes(data):
    """The object a PyTorch checkpoint holds (dicts, lists, numbers, strings, and tensors as
    read-only numpy arrays). Raises CheckpointError for anything else."""
    try:
        if data[:4] == b"PK\x03\x04":
            obj, storages = _read_zip(data)
        elif data[:1] == b"\x80":  # a pickle's PROTO opcode
            obj, storages = _read_legacy(data)
        elif data[257:262] == b"ustar":
            raise CheckpointError("the tar format of PyTorch before 0.4 is not supported")
        else:
            raise CheckpointError("not a PyTorch checkpoint (neither a zip archive nor a "
                                  "legacy pickle stream)")
    except (zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError, EOFError,
            OSError, ValueError, struct.error) as e:
        if isinstance(e, CheckpointError):
            raise
        raise CheckpointError("malformed checkpoint: %s" % " ".join(str(e).split())[:200]
                              ) from None
    return resolve(obj, storages.arrays)


def read(path):
    """`read_bytes` of the file at `path`."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise CheckpointError("cannot read %s: %s" % (path, e.strerror or e)) from None
    return read_bytes(data)


def _is_state(obj):
    return (isinstance(obj, dict) and obj and all(isinstance(k, str) for k in obj) and
            any(isinstance(v, np.ndarray) for v in obj.values()))


def state_dict(obj, key=None):
    """{name: numpy array} from a checkpoint's object: the object itself when it is a state
    dict, else its entry `key`, else the first of STATE_KEYS that holds one (training
    checkpoints such as {"state_dict": ..., "epoch": 3}). Entries that are not tensors
    (a module's extra state) are left out."""
    if key is not None:
        if not isinstance(obj, dict) or key not in obj:
            raise CheckpointError("the checkpoint has no entry %r" % key)
        found = obj[key]
    elif _is_state(obj) and all(isinstance(v, np.ndarray) for v in obj.values()):
        found = obj
    else:
        found = next((obj[k] for k in STATE_KEYS if isinstance(obj, dict) and
                      _is_state(obj.get(k))), obj)
    if not _is_state(found):
        top = ", ".join(sorted(map(str, obj))[:10]) if isinstance(obj, dict) else \
            type(obj).__name__
        raise CheckpointError("no state dict (names mapped to tensors) in the checkpoint "
                              "(it holds: %s); name its entry with key=" % top)
    return {k: v for k, v in found.items() if isinstance(v, np.ndarray)}


def load(model, path, key=None, remap=(), close_gaps=True, strict=False):
    """Load the PyTorch checkpoint at `path` into the burn.nn `model`; returns the
    LoadReport of `state_load.load_state` (applied, missing, unexpected, renamed keys)."""
    state = state_dict(read(os.fspath(path)), key)
    return load_state(model, state, remap=remap, close_gaps=close_gaps, strict=strict)
