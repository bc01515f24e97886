"""Start and stop virtual boards as separate processes (so they can be killed like a board)."""

import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from burn.host.boards import load_board
from burn.host.link.errors import NoBoardError
from burn.host.virtual_board.supervisor import flash_folder, lock_folder, micropython_command


class VirtualBoardError(NoBoardError):
    """A virtual board cannot start; the message says why."""


class VirtualBoard:
    """A virtual board in its own process; `port` is the pty path to open.

    Use as a context manager. Without `flash_dir` the flash lives in a temporary folder that
    is removed on `stop()`; with one, its `flash.img` persists across runs like real flash.
    The folder is locked while the board runs (a second board on it is refused), and the
    board process powers off when this process ends, however it ends: it watches a pipe
    (its lifeline) whose writing end only this process holds.
    """

    def __init__(self, board="rp2040", flash_dir=None):
        self.board = load_board(board)
        try:
            micropython_command()
            if flash_dir is not None:
                flash_dir = str(flash_folder(flash_dir))
        except (RuntimeError, ValueError) as exc:
            raise VirtualBoardError("cannot start a virtual %s: %s" % (self.board.name, exc)) \
                from None
        self._own_dir = flash_dir is None
        self.flash_dir = flash_dir or tempfile.mkdtemp(prefix="burn-virtual-%s-" % self.board.name)
        self.port = None
        self.proc = None
        self._lock = None
        self._lifeline = None

    def start(self, timeout=15.0):
        """Start the board process and wait for its port; returns self (VirtualBoardError
        when it does not start, or when another board uses the flash folder)."""
        try:
            self._lock = lock_folder(self.flash_dir)
        except ValueError as exc:
            raise VirtualBoardError("cannot start a virtual %s: %s" % (self.board.name, exc)) \
                from None
        lifeline, self._lifeline = os.pipe()
        lock = self._lock.fileno()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "burn.host.virtual_board",
                 "--board", self.board.name, "--flash-dir", str(self.flash_dir),
                 "--lock-fd", str(lock), "--lifeline", str(lifeline)],
                stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, pass_fds=(lock, lifeline),
            )
        except BaseException:
            self._let_go()
            raise
        finally:
            os.close(lifeline)
        line = b""
        deadline = time.monotonic() + timeout
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.proc.stdout], [], [], max(left, 0))
            chunk = os.read(self.proc.stdout.fileno(), 256) if ready else b""
            if not chunk:
                self.kill()
                raise VirtualBoardError(
                    "virtual board %s did not start (see the messages above)" % self.board.name
                )
            line += chunk
        self.proc.stdout.close()
        self.port = line.decode().split(" ", 1)[1].strip()
        return self

    @property
    def running(self):
        """Whether the board process is alive (a paused one counts as alive)."""
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=5.0):
        """Power the board off cleanly and remove a temporary flash folder."""
        if self.running:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        self._let_go()
        self._cleanup()

    def kill(self):
        """Pull the plug: SIGKILL the board process (the pty vanishes mid-whatever)."""
        if self.running:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            self.proc.wait()
        self._let_go()

    def _let_go(self):
        """Close the lifeline and the lock: the board (if still running) powers off, and the
        folder is free once its processes have ended."""
        if self._lifeline is not None:
            os.close(self._lifeline)
            self._lifeline = None
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def pause(self):
        """Freeze the board (SIGSTOP): it neither answers nor reads, as if stalled."""
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self):
        """Unfreeze a paused board."""
        self.proc.send_signal(signal.SIGCONT)

    def _cleanup(self):
        if self._own_dir:
            shutil.rmtree(self.flash_dir, ignore_errors=True)

    def __enter__(self):
        return self.start() if self.proc is None else self

    def __exit__(self, *exc):
        self.stop()

    def __repr__(self):
        return "VirtualBoard(%r, port=%r)" % (self.board.name, self.port)
