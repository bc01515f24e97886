"""Putting the core and a `.bst` model on a board: plan, fit check, send, verify, self-test
and measure. `burn-flash`, `burn repl` and `burn demo` are built on it.

    from burn.host.board_session import open_board
    from burn.host.flash import flash
    with open_board(virtual=True) as session:
        report = flash(session, "model.bst")     # FlashReport: what was sent, latency, heap

The core goes to `/lib/burn` as `.mpy` files compiled (and cached) for the architecture the
board reports; the model to `/model.bst`. Only files whose SHA-256 differs from the board's
own hash of them are sent. Each file is written to `<name>.part` and renamed only after the
board has checked its hash, so the previous model stays loadable until the new one is
complete: a transfer cut by an unplugged, stalled or reset board leaves the old file or the
new one, never half of one. A model that cannot fit the board's heap or flash is refused
before anything is sent.
"""

import ast
import hashlib
import posixpath
import time
from dataclasses import dataclass, field
from pathlib import Path

import burn
from burn.host import mp_unix, mpy
from burn.host.board_session import is_transport_error
from burn.host.link import LinkError
from burn.host.link.files import PART_SUFFIX, remote_hashes

REMOTE_CORE = "/lib/burn"
REMOTE_MODEL = "/model.bst"


class FlashError(Exception):
    """Flashing failed; the message says why and what to do."""


class IncompatibleBoard(FlashError):
    """The board's MicroPython cannot load the core as compiled here."""


class ModelTooBig(FlashError):
    """The model cannot fit the board's heap or flash; `.what`, `.needed`, `.available`."""

    def __init__(self, message, what, needed, available):
        super().__init__(message)
        self.what = what
        self.needed = needed
        self.available = available


class ModelMemoryError(FlashError):
    """The board ran out of heap loading or running the model (sizes in the message)."""


# ---- what the model needs ---------------------------------------------------------------------


@dataclass
class ModelFacts:
    """A `.bst` file as the host sees it: bytes, hash and the RAM its runtime allocates."""

    path: str
    data: bytes
    sha256: str
    arena_bytes: int
    layer_bytes: int
    output_bytes: int
    tests: int
    host_self_test_error: str = None

    @property
    def size(self):
        """Bytes of the file."""
        return len(self.data)

    @property
    def buffer_bytes(self):
        """Heap the runtime allocates for the model read from a file: the activation arena,
        the reusable layer buffers the weights are streamed into, and the outputs."""
        return self.arena_bytes + self.layer_bytes + self.output_bytes


def model_facts(path):
    """Read and check a `.bst` file on the host (ValueError if it is not a valid model)."""
    data = Path(path).read_bytes()
    try:
        model = burn.load(str(path))
    except ValueError as exc:
        raise ValueError("%s is not a valid .bst model: %s" % (path, exc)) from None
    try:
        info = model.info()
        outputs = sum(_numel(o["shape"]) * (1 if o["dtype"] == "int8" else 4)
                      for o in info["outputs"])
        facts = ModelFacts(str(path), data, hashlib.sha256(data).hexdigest(),
                           info["arena_bytes"], info["layer_bytes"], outputs, info["tests"])
        try:
            model.self_test()
        except ValueError as exc:
            facts.host_self_test_error = str(exc)
    finally:
        model.close()
    return facts


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


# ---- what the board is ------------------------------------------------------------------------

_PROBE = """
import sys, gc, os
gc.collect()
_v = sys.implementation.version
_s = os.statvfs('/')
print(repr(('.'.join([str(x) for x in _v[:3]]) + ('-' + _v[3] if len(_v) > 3 and _v[3] else ''),
            getattr(sys.implementation, '_mpy', 0), sys.platform,
            getattr(sys.implementation, '_machine', ''), gc.mem_free(), gc.mem_alloc(),
            _s[0] * _s[2], _s[0] * _s[3])))
del _v, _s
"""


@dataclass
class BoardFacts:
    """What a connected board reports about itself."""

    version: str
    mpy: int
    platform: str
    machine: str
    heap_free: int
    heap_total: int
    fs_total: int
    fs_free: int

    @property
    def mpy_version(self):
        """The `.mpy` version it loads, e.g. '6.3'."""
        return "%d.%d" % (self.mpy & 0xFF, (self.mpy >> 8) & 3)

    @property
    def arch(self):
        """mpy-cross `-march` of its native code, or None."""
        index = self.mpy >> 10
        return mp_unix.NATIVE_ARCHES[index] if index < len(mp_unix.NATIVE_ARCHES) else None


