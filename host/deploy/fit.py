"""Whether a model fits a board: what a `.bst` file needs (its bytes, hash and the heap its
runtime allocates, read on the host) against the board's heap and filesystem."""

import hashlib
import io
import time
from dataclasses import dataclass
from pathlib import Path

import burn
from burn.host import bst_runtime
from burn.host.deploy.errors import ModelTooBig
from burn.shape import numel

# Heap costs measured on the emulated RP2040 (MicroPython 1.28, 32-bit): importing the
# runtime with the kernels of a typical model, frozen in the firmware or from .mpy files;
# the runtime's objects per op of a loaded model; the JSON header while it is parsed.
_RUNTIME_HEAP_FROZEN = 12 << 10
_RUNTIME_HEAP_MPY = 64 << 10
_OP_HEAP = 400
_HEADER_HEAP = 2


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
    table_bytes: int = 0
    ops: int = 0
    header_bytes: int = 0
    host_self_test_error: str = None
    inputs: list = None  # Model.info()["inputs"]: name, shape, dtype, quantization of each
    outputs: list = None  # Model.info()["outputs"], the same for the outputs

    @property
    def size(self):
        """Bytes of the file."""
        return len(self.data)

    @property
    def buffer_bytes(self):
        """Heap the runtime allocates for the model read from a file: the activation arena,
        the reusable layer buffers the weights are streamed into, and the outputs."""
        return self.arena_bytes + self.layer_bytes + self.output_bytes

    @property
    def mapped_buffer_bytes(self):
        """The same for a model read in place (ROMFS): the arena, the int32/float32 tables
        copied into RAM and the outputs; the int8 weights stay in flash."""
        return self.arena_bytes + self.table_bytes + self.output_bytes

    def heap_needed(self, mapped):
        """Heap a load takes at its peak: the buffers, the runtime's objects per op and the
        JSON header while it is parsed (per-op and header costs measured on the RP2040)."""
        buffers = self.mapped_buffer_bytes if mapped else self.buffer_bytes
        return buffers + _OP_HEAP * self.ops + _HEADER_HEAP * self.header_bytes


def model_facts(path, say=None):
    """Read and check a `.bst` file on the host (ValueError if it is not a valid model) and
    run its reference tests on the fastest runtime here (bst_runtime), telling `say`."""
    facts, in_memory = _facts(Path(path).read_bytes(), str(path))
    facts.host_self_test_error = _host_self_test(in_memory, facts.tests, say)
    return facts


def bst_facts(data, path="model.bst"):
    """The ModelFacts of `.bst` bytes (ValueError if they are not a valid model), without
    running its reference tests; `path` names it in messages."""
    return _facts(data, path)[0]


def _facts(data, path):
    """(ModelFacts, the model loaded in memory on the fastest runtime) of `.bst` bytes."""
    try:  # read as a file, as a board reads it: with its layer buffers
        model = burn.load(io.BytesIO(data))
    except ValueError as exc:
        raise ValueError("%s is not a valid .bst model: %s" % (path, exc)) from None
    try:
        info = model.info()
        header_bytes = model._bst.header_len
    finally:
        model.close()
    outputs = sum(numel(o["shape"]) * (1 if o["dtype"] == "int8" else 4)
                  for o in info["outputs"])
    in_memory = bst_runtime.load(data)
    facts = ModelFacts(str(path), data, hashlib.sha256(data).hexdigest(),
                       info["arena_bytes"], info["layer_bytes"], outputs, info["tests"],
                       in_memory.info()["table_bytes"], len(info["ops"]), header_bytes)
    facts.inputs = info["inputs"]
    facts.outputs = info["outputs"]
    return facts, in_memory


def _host_self_test(model, tests, say):
    """Run `model`'s reference tests on the host, saying on which kernels and how long it
    took; the failure's message, or None."""
    if not tests:
        return None
    say = say or (lambda message: None)
    runtime = bst_runtime.runtime_of(model)
    say("host self-test: %d reference vector%s on the %s kernels%s" % (
        tests, "" if tests == 1 else "s", runtime,
        "" if runtime == "flex" else " (burn._flex is not built: slow)"))
    start = time.monotonic()
    try:
        model.self_test()
    except ValueError as exc:
        say("  failed: %s" % exc)
        return str(exc)
    say("  passed in %.2f s" % (time.monotonic() - start))
    return None


def on_flash(size, block):
    """Bytes a file of `size` bytes takes on a filesystem of `block`-byte blocks."""
    return -(-size // block) * block


def heap_available(facts, board, core_frozen):
    """Heap a model can use on the board: its free heap at the REPL (boards/*.json's heap
    without a board) less what importing the runtime takes (measured on the RP2040)."""
    free = board.heap_bytes if facts is None else facts.heap_free
    return free - (_RUNTIME_HEAP_FROZEN if core_frozen else _RUNTIME_HEAP_MPY)


def check_fit(model, board, core_bytes, facts=None, mapped=False, core_frozen=False):
    """Refuse (ModelTooBig) a model that needs more heap than the board has left after
    importing the runtime, or that with the core exceeds its filesystem (a model read in
    place from ROMFS, `mapped`, takes no filesystem space); sizes from the board when
    `facts` are given, else from boards/*.json."""
    name = Path(model.path).name
    heap = heap_available(facts, board, core_frozen)
    needed = model.heap_needed(mapped)
    if needed > heap:
        raise ModelTooBig(
            "%s does not fit the %s's heap: loading it takes about %d bytes (arena %d + %s "
            "%d + outputs %d + the runtime's objects), %d bytes are free after importing the "
            "runtime" % (name, board.name, needed, model.arena_bytes,
                         "tables" if mapped else "layer buffers",
                         model.table_bytes if mapped else model.layer_bytes,
                         model.output_bytes, heap), "heap", needed, heap)
    if mapped:
        return
    needed = on_flash(model.size, board.fs_block_bytes) + core_bytes
    if needed > board.fs_bytes:
        raise ModelTooBig(
            "%s does not fit the %s's flash: it needs %d bytes (model %d + core %d), the "
            "filesystem holds %d bytes" % (name, board.name, needed, model.size, core_bytes,
                                           board.fs_bytes), "flash", needed, board.fs_bytes)
