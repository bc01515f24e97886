"""MicroPython's raw REPL and raw-paste mode over an open serial port, with deadlines.

The protocol (MicroPython's `pyexec.c`, also spoken by mpremote): Ctrl-A enters the raw REPL
(`raw REPL; CTRL-B to exit\\r\\n>`); code is sent either as raw-paste (`\\x05A\\x01`, answered
`R\\x01` + a 2-byte window, flow-controlled by `\\x01` bytes) or plainly followed by Ctrl-D
(answered `OK`); the board then prints the output, `\\x04`, the traceback if any, `\\x04`, `>`.
"""

import time

import serial

from burn.host.link.errors import (
    BoardDisconnected,
    BoardResetError,
    LinkTimeout,
    NotMicroPythonError,
)

RAW_BANNER = b"raw REPL; CTRL-B to exit\r\n"
SOFT_REBOOT = b"soft reboot\r\n"


class RawRepl:
    """The raw REPL of the board on `conn` (an open pyserial port called `port`)."""

    def __init__(self, conn, port):
        self.conn = conn
        self.port = port
        self.in_raw = False
        self.use_paste = True
        self._rx = bytearray()

    # ---- bytes ----------------------------------------------------------------------------

    def write(self, data, doing="writing"):
        """Send bytes; LinkTimeout when the board stops reading, BoardDisconnected if gone."""
        try:
            self.conn.write(data)
        except serial.SerialTimeoutException:
            self.in_raw = False
            raise LinkTimeout(
                "the board on %s stopped reading input while %s (stalled?)" % (self.port, doing)
            ) from None
        except (serial.SerialException, OSError) as exc:
            raise self._lost(doing, exc) from None

    def _fill(self, doing):
        try:
            waiting = self.conn.in_waiting
            self._rx += self.conn.read(max(waiting, 1))
        except (serial.SerialException, OSError, TypeError) as exc:
            raise self._lost(doing, exc) from None

    def _lost(self, doing, exc):
        self.in_raw = False
        return BoardDisconnected(
            "lost the board on %s while %s: it was unplugged, reset or crashed (%s)"
            % (self.port, doing, exc)
        )

    def read_until(self, marker, timeout, doing, on_data=None, reset_aborts=False):
        """Bytes up to and including `marker`; LinkTimeout after `timeout` seconds (None: never).

        `on_data` sees each new piece before the marker as it arrives (live output). With
        `reset_aborts`, a fresh raw REPL banner (the board rebooted) raises BoardResetError.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        seen = 0
        while True:
            pos = self._rx.find(marker, max(0, seen - len(marker) + 1))
            end = pos + len(marker) if pos >= 0 else len(self._rx)
            if on_data is not None and end > seen:
                on_data(bytes(self._rx[seen : pos if pos >= 0 else end]))
            if pos >= 0:
                found = bytes(self._rx[:end])
                del self._rx[:end]
                return found
            seen = end
            if reset_aborts and SOFT_REBOOT in self._rx and self._rx.endswith(RAW_BANNER + b">"):
                output = bytes(self._rx)
                self._rx.clear()
                raise BoardResetError(
                    "the board on %s reset itself while %s (it printed %r)"
                    % (self.port, doing, _tail(output))
                )
            if deadline is not None and time.monotonic() > deadline:
                raise LinkTimeout(
                    "the board on %s did not answer within %.1f s while %s (got %r)"
                    % (self.port, timeout, doing, _tail(self._rx))
                )
            self._fill(doing)

    def read_exact(self, n, timeout, doing):
        """Exactly `n` bytes, or LinkTimeout."""
        deadline = time.monotonic() + timeout
        while len(self._rx) < n:
            if time.monotonic() > deadline:
                raise LinkTimeout(
                    "the board on %s sent %r, expected %d bytes, while %s"
                    % (self.port, bytes(self._rx), n, doing)
                )
            self._fill(doing)
        found = bytes(self._rx[:n])
        del self._rx[:n]
        return found

    def discard_input(self):
        """Forget whatever the board has sent so far."""
        self._rx.clear()
        try:
            self.conn.reset_input_buffer()
        except (serial.SerialException, OSError) as exc:
            raise self._lost("flushing input", exc) from None

    # ---- REPL modes ---------------------------------------------------------------------------

    def enter(self, timeout=5.0):
        """Interrupt whatever runs and enter the raw REPL.

        NotMicroPythonError when nothing answers like MicroPython: wrong or missing firmware.
        """
        self.in_raw = False
        deadline = time.monotonic() + timeout
        while True:
            # A busy or confused board (noise on the line, a paste-mode prompt) may swallow
            # one attempt: interrupt again, leave any raw/paste state and retry until the
            # deadline, as a person at the terminal would.
            self.write(b"\r\x03\x03", "interrupting the board")
            self.discard_input()
            self.write(b"\r\x01", "entering the raw REPL")
            left = deadline - time.monotonic()
            try:
                self.read_until(RAW_BANNER + b">", min(left, 1.5), "entering the raw REPL")
                break
            except LinkTimeout:
                if time.monotonic() + 0.2 < deadline:
                    self.write(b"\x03\r\x02", "leaving a half-entered state")
                    continue
            raise NotMicroPythonError(
                "no MicroPython REPL answered on %s within %.0f s (it sent %r). The board may "
                "run other firmware (or none), or be stuck: press its reset button, or flash "
                "MicroPython (`burn board list` says how for each board)."
                % (self.port, timeout, _tail(self._rx))
            ) from None
        self.in_raw = True

    def leave(self):
        """Back to the friendly REPL (Ctrl-B)."""
        self.write(b"\r\x02", "leaving the raw REPL")
        self.in_raw = False

    def interrupt(self, timeout=3.0):
        """Ctrl-C the running program and wait for the board to finish its report."""
        self.write(b"\x03", "interrupting the board")
        self.read_until(b"\x04", timeout, "waiting for the interrupted program")
        self.read_until(b"\x04", timeout, "waiting for the interrupted program")
        self.read_until(b">", timeout, "waiting for the prompt")

    def soft_reset(self, timeout=10.0):
        """Ctrl-D at an empty raw REPL: a soft reset; returns what boot.py printed."""
        if not self.in_raw:
            self.enter()
        self.write(b"\x04", "soft-resetting")
        self.read_until(SOFT_REBOOT, timeout, "soft-resetting")
        boot = self.read_until(RAW_BANNER + b">", timeout, "waiting for the board to restart")
        return boot[: -len(RAW_BANNER) - 1]

    # ---- running code -------------------------------------------------------------------------

    def exec_raw(self, code, timeout=10.0, on_output=None):
        """Run `code`; (stdout, traceback) as bytes. LinkTimeout interrupts overlong code."""
        if isinstance(code, str):
            code = code.encode("utf-8")
        if not self.in_raw:
            self.enter()
        start = time.monotonic()
        try:
            self._send(code)
            out = self.read_until(b"\x04", timeout, "running code", on_output, True)
            left = None if timeout is None else max(1.0, timeout - (time.monotonic() - start))
            err = self.read_until(b"\x04", left, "reading the traceback", None, True)
            # After sys.exit() the board soft-resets and reprints the raw REPL banner first.
            self.read_until(b">", 10.0, "waiting for the prompt")
        except LinkTimeout:
            self._recover_from_timeout(timeout)
            raise
        return out[:-1], err[:-1]

    def _recover_from_timeout(self, timeout):
        self.in_raw = False
        try:
            self.interrupt(timeout=2.0)
            self.in_raw = True
        except LinkTimeout:
            raise LinkTimeout(
                "the board on %s stopped responding (no answer within %s s, none to Ctrl-C "
                "either): it is stalled; reset it" % (self.port, timeout)
            ) from None

    def _send(self, code):
        if self.use_paste:
            self.write(b"\x05A\x01", "starting raw-paste")
            reply = self.read_exact(2, 2.0, "starting raw-paste")
            if reply == b"R\x01":
                self._paste(code)
                return
            self.use_paste = False
            if reply != b"R\x00":
                # An old firmware without raw-paste echoes the banner after the stray Ctrl-A.
                self.read_until(RAW_BANNER + b">", 2.0, "falling back to the plain raw REPL")
            else:
                self.read_until(b">", 2.0, "falling back to the plain raw REPL")
        for i in range(0, len(code), 256):
            self.write(code[i : i + 256], "sending code")
        self.write(b"\x04", "sending code")
        reply = self.read_exact(2, 5.0, "sending code")
        if reply != b"OK":
            self.in_raw = False
            raise NotMicroPythonError(
                "the board on %s answered %r instead of OK to code in the raw REPL"
                % (self.port, reply)
            )

    def _paste(self, code):
        # the board has said it takes raw-paste: its window follows, unless the board (an
        # emulated one on a busy host) stalls, which 10 s tells apart as the flags below do
        window = int.from_bytes(self.read_exact(2, 10.0, "starting raw-paste"), "little")
        credit = window
        i = 0
        while i < len(code):
            while credit == 0 or self._has_input():
                flag = self.read_exact(1, 10.0, "sending code (raw-paste)")
                if flag == b"\x01":
                    credit += window
                elif flag == b"\x04":
                    self.write(b"\x04", "ending raw-paste")  # the board cut us off
                    return
                else:
                    self.in_raw = False
                    raise NotMicroPythonError(
                        "the board on %s sent %r during raw-paste" % (self.port, flag)
                    )
            piece = code[i : i + credit]
            self.write(piece, "sending code (raw-paste)")
            credit -= len(piece)
            i += len(piece)
        self.write(b"\x04", "ending raw-paste")
        # Flow-control credits may still precede the acknowledgement.
        ack = self.read_until(b"\x04", 10.0, "ending raw-paste")
        if ack.strip(b"\x01") != b"\x04":
            self.in_raw = False
            raise NotMicroPythonError(
                "the board on %s sent %r when raw-paste ended" % (self.port, ack)
            )

    def _has_input(self):
        if self._rx:
            return True
        try:
            return self.conn.in_waiting > 0
        except (serial.SerialException, OSError) as exc:
            raise self._lost("sending code", exc) from None


def _tail(data, n=120):
    data = bytes(data)
    return data if len(data) <= n else b"..." + data[-n:]
