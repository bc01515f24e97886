"""`EmulatedBoard`: a MicroPython firmware running on rp2040js, its USB serial on a pty.

    with EmulatedBoard("rp2040", firmware="firmware.uf2", flash_image="pico.img") as board:
        with burn.host.link.connect(board.port) as link:
            print(link.exec("print(1 + 1)"))
        print(board.cycles())

The emulator is a Node process (rp2040_board.mjs); this side owns the pty and relays bytes
between it and the emulator's stdin/stdout in a thread. rp2040js runs clk_sys at a fixed
125 MHz, so the board's `time.ticks_us()` follows emulated time: cycles = microseconds * 125
while core 0 is busy (while both cores sleep, emulated time keeps pace with wall time).
"""

import queue
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from burn.host import vendor
from burn.host.boards import load_board
from burn.host.deploy.flash_lock import FlashLock
from burn.host.emulator import flash_image
from burn.host.emulator.lifecycle import BoardProcess
from burn.host.emulator.relay import Relay
from burn.host.emulator.runtime import BOARD_SCRIPT, EmulatorError, ensure_rp2040js, find_node
from burn.host.pty_port import PtyPort, die_with_parent

CLOCK_HZ = 125_000_000
EMULATED_BOARDS = ("rp2040",)
_PROMPT = b">>> "


def default_firmware(board):
    """The UF2 that `burn firmware build --board <board>` made for `board` (with the current
    inputs), or None when there is none yet."""
    from burn.host.firmware.build import cached_image

    return cached_image(board)


class EmulatedBoard(BoardProcess):
    """One emulated board: `port` is the pty path to open (set by `start()`).

    `firmware`: a UF2 file written into the flash image before booting (default: the
    firmware build's, see `default_firmware`). `flash_image`: the file holding the whole
    flash, kept across runs (default: a temporary file removed on `close()`). `bootrom`: the
    RP2040 mask ROM (default: $BURN_RP2040_BOOTROM or the vendor folder).

    The flash image is locked while the board runs (`IMAGE.lock` beside it): a second board
    on it is refused. The emulator ends with this process, however it ends: its stdin (from
    here) closes, and on Linux it gets SIGTERM as well; either way it saves the flash first.
    """

    def __init__(self, board="rp2040", firmware=None, flash_image=None, bootrom=None):
        self.board = load_board(board)
        if self.board.name not in EMULATED_BOARDS:
            raise EmulatorError("no emulator for board %s; emulated boards: %s"
                                % (self.board.name, ", ".join(EMULATED_BOARDS)))
        self.firmware = firmware if firmware is not None else default_firmware(self.board.name)
        self._tmpdir = None if flash_image else tempfile.mkdtemp(prefix="burn-emulated-")
        self.flash_image = Path(flash_image or Path(self._tmpdir, "flash.img"))
        self.bootrom = bootrom
        self.port = None
        self.link = self.flash_image.with_suffix(".tty")  # a symlink to `port` while running
        self.proc = None
        self.final = None  # the emulator's last report: {'cycles', 'core1_cycles', 'us'}
        self._pty = None
        self._lock = None
        self._relay = None
        self._control = None
        self._usb = threading.Event()
        self._exited = threading.Event()
        self._replies = queue.Queue()
        self._closed = False

    # ---- lifecycle -----------------------------------------------------------------------------

    def start(self, timeout=20.0):
        """Boot the board and wait (at most `timeout` s) until it answers at the REPL;
        returns self. EmulatorError with the reason otherwise."""
        try:
            rom = vendor.bootrom(self.bootrom)
        except vendor.VendorError as exc:
            raise EmulatorError(str(exc)) from None
        node = find_node()
        index = ensure_rp2040js()
        self.flash_image.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._lock = FlashLock(Path(str(self.flash_image) + ".lock"),
                                   "the flash image %s" % self.flash_image, "--flash-image")
        except ValueError as exc:
            raise EmulatorError(str(exc)) from None
        try:
            flash_image.prepare(self.flash_image, self.board, self.firmware)
            self._launch(node, index, rom)
            self._wait_ready(timeout)
        except BaseException:
            self.close()
            raise
        return self

    def _launch(self, node, index, rom):
        self._pty = PtyPort(self.link)
        self.port = self._pty.port
        ours, theirs = socket.socketpair()
        try:
            # The emulator inherits the lock: the image stays locked until it has saved it.
            self.proc = subprocess.Popen(
                [node, str(BOARD_SCRIPT), str(index), str(rom), str(self.flash_image),
                 str(theirs.fileno())],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                pass_fds=(theirs.fileno(), self._lock.fileno()), start_new_session=True,
                preexec_fn=die_with_parent(signal.SIGTERM))
        finally:
            theirs.close()
        self._control = ours
        self._relay = Relay(self._pty.master, self.proc, ours, self._on_event)
        self._relay.start()

    def _on_event(self, event):
        kind = event.get("event")
        if kind == "usb":
            self._usb.set()
        elif kind in ("cycles", "saved"):
            self._replies.put(event)
        elif kind == "exit":
            self.final = {key: event[key] for key in ("cycles", "core1_cycles", "us")}
            self._exited.set()
        elif kind == "gone" and not self._closed and self._pty is not None:
            # The emulator died (killed, crashed): its port goes, as a board's does when it
            # loses power, so that a host waiting on it hears at once instead of timing out.
            self._pty.close()
            self._pty = None

    def _wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        while not self._usb.wait(0.02):
            self._check_time(deadline, "firmware did not bring up USB within %g s" % timeout)
        self._relay.send(b"\r")
        while _PROMPT not in self._relay.boot_output:
            self._check_time(deadline, "firmware brought up USB but gave no REPL prompt "
                             "within %g s" % timeout)
            time.sleep(0.005)
        self._relay.forward()

    def _check_time(self, deadline, what):
        """EmulatorError if the emulator exited or `deadline` has passed."""
        if self.proc.poll() is not None:
            raise EmulatorError(self._failure("the emulator exited with status %d"
                                              % self.proc.returncode))
        if time.monotonic() >= deadline:
            raise EmulatorError(self._failure(what))

    def _failure(self, what):
        said = self._relay.boot_output[-300:].decode("utf-8", "replace") if self._relay else ""
        tail = "\n".join(self._relay.stderr_tail) if self._relay else ""
        return "%s (firmware %s, flash image %s)%s%s" % (
            what, self.firmware or "in the image", self.flash_image,
            "; the board said: %r" % said if said else "",
            "; the emulator said:\n" + tail if tail else "")

    @property
    def running(self):
        """Whether the emulator process is alive."""
        return self.proc is not None and self.proc.poll() is None

    def cycles(self, timeout=5.0, core=0):
        """Emulated CPU cycles that `core` (0 or 1) executed since power-on: core 0's are the
        board's latency figures (125 per emulated microsecond while it runs); core 1's count
        only what it ran, nothing while it sleeps (in the bootrom until the firmware starts
        it), over its resets."""
        if core not in (0, 1):
            raise ValueError("the RP2040 has cores 0 and 1, not %r" % (core,))
        key = "cycles" if core == 0 else "core1_cycles"
        if not self.running:
            if self.final is None:
                raise EmulatorError("the emulated board is not running")
            return self.final[key]
        return self._ask("cycles", "report its cycles", timeout)[key]

    def save_flash(self, timeout=10.0):
        """Write the flash image file now, as the emulator does when it stops, and go on
        running: the file then holds what a power cut at this moment would leave."""
        if not self.running:
            raise EmulatorError("the emulated board is not running")
        self._ask("save", "save its flash", timeout)

    def _ask(self, request, what, timeout):
        """Send control `request` and return the emulator's reply event."""
        while not self._replies.empty():
            self._replies.get_nowait()
        self._relay.request(request)
        try:
            return self._replies.get(timeout=timeout)
        except queue.Empty:
            raise EmulatorError("the emulator did not %s within %g s" % (what, timeout)) from None

    def stall_core1(self, after_cycles):
        """Halt core 1 for good once it has run `after_cycles` more cycles, as a debugger
        would (it stays halted through resets): how a test makes core 1 stop answering."""
        if not self.running:
            raise EmulatorError("the emulated board is not running")
        self._relay.request("stall1 %d" % int(after_cycles))

    def close(self, timeout=5.0):
        """Power off: the emulator saves the flash image and exits (killed past `timeout`);
        a temporary flash image is removed."""
        if self.proc is not None and not self._closed:
            self._closed = True
            self._relay.finish()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.send_signal(signal.SIGKILL)
                self.proc.wait()
            self._relay.join(timeout)
            for stream in (self.proc.stdout, self.proc.stderr):
                stream.close()
            self._control.close()
        if self._pty is not None:
            self._pty.close()
            self._pty = None
        if self._lock is not None:
            self._lock.release()
            self._lock = None
        if self._tmpdir is not None:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None
