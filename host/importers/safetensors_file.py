"""burn.nn state dicts in the safetensors format (the `safetensors` package): a JSON header
of names, dtypes, shapes and offsets, then the raw little-endian bytes. Data only, so a file
cannot run code; the package checks the header against the file before any tensor is read.
"""

import os

import numpy as np
import safetensors
import safetensors.numpy

from ..atomic import write_bytes_atomic
from ..convert import to_numpy
from .state_load import load_state


class SafetensorsFileError(ValueError):
    """A safetensors file that cannot be read; the message names the file and the reason."""


# The tensor types numpy holds (safetensors.numpy's); F8_E4M3, BF16 and the like it has not.
NUMPY_DTYPES = ("F64", "F32", "F16", "I64", "U64", "I32", "U32", "I16", "U16", "I8", "U8",
                "BOOL", "C64")


def save(state, path, metadata=None):
    """Write a burn.nn model's state_dict (or a {name: tensor or numpy array} dict) to
    `path` atomically; `metadata` is a {str: str} dict stored in the header. Returns the
    number of bytes written."""
    if hasattr(state, "state_dict"):
        state = state.state_dict()
    arrays = {k: np.ascontiguousarray(v if isinstance(v, np.ndarray) else to_numpy(v))
              for k, v in state.items()}
    if metadata is not None and not all(
            isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
        raise ValueError("safetensors metadata maps strings to strings")
    data = safetensors.numpy.save(arrays, metadata=metadata)
    write_bytes_atomic(os.fspath(path), data)
    return len(data)


def read(path):
    """(state, metadata): {name: numpy array} and the header's {str: str} metadata (empty
    when there is none) of the safetensors file at `path`."""
    try:
        with safetensors.safe_open(os.fspath(path), framework="numpy") as f:
            metadata = f.metadata() or {}
            for k in f.keys():
                dtype = f.get_slice(k).get_dtype()
                if dtype not in NUMPY_DTYPES:
                    raise SafetensorsFileError(
                        "%s: tensor %s is %s, which numpy cannot hold (it holds %s)" % (
                            path, repr(k)[:80], dtype, ", ".join(NUMPY_DTYPES)))
            state = {k: f.get_tensor(k) for k in f.keys()}
    except SafetensorsFileError:
        raise
    except (safetensors.SafetensorError, OSError, ValueError, TypeError) as e:
        raise SafetensorsFileError("%s: not a readable safetensors file: %s" % (
            path, " ".join(str(e).split())[:200])) from None
    return state, metadata


def load(model, path, remap=(), close_gaps=True, strict=False):
    """Load the safetensors file at `path` into the burn.nn `model`; returns the LoadReport
    of `state_load.load_state`."""
    state, _ = read(path)
    return load_state(model, state, remap=remap, close_gaps=close_gaps, strict=strict)
