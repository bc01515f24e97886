"""The transfer: which files flashing sends, keeps and removes (TransferPlan), whether they
fit the board's free flash meanwhile, sending them with reconnects, and checking the board's
hashes of them afterwards."""

import ast
import hashlib
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

from burn.host import board_programs
from burn.host.deploy.errors import FlashError, ModelTooBig
from burn.host.deploy.fit import on_flash
from burn.host.link import DeviceMemoryError, FlashFullError, LinkError
from burn.host.link.files import PART_SUFFIX, remote_hashes

REMOTE_CORE = "/lib/burn"


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
class TransferPlan:
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


def _present_files(link, folder, extra):
    """{path: size} of the files under `folder` on the board and of those of `extra` that
    exist."""
    text = link.exec(board_programs.once("listing", "_walk", folder, list(extra)), timeout=30.0)
    return dict(ast.literal_eval(line) for line in text.splitlines() if line.strip())


def make_plan(link, files, block, force=False):
    """The TransferPlan for putting `files` ({remote path: bytes}: the core and flex module, see
    board_software, and a filesystem model last) on the board: stale files of the core
    folder and left-over `.part` files are removed, then the files whose board-side SHA-256
    differs are sent."""
    hashes = remote_hashes(link, list(files))
    outside = [path for path in files if not path.startswith(REMOTE_CORE + "/")]
    present = _present_files(link, REMOTE_CORE, outside + [path + PART_SUFFIX for path in outside])
    return plan_of(files, hashes, present, block, force)


def plan_of(wanted, hashes, present, block, force=False):
    """The TransferPlan that turns a board holding `present` ({path: size}, of which `hashes` gives
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
    return TransferPlan(items, block)


def check_flash_space(plan, facts, board):
    """ModelTooBig when the files to send do not fit the board's free flash at some moment
    (TransferPlan.flash_peak: stale files removed first count as free, a file sent over an older
    version frees that once it is in place)."""
    available = facts.fs_free + sum(on_flash(t.size, plan.block) for t in plan.of("remove"))
    needed = plan.flash_peak
    if needed > available:
        raise ModelTooBig(
            "the files to send need %d bytes of the %s's flash, %d bytes are free (of %d); "
            "remove files from the board or use a smaller model"
            % (needed, board.name, available, facts.fs_total), "flash", needed, available)


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
