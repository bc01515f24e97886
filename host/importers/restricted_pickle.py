"""A restricted unpickler: pickles read without running code or changing anything shared.

A pickle names the functions it calls (its "globals"); an ordinary unpickler imports and
calls whatever a file names, so a hostile file can run `os.system`. This one admits only
the globals a reader lists, each as a `Global` stand-in of its own; any other is refused
with an error that names it, before anything runs.

A pickle can also set the state of any object it holds (the BUILD opcode calls the
object's `__setstate__`, or sets its attributes). Every object this unpickler hands out is
therefore one of: a plain value the pickle builds itself (numbers, strings, tuples, lists,
dicts, which BUILD cannot change), an immutable `Sealed` stand-in whose `__setstate__`
refuses, or a fresh object of this load that validates the one state it accepts. Nothing
one load can reach outlives it in a changed form, so a hostile file cannot spoil the next.
"""

import collections
import io
import pickle
import pickletools
import struct


class CheckpointError(ValueError):
    """A checkpoint that cannot be read: malformed, truncated, or asking to run code.
    The message is one line that says what was refused and why."""


class Sealed:
    """A stand-in the pickle may hold but never change: BUILD on it is refused."""

    __slots__ = ()

    def __setstate__(self, state):
        raise CheckpointError("refused: the pickle sets the state of %r, which no checkpoint "
                              "does (nothing was changed)" % (self,))


class Record(Sealed):
    """A stand-in that `resolve`'s `convert` turns into data once the load is done."""

    __slots__ = ()


class Global(Sealed):
    """An admitted global: calling it calls `make`. It is not a class, cannot be iterated
    and holds no state a pickle can change, so one instance serves every load."""

    __slots__ = ("_make", "name")

    def __init__(self, name, make):
        self.name = name
        self._make = make

    def __call__(self, *args):
        return self._make(*args)

    def __repr__(self):
        return "<%s>" % self.name


class _OrderedDict(collections.OrderedDict):
    """An OrderedDict of one load. BUILD may give it attributes (PyTorch's state dicts carry
    `_metadata`); they are checked to be a dict of them and dropped, as nothing reads them."""

    def __setstate__(self, state):
        if not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
            raise CheckpointError("refused: the pickle sets the state of an OrderedDict to "
                                  "a %s, not a dict of attributes" % type(state).__name__)


def _ordered_dict(*args):
    if args:
        raise CheckpointError("refused: an OrderedDict built from arguments (a pickle "
                              "fills one item by item)")
    return _OrderedDict()


ORDERED_DICT = {("collections", "OrderedDict"): Global("collections.OrderedDict",
                                                        _ordered_dict)}


def _refusal(module, name):
    msg = ("refused: the pickle asks for the global %s.%s, which is not one that rebuilds "
           "tensors (a pickle can run code through such a global; nothing was run)"
           % (module, name))
    if module.startswith("torch.nn"):
        msg += "; this looks like a whole pickled model: save model.state_dict() instead"
    return msg


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, allowed, storage):
        super().__init__(file)
        self._allowed = allowed
        self._storage = storage

    def find_class(self, module, name):
        found = self._allowed.get((module, name))
        if found is None:
            raise CheckpointError(_refusal(module, name))
        return found

    def persistent_load(self, pid):
        if self._storage is None:
            raise CheckpointError("this pickle refers to a storage where none may appear")
        return self._storage(pid)


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


def unpickle(file, allowed, storage=None):
    """The object of one pickle read from the binary `file` (left just past it).

    `allowed` maps (module, name) to the `Global` of each admitted global. `storage(pid)`
    is called for each persistent id and returns a Sealed reference; without it a
    persistent id is an error. Raises CheckpointError for a refused global or state, or a
    malformed pickle."""
    try:
        _prescan(file)
        return _Unpickler(file, allowed, storage).load()
    except CheckpointError:
        raise
    except _MALFORMED as e:
        raise CheckpointError("malformed pickle: %s: %s" % (
            type(e).__name__, " ".join(str(e).split())[:200])) from None


MAX_DEPTH = 100


def resolve(obj, convert):
    """`obj` with dicts (OrderedDicts too) made plain dicts, lists and tuples rebuilt, and
    every other value `v` replaced by `convert(v)` (which turns Records into data and may
    refuse what it does not expect); shared parts stay shared. Raises CheckpointError for
    nesting deeper than MAX_DEPTH or a cycle through a tuple."""
    done = {}
    busy = object()  # a tuple being rebuilt: met again inside itself, it is a cycle

    def walk(x, depth):
        if depth > MAX_DEPTH:
            raise CheckpointError("the checkpoint nests containers more than %d deep"
                                  % MAX_DEPTH)
        key = id(x)
        if key in done:
            if done[key] is busy:
                raise CheckpointError("the checkpoint holds a cycle through a tuple")
            return done[key]
        if isinstance(x, Sealed) or not isinstance(x, (dict, list, tuple)):
            out = convert(x)
        elif isinstance(x, dict):
            out = {}
            done[key] = out
            for k, v in list(x.items()):
                out[walk(k, depth + 1)] = walk(v, depth + 1)
        elif isinstance(x, list):
            out = []
            done[key] = out
            out.extend(walk(v, depth + 1) for v in list(x))
        else:
            done[key] = busy
            out = tuple(walk(v, depth + 1) for v in x)
        done[key] = out
        return out

    try:
        return walk(obj, 0)
    except TypeError as e:  # an unhashable dict key, such as a list
        raise CheckpointError("malformed checkpoint: %s" % e) from None
