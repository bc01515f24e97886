"""PyTorch's pickles read without torch: the tensor-rebuilding globals as stand-ins.

The restricted unpickler (`restricted_pickle`) admits only the globals that rebuild tensors
(`torch._utils._rebuild_tensor_v2` and its kin, `collections.OrderedDict`, `torch.Size`,
the storage and dtype names), each mapped to a stand-in of this module; any other global is
refused with an error that names it, before anything runs. The stand-ins are immutable
(a storage type or dtype is a tuple of two strings) or made fresh for each load, and refuse
a pickle's attempt to set their state, so no load changes what the next one sees.

Tensors come out as `Pending` records (storage, offset, size, stride); `resolve` turns them
into read-only numpy views once the storages' bytes are known, after checking that every
element a view reaches lies inside its storage.
"""

import io

import numpy as np

from . import restricted_pickle
from .restricted_pickle import CheckpointError, Global, Record, Sealed

__all__ = ["CheckpointError", "Pending", "StorageRef", "resolve", "unpickle",
           "unpickle_bytes"]


class _Kind(Sealed, tuple):
    """(name, numpy dtype string) of a storage type or dtype the pickle names
    (torch.FloatStorage, torch.float32): immutable, and it holds only strings."""

    __slots__ = ()

    @property
    def name(self):
        return self[0]

    @property
    def dtype(self):
        """A fresh numpy dtype (bfloat16 is kept as uint16 bits, widened on reading)."""
        return np.dtype(self[1])

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


class StorageRef(Sealed, tuple):
    """(index,) of a storage in the reader's table; immutable, so a pickle cannot alter it."""

    __slots__ = ()

    def __repr__(self):
        return "<storage %d>" % self[0]


class Pending(Record, tuple):
    """(StorageRef, offset, size, stride, dtype _Kind or None): a tensor to build."""

    __slots__ = ()

    def __repr__(self):
        return "<tensor of size %s>" % (self[2],)


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


def _size(dims):
    return _ints("torch.Size", dims, MAX_DIMS)


def _globals():
    table = {("torch._utils", f.__name__): f for f in
             (_rebuild_tensor, _rebuild_tensor_v2, _rebuild_tensor_v3, _rebuild_parameter)}
    table["torch._utils", "_rebuild_parameter_with_state"] = _rebuild_parameter
    table["torch", "Size"] = _size
    allowed = {key: Global("%s.%s" % key, f) for key, f in table.items()}
    allowed.update(restricted_pickle.ORDERED_DICT)
    allowed.update({("torch", k + "Storage"): _Kind(("torch.%sStorage" % k, v))
                    for k, v in _STORAGES.items()})
    allowed.update({("torch", k): _Kind(("torch." + k, v)) for k, v in _DTYPES.items()})
    return allowed


_ALLOWED = _globals()


def _storage_loader(storage):
    """The persistent-id hook: checks PyTorch's ("storage", type, key, location, numel)
    record and returns `storage(kind, key, numel)`, a StorageRef."""
    def load(pid):
        if not isinstance(pid, tuple) or len(pid) < 5 or pid[0] != "storage":
            raise CheckpointError("unknown persistent id %.60r" % (pid,))
        kind, key, numel = pid[1], pid[2], pid[4]
        if not isinstance(kind, _Kind) or not kind.name.endswith("Storage"):
            raise CheckpointError("a storage of type %.60r" % (kind,))
        if not isinstance(key, str) or type(numel) is not int or numel < 0:
            raise CheckpointError("a storage with key %.40r and size %.40r" % (key, numel))
        if len(pid) > 5 and pid[5] is not None:
            raise CheckpointError("storage views (PyTorch before 0.4) are not supported")
        return storage(kind, key, numel)
    return load if storage is not None else None


def unpickle(file, storage=None):
    """The object of one PyTorch pickle read from the binary `file` (left just past it).

    `storage(kind, key, numel)` is called for each storage the pickle names and returns a
    StorageRef; without it a storage is an error. Raises CheckpointError for a refused
    global or state, or a malformed pickle."""
    return restricted_pickle.unpickle(file, _ALLOWED, _storage_loader(storage))


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


def resolve(obj, arrays):
    """`obj` with every Pending replaced by a read-only numpy view of `arrays[index]`
    (1-D arrays, one per storage) and OrderedDicts made plain dicts; shared parts stay
    shared. Raises CheckpointError for a view outside its storage or nesting deeper than
    restricted_pickle.MAX_DEPTH."""
    return restricted_pickle.resolve(
        obj, lambda x: _view(x, arrays) if isinstance(x, Pending) else x)
