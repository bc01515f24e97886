"""PyTorch's pickles read without torch: a restricted unpickler and numpy stand-ins.

A pickle names the functions it calls (its "globals"); an ordinary unpickler imports and
calls whatever a file names, so a hostile checkpoint can run `os.system`. This unpickler
admits only the globals that rebuild tensors (`torch._utils._rebuild_tensor_v2` and its
kin, `collections.OrderedDict`, the storage and dtype names) and maps each to a stand-in
of its own; any other global is refused with an error that names it, before anything runs.

Tensors come out as `Pending` records (storage, offset, size, stride); `resolve` turns them
into read-only numpy views once the storages' bytes are known, after checking that every
element a view reaches lies inside its storage.
"""

import collections
import io
import pickle
import pickletools
import struct

import numpy as np


class CheckpointError(ValueError):
    """A checkpoint that cannot be read: malformed, truncated, or asking to run code.
    The message is one line that says what was refused and why."""


class _Kind:
    """A storage type or dtype named by the pickle (torch.FloatStorage, torch.float32)."""

    def __init__(self, name, dtype):
        self.name = name
        self.dtype = np.dtype(dtype)  # bfloat16 is kept as uint16 bits, widened on reading

    def __repr__(self):
        return "<%s>" % self.name


_STORAGES = {"Double": "<f8", "Float": "<f4", "Half": "<f2", "BFloat16": "<u2", "Long": "<i8",
             "Int": "<i4", "Short": "<i2", "Char": "i1", "Byte": "u1", "Bool": "?",
             "Untyped": "u1"}
_DTYPES = {"float64": "<f8", "double": "<f8", "float32": "<f4", "float": "<f4",
           "float16": "<f2", "half": "<f2", "bfloat16": "<u2", "int64": "<i8", "long": "<i8",
           "int32": "<i4", "int": "<i4", "int16": "<i2", "short": "<i2", "int8": "i1",
           "uint8": "u1", "bool": "?"}
MAX_DIMS = 64
EXPANDED_LIMIT = 1 << 24  # elements a stride-0 (expanded) view may reach beyond its storage


class StorageRef(tuple):
    """(index,) of a storage in the reader's table; immutable, so a pickle cannot alter it."""

    __slots__ = ()


class Pending(tuple):
    """(StorageRef, offset, size, stride, dtype _Kind or None): a tensor to build."""

    __slots__ = ()


def _ints(what, value, limit=None):
    """`value` as a tuple of non-negative ints (a pickle may hand anything)."""
    if not isinstance(value, (tuple, list)) or (limit is not None and len(value) > limit):
        raise CheckpointError("a tensor's %s is not a tuple of at most %d ints"
                              % (what, limit or 0))
    for v in value:
        if type(v) is not int or v < 0:
            raise CheckpointError("a tensor's %s holds %r, not a non-negative int" % (what, v))
    return tuple(value)


def _pending(storage, offset, size, stride, dtype=None):
    if not isinstance(storage, StorageRef):
        raise CheckpointError("a tensor is rebuilt from %s, not from a storage"
                              % type(storage).__name__)
    if type(offset) is not int or offset < 0:
        raise CheckpointError("a tensor's storage offset is %r" % (offset,))
    size = _ints("size", size, MAX_DIMS)
    stride = _ints("stride", stride, MAX_DIMS)
    if len(size) != len(stride):
        raise CheckpointError("a tensor has size %s but stride %s" % (size, stride))
    if dtype is not None and not isinstance(dtype, _Kind):
        raise CheckpointError("a tensor's dtype is %r" % (dtype,))
    return Pending((storage, offset, size, stride, dtype))


def _rebuild_tensor(storage, storage_offset, size, stride):
    return _pending(storage, storage_offset, size, stride)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False,
                       backward_hooks=None, metadata=None):
    return _pending(storage, storage_offset, size, stride)


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    return _pending(storage, storage_offset, size, stride, dtype)


def _rebuild_parameter(data, requires_grad, backward_hooks, state=None):
    if not isinstance(data, Pending):
        raise CheckpointError("a parameter wraps %s, not a tensor" % type(data).__name__)
    return data


def _size(*args):
    return tuple(*args)


_ALLOWED = {("collections", "OrderedDict"): collections.OrderedDict,
            ("torch._utils", "_rebuild_tensor"): _rebuild_tensor,
            ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
            ("torch._utils", "_rebuild_tensor_v3"): _rebuild_tensor_v3,
            ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
            ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter,
            ("torch", "Size"): _size}
_ALLOWED.update({("torch", k + "Storage"): _Kind("torch.%sStorage" % k, v)
                 for k, v in _STORAGES.items()})
_ALLOWED.update({("torch", k): _Kind("torch." + k, v) for k, v in _DTYPES.items()})


def _refusal(module, name):
    msg = ("refused: the pickle asks for the global %s.%s, which is not one that rebuilds "
           "tensors (a pickle can run code through such a global; nothing was run)"
           % (module, name))
    if module.startswith("torch.nn"):
        msg += "; this looks like a whole pickled model: save model.state_dict() instead"
    return msg


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, storage, allowed):
        super().__init__(file)
        self._storage = storage
        self._allowed = allowed

    def find_class(self, module, name):
        found = self._allowed.get((module, name))
        if found is None:
            raise CheckpointError(_refusal(module, name))
        return found

    def persistent_load(self, pid):
        if self._storage is None:
            raise CheckpointError("this pickle refers to a storage where none may appear")
        if not isinstance(pid, tuple) or len(pid) < 5 or pid[0] != "storage":
            raise CheckpointError("unknown persistent id %.60r" % (pid,))
        kind, key, numel = pid[1], pid[2], pid[4]
        if not isinstance(kind, _Kind) or not kind.name.endswith("Storage"):
            raise CheckpointError("a storage of type %.60r" % (kind,))
        if not isinstance(key, str) or type(numel) is not int or numel < 0:
            raise CheckpointError("a storage with key %.40r and size %.40r" % (key, numel))
        if len(pid) > 5 and pid[5] is not None:
            raise CheckpointError("storage views (PyTorch before 0.4) are not supported")
        return self._storage(kind, key, numel)


# Opcodes a checkpoint never needs: out-of-band buffers (protocol 5) and the copyreg
# extension registry. The C unpickler also allocates a BYTEARRAY8 or a memo slot before it
# reads, so lengths and memo indices are checked here first, against the data itself.
_REFUSED_OPCODES = {"BYTEARRAY8", "NEXT_BUFFER", "READONLY_BUFFER", "EXT1", "EXT2", "EXT4"}
_MEMO_PUTS = {"PUT", "BINPUT", "LONG_BINPUT"}


def _prescan(file):
    """Walk the opcodes of the pickle at `file`'s position (without running any) and put
    the position back; refuses unknown or unneeded opcodes, lengths past the end of the
    data (pickletools checks those) and memo indices that would make the C unpickler
    allocate far more than the file holds."""
    start = file.tell()
    end = file.seek(0, io.SEEK_END)
    file.seek(start)
    for op, arg, pos in pickletools.genops(file):
        if op.name in _REFUSED_OPCODES:
            raise CheckpointError("refused: the pickle uses the %s opcode, which no "
                                  "checkpoint needs" % op.name)
        if op.name in _MEMO_PUTS and not 0 <= int(arg) <= end - start:
            raise CheckpointError("malformed pickle: memo index %s at byte %d" % (arg, pos))
        if op.name == "FRAME" and arg > end - pos:
            raise CheckpointError("malformed pickle: a frame of %d bytes at byte %d"
                                  % (arg, pos))
    file.seek(start)


_MALFORMED = (pickle.UnpicklingError, EOFError, ValueError, TypeError, KeyError, IndexError,
              AttributeError, MemoryError, OverflowError, RecursionError, UnicodeError,
              struct.error)


def unpickle(file, storage=None, allowed=None):
    """The object of one pickle read from the binary `file` (left just past it).

    `storage(kind, key, numel)` is called for each storage the pickle names and returns a
    StorageRef; without it a storage is an error. `allowed` maps (module, name) to the
    stand-in of each admitted global (default: PyTorch's tensor-rebuilding ones). Raises
    CheckpointError for a refused global or a malformed pickle."""
    try:
        _prescan(file)
        return _Unpickler(file, storage, _ALLOWED if allowed is None else allowed).load()
    except CheckpointError:
        raise
    except _MALFORMED as e:
        raise CheckpointError("malformed pickle: %s: %s" % (
            type(e).__name__, " ".join(str(e).split())[:200])) from None


def unpickle_bytes(data, storage=None):
    """`unpickle` of bytes holding one pickle."""
    return unpickle(io.BytesIO(data), storage)


def _view(pending, arrays):
    ref, offset, size, stride, dtype = pending
    base = arrays[ref[0]]
    if dtype is not None:  # the storage's bytes read as `dtype` (an untyped storage)
        raw = base.view(np.uint8)
        n = raw.size // dtype.dtype.itemsize
        base = raw[:n * dtype.dtype.itemsize].view(dtype.dtype)
    numel = 1
    for s in size:
        numel *= s
    if numel:
        last = offset + sum((s - 1) * st for s, st in zip(size, stride))
        if last >= base.size:
            raise CheckpointError("a tensor of size %s, stride %s at offset %d reaches element "
                                  "%d of a storage of %d" % (size, stride, offset, last,
                                                             base.size))
        if numel > base.size and numel > EXPANDED_LIMIT:
            raise CheckpointError("a tensor of size %s (%d elements) over a storage of %d "
                                  "elements" % (size, numel, base.size))
    item = base.dtype.itemsize
    view = np.lib.stride_tricks.as_strided(base[offset:] if numel else base[:0], size,
                                           [st * item for st in stride], writeable=False)
    if base.dtype == np.uint16:  # bfloat16: the high half of a float32
        view = (view.astype(np.uint32) << 16).view(np.float32)
    return view


MAX_DEPTH = 100


def resolve(obj, arrays):
    """`obj` with every Pending replaced by a read-only numpy view of `arrays[index]`
    (1-D arrays, one per storage) and OrderedDicts made plain dicts; shared parts stay
    shared. Raises CheckpointError for a view outside its storage or nesting deeper than
    MAX_DEPTH."""
    done = {}

    def walk(x, depth):
        if depth > MAX_DEPTH:
            raise CheckpointError("the checkpoint nests containers more than %d deep"
                                  % MAX_DEPTH)
        key = id(x)
        if key in done:
            if done[key] is None:
                raise CheckpointError("the checkpoint holds a cycle through a tuple")
            return done[key]
        if isinstance(x, Pending):
            out = _view(x, arrays)
        elif isinstance(x, dict):
            out = {}
            done[key] = out
            for k, v in list(x.items()):
                out[walk(k, depth + 1)] = walk(v, depth + 1)
        elif isinstance(x, list):
            out = []
            done[key] = out
            out.extend(walk(v, depth + 1) for v in list(x))
        elif isinstance(x, tuple):
            done[key] = None
            out = tuple(walk(v, depth + 1) for v in x)
        else:
            return x
        done[key] = out
        return out

    try:
        return walk(obj, 0)
    except TypeError as e:  # an unhashable dict key, such as a list
        raise CheckpointError("malformed checkpoint: %s" % e) from None
