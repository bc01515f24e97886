"""What can go wrong between the host and a board, each as its own exception type.

Every message says what happened, on which port, and what to do about it.
"""

import re


class LinkError(Exception):
    """Base of every serial-link failure."""


class NoBoardError(LinkError):
    """No board is attached (or the named port does not exist)."""


class PortBusyError(LinkError):
    """Another program holds the serial port."""


class PortPermissionError(LinkError):
    """The operating system refused access to the serial port."""


class NotMicroPythonError(LinkError):
    """Something answers on the port, but not a MicroPython REPL (wrong or missing firmware)."""


class LinkTimeout(LinkError):
    """The board did not answer in time (stalled, busy, or its code runs too long)."""


class BoardDisconnected(LinkError):
    """The board went away in the middle of an operation (unplugged, reset or crashed)."""


class BoardResetError(LinkError):
    """The board reset itself in the middle of an operation."""


class TransferError(LinkError):
    """A file arrived corrupted (hash mismatch) even after retrying."""


_EXC_LINE = re.compile(r"^([A-Za-z_][\w.]*)(?::\s?(.*))?$")


class DeviceError(LinkError):
    """Code on the board raised an exception; `traceback` is the board's own traceback."""

    def __init__(self, traceback, output=""):
        self.traceback = traceback.rstrip("\n")
        self.output = output
        last = self.traceback.splitlines()[-1] if self.traceback else ""
        match = _EXC_LINE.match(last.strip())
        self.exc_type = match.group(1) if match else "Exception"
        self.exc_message = (match.group(2) or "") if match else last
        super().__init__(self._describe())

    def _describe(self):
        return "the board raised %s:\n%s" % (self.exc_type, self.traceback)

    @property
    def errno(self):
        """The errno of an OSError raised on the board, else None."""
        match = re.search(r"OSError: (?:\[Errno )?(-?\d+)", self.traceback)
        return int(match.group(1)) if match else None


class DeviceMemoryError(DeviceError):
    """The board ran out of heap; carries the sizes involved."""

    def __init__(self, traceback, output="", free=None, total=None):
        match = re.search(r"allocating (\d+) bytes", traceback)
        self.requested = int(match.group(1)) if match else None
        self.free = free
        self.total = total
        super().__init__(traceback, output)

    def _describe(self):
        parts = []
        if self.requested is not None:
            parts.append("allocating %d bytes failed" % self.requested)
        if self.free is not None and self.total is not None:
            parts.append("heap after the failure: %d bytes free of %d" % (self.free, self.total))
        sizes = "; ".join(parts) or "sizes unknown"
        return "the board ran out of memory (%s):\n%s" % (sizes, self.traceback)


class FlashFullError(DeviceError):
    """A write failed because the board's filesystem is full; carries the sizes involved."""

    def __init__(self, traceback, path, needed, free, total):
        self.path = path
        self.needed = needed
        self.free = free
        self.total = total
        super().__init__(traceback)

    def _describe(self):
        return (
            "the board's flash is full: writing %s (%d bytes) failed with %d bytes free of %d; "
            "remove files or use a smaller model" % (self.path, self.needed, self.free, self.total)
        )


ENOSPC = 28
