"""Checkpoints of older burn versions (pickles of numpy arrays and plain data), read through
the restricted unpickler without running code and without trusting numpy's own pickle
support.

numpy rebuilds an array in two steps: `_reconstruct` makes an empty one and BUILD fills it
from (version, shape, dtype, fortran order, bytes); a dtype is made the same way. Handing
the pickle real numpy objects would let it re-apply a dtype's state after an array exists
(changing its item size, so numpy reads past the array's buffer). So the pickle gets
stand-ins of this load instead: a `_DtypeSpec` that accepts one byte order and is frozen
once an array or scalar uses it, and an `_ArrayRecord` that accepts one state, checked
against its dtype string and shape. Arrays are made only after the pickle is read, from
those checked (dtype string, shape, bytes) triples.
"""

import numpy as np

from ..importers import restricted_pickle
from ..importers.restricted_pickle import CheckpointError, Global, Record, Sealed

MAX_DIMS = 64
# What numpy's pickle names its bool, integer and float dtypes by (the byte order follows).
_SPECS = frozenset(["b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8"])
_ORDERS = ("<", ">", "|", "=")


class _DtypeSpec(Sealed):
    """`numpy.dtype(spec)` of one load: a kind and size such as 'f4', plus the byte order
    its one BUILD may set before anything uses it."""

    __slots__ = ("_frozen", "_order", "_spec")

    def __init__(self, spec, align=False, copy=True):
        if spec not in _SPECS or align is not False or type(copy) is not bool:
            raise CheckpointError("refused: a numpy dtype %.40r (the converter reads bool, "
                                  "integer and float arrays)" % (spec,))
        self._spec = spec
        self._order = "="
        self._frozen = False

    def __setstate__(self, state):
        if self._frozen:
            raise CheckpointError("refused: the pickle sets the state of the numpy dtype "
                                  "%s again or after an array used it" % self._spec)
        if not (isinstance(state, tuple) and len(state) in (8, 9) and state[0] in (3, 4) and
                state[1] in _ORDERS and state[2:5] == (None, None, None) and
                all(type(v) is int for v in state[5:8]) and state[8:] in ((), (None,))):
            raise CheckpointError("refused: the state %.80r of the numpy dtype %s is not "
                                  "that of a plain number type" % (state, self._spec))
        self._order = state[1]
        self._frozen = True

    def use(self):
        """The numpy dtype string (such as '<f4'); no state can be set after this."""
        self._frozen = True
        return np.dtype(self._order + self._spec).str

    def __repr__(self):
        return "<numpy dtype %s>" % self._spec


class _ArrayRecord(Record):
    """`_reconstruct(ndarray, (0,), b'b')` of one load: accepts one BUILD of (1, shape,
    dtype, fortran order, bytes) and keeps its checked (dtype string, shape, order, bytes)."""

    __slots__ = ("checked",)

    def __init__(self):
        self.checked = None

    def __setstate__(self, state):
        if self.checked is not None:
            raise CheckpointError("refused: the pickle sets the state of a numpy array twice")
        if not (isinstance(state, tuple) and len(state) == 5 and state[0] == 1):
            raise CheckpointError("refused: a numpy array state that numpy never writes")
        _, shape, dtype, fortran, data = state
        if not isinstance(dtype, _DtypeSpec) or type(fortran) is not bool or \
                not isinstance(data, bytes):
            raise CheckpointError("refused: a numpy array state of %s, %s, %s (a dtype, a "
                                  "bool and bytes expected)" % tuple(
                                      type(v).__name__ for v in (dtype, fortran, data)))
        shape = _shape(shape)
        dtype = dtype.use()
        need = np.dtype(dtype).itemsize
        for n in shape:
            need *= n
        if len(data) != need:
            raise CheckpointError("refused: a numpy array of shape %s and dtype %s holds %d "
                                  "bytes, not %d" % (shape, dtype, len(data), need))
        self.checked = (dtype, shape, "F" if fortran else "C", data)

    def array(self):
        """The numpy array (its own copy of the bytes, writable)."""
        if self.checked is None:
            raise CheckpointError("a numpy array whose data the pickle never gives")
        dtype, shape, order, data = self.checked
        return np.frombuffer(data, dtype).reshape(shape, order=order).copy(order=order)

    def __repr__(self):
        return "<numpy array>"


def _shape(value):
    if not isinstance(value, tuple) or len(value) > MAX_DIMS or \
            not all(type(n) is int and n >= 0 for n in value):
        raise CheckpointError("refused: a numpy array shape %.60r (at most %d non-negative "
                              "ints)" % (value, MAX_DIMS))
    return value


def _ndarray(*args):
    raise CheckpointError("refused: the pickle calls numpy.ndarray, which numpy never writes")


_NDARRAY = Global("numpy.ndarray", _ndarray)  # only ever an argument of _reconstruct


def _reconstruct(cls, shape, typecode):
    if cls is not _NDARRAY or shape != (0,) or typecode != b"b":
        raise CheckpointError("refused: a pickled array rebuilt in a way numpy never writes")
    return _ArrayRecord()


def _scalar(dtype, data):
    """A numpy scalar's value as the Python number it holds."""
    if not isinstance(dtype, _DtypeSpec) or not isinstance(data, bytes):
        raise CheckpointError("refused: a numpy scalar of %s and %s (a dtype and bytes "
                              "expected)" % (type(dtype).__name__, type(data).__name__))
    dtype = np.dtype(dtype.use())
    if len(data) != dtype.itemsize:
        raise CheckpointError("refused: a numpy %s scalar of %d bytes" % (dtype, len(data)))
    return np.frombuffer(data, dtype, count=1)[0].item()


def _latin1(text, encoding):
    """Protocol 2's spelling of bytes: `_codecs.encode(str, 'latin1')`, and nothing else."""
    if not isinstance(text, str) or encoding != "latin1":
        raise CheckpointError("refused: _codecs.encode used for anything but bytes")
    return text.encode("latin1")


def _globals():
    """What a pickled checkpoint of an older burn holds besides plain data: numpy arrays
    and scalars (numpy 1 and 2 name their reconstructors differently), OrderedDicts and,
    in protocol 2, bytes."""
    allowed = dict(restricted_pickle.ORDERED_DICT)
    allowed["_codecs", "encode"] = Global("_codecs.encode", _latin1)
    allowed["numpy", "ndarray"] = _NDARRAY
    allowed["numpy", "dtype"] = Global("numpy.dtype", _DtypeSpec)
    for core in ("numpy.core.multiarray", "numpy._core.multiarray"):
        allowed[core, "_reconstruct"] = Global(core + "._reconstruct", _reconstruct)
        allowed[core, "scalar"] = Global(core + ".scalar", _scalar)
    return allowed


_ALLOWED = _globals()
_PLAIN = (type(None), bool, int, float, str)


def _data(value):
    if isinstance(value, _ArrayRecord):
        return value.array()
    if type(value) not in _PLAIN:
        what = repr(value) if isinstance(value, Sealed) else "a " + type(value).__name__
        raise CheckpointError("refused: the checkpoint holds %s, which is not data a burn "
                              "checkpoint holds (numbers, strings, lists, dicts, arrays)"
                              % what)
    return value


def read(file):
    """The payload of an older, pickled burn checkpoint read from the binary `file`:
    dicts, lists, tuples, numbers, strings and numpy arrays. Raises CheckpointError (a
    ValueError) for anything else, before any array is made."""
    return restricted_pickle.resolve(restricted_pickle.unpickle(file, _ALLOWED), _data)
