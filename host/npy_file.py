"""numpy arrays from `.npy` and `.npz` files that may be hostile: the bytes a `.npy` header
promises are checked against the bytes that follow it before anything is allocated, pickled
objects are refused, and every problem is one NpyFileError (a ValueError) naming the file
or member.

    x = read_npy_file("x.npy")                        # one array
    arrays = read_npz_file("x.npz")                   # {name: array}, in the file's order
    a = read_npy_bytes(z.read("a0.npy"), "a0.npy")    # a member already read
"""

import io
import math
import os
import tokenize
import zipfile

import numpy as np

_HEADER_READERS = {(1, 0): np.lib.format.read_array_header_1_0,
                   (2, 0): np.lib.format.read_array_header_2_0}
_MAX_DEFLATE_RATIO = 1032  # the most that deflate expands a byte to
# What numpy's reading of a hostile header or body can raise besides ValueError: its header
# parser falls back to tokenizing the text as Python 2 wrote it (SyntaxError, TokenError).
_BAD_ARRAY = (ValueError, EOFError, OSError, TypeError, RecursionError, MemoryError,
              SyntaxError, tokenize.TokenError, zipfile.BadZipFile)


class NpyFileError(ValueError):
    """A `.npy` / `.npz` file or member that holds no readable array; the message names it
    and says why."""


def _read_npy(f, available):
    """The array of the `.npy` stream `f`, at its start, of which `available` bytes remain."""
    start = f.tell()
    version = np.lib.format.read_magic(f)
    if version not in _HEADER_READERS:
        raise ValueError(".npy format version %d.%d is not supported" % version)
    shape, _fortran, dtype = _HEADER_READERS[version](f)
    promised = math.prod(shape) * dtype.itemsize
    left = available - (f.tell() - start)
    if promised > left:
        raise ValueError("its header promises %s values of shape %s (%d bytes), but only %d "
                         "bytes follow it" % (dtype, shape, promised, left))
    f.seek(start)
    return np.lib.format.read_array(f, allow_pickle=False)


def read_npy_bytes(data, what):
    """The array in the `.npy` bytes `data`; NpyFileError naming `what` if they hold none."""
    try:
        return _read_npy(io.BytesIO(data), len(data))
    except _BAD_ARRAY as e:
        raise NpyFileError("%s: not a readable .npy array: %s" % (what, _reason(e))) from None


def read_npy_file(path):
    """The array of the `.npy` file `path`; NpyFileError naming it if it holds none (an
    OSError if it cannot be opened)."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        try:
            return _read_npy(f, size)
        except _BAD_ARRAY as e:
            raise NpyFileError("%s: not a readable .npy array: %s" % (path, _reason(e))) \
                from None


def read_npz_file(path):
    """{name: array} of the `.npz` file `path` (each member `name.npy`), in the file's
    order; NpyFileError naming the file (and the member) if it is not one (an OSError if
    it cannot be opened). What a member's header promises must fit the bytes the archive
    can hold for it: its stored size, or for a compressed member the most its packed bytes
    inflate to."""
    arrays = {}
    archive = os.path.getsize(path)
    try:
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                name = info.filename
                if not name.endswith(".npy"):
                    raise ValueError("member %s is not a .npy array" % repr(name)[:80])
                packed = min(info.compress_size, archive)
                if info.compress_type != zipfile.ZIP_STORED:
                    packed *= _MAX_DEFLATE_RATIO
                with z.open(info) as member:
                    try:
                        arrays[name[:-4]] = _read_npy(member, min(info.file_size, packed))
                    except _BAD_ARRAY as e:
                        raise ValueError("member %s: %s" % (repr(name)[:80], _reason(e))) \
                            from None
    except _BAD_ARRAY as e:
        raise NpyFileError("%s: not a readable .npz file: %s" % (path, _reason(e))) from None
    return arrays


def _reason(e):
    """The one-line reason of exception `e`."""
    if isinstance(e, MemoryError):
        return "it needs more memory than there is"
    if isinstance(e, RecursionError):
        return "its header nests too deeply"
    return " ".join(str(e).split())[:300] or type(e).__name__
