"""The lock on a board's flash: a virtual board's flash folder or an emulated board's flash
image is used by one board at a time, and a second one is refused with the PID of the first.

The lock is an `flock` on a small file beside the flash (`flash.lock` in a virtual board's
folder, `IMAGE.lock` beside an emulated board's flash image IMAGE) holding the PID of the
process that took it. The kernel lets go of an flock when the last process holding its descriptor
ends, so the lock of a killed board never blocks the next one: its file stays behind, with
a dead PID in it, and is simply taken again. The board's own processes inherit the
descriptor (`fileno()`, through `pass_fds`), so the lock lasts as long as the last of them;
a board that was just stopped or killed may need a moment for those to end, so a held lock
is tried again for a little while before the refusal.
"""

import fcntl
import os
import time

WAIT = 2.0  # seconds a held lock is tried again: a killed board's processes are ending


class FlashInUse(ValueError):
    """Another board uses this flash; the message names the flash and the PID holding it."""


class FlashLock:
    """A held lock on the flash that `path` (the lock file) guards; `release()` lets go.

    `what` names the flash in the refusal ("the flash folder /tmp/pico"), `other` says how
    to pick another one ("--flash-dir").
    """

    def __init__(self, path, what, other, wait=WAIT):
        self.path = str(path)
        try:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise ValueError("cannot lock %s (%s): %s" % (what, self.path,
                                                         exc.strerror or exc)) from None
        if not _take(self._fd, wait):
            holder = _holder(self._fd)
            os.close(self._fd)
            raise FlashInUse("%s is in use by another board (PID %s); stop that board or "
                             "give another %s" % (what, holder, other))
        os.ftruncate(self._fd, 0)
        os.write(self._fd, b"%d\n" % os.getpid())

    def fileno(self):
        """The locked descriptor, for a child process to inherit (and so hold the lock)."""
        return self._fd

    def release(self):
        """Let go of the lock (children that inherited it keep holding it until they end)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _take(fd, wait):
    """Whether the exclusive flock on `fd` was taken within `wait` seconds."""
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
        time.sleep(0.05)


def _holder(fd):
    """The PID written in the lock file, as text ("unknown" while its holder is still
    writing it)."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        text = ""
    return text if text.isdigit() else "unknown"
