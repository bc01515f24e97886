"""A pseudo-terminal that stands in for a board's USB serial port (virtual and emulated boards).

The owner reads and writes the master end; anything that opens `port` (pyserial, mpremote,
`burn.host.link`, a terminal) sees a serial port. The owner keeps the slave end open too, in
raw mode, so the pty survives clients coming and going and nothing is echoed back.
"""

import ctypes
import os
import signal
import tty
from pathlib import Path


class PtyPort:
    """An open pty: `master` (a non-blocking fd), `port` (the path to open) and, when `link` is
    given, a symlink at `link` pointing to `port` that stays the same across runs."""

    def __init__(self, link=None):
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)
        os.set_blocking(self.master, False)
        self.port = os.ttyname(self._slave)
        self.link = Path(link) if link is not None else None
        if self.link is not None:
            if self.link.is_symlink() or self.link.exists():
                self.link.unlink()
            self.link.symlink_to(self.port)

    def close(self):
        """Close both ends and remove the symlink."""
        for fd in (self.master, self._slave):
            try:
                os.close(fd)
            except OSError:
                pass
        if self.link is not None and self.link.is_symlink():
            self.link.unlink()


def die_with_parent(signum=signal.SIGKILL):
    """A `preexec_fn` for a child that must not outlive its parent: on Linux the child gets
    `signum` when the parent ends (PR_SET_PDEATHSIG; strictly, when the parent's thread that
    started it ends), and at once if the parent ended before the child asked. Elsewhere it
    does nothing."""
    parent = os.getpid()

    def arm():
        try:
            ctypes.CDLL(None).prctl(1, signum)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            return
        if os.getppid() != parent:
            os.kill(os.getpid(), signum)

    return arm
