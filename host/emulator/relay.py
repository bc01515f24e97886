"""The byte pump between the emulator process and the pty, in one thread.

Board output (Node's stdout) goes to the pty master; host input (the pty master) goes to
Node's stdin. Until `forward()` is called, board output is kept in `boot_output` and the pty
is not read, so a boot banner or a readiness probe never reaches the host. The control socket
brings JSON events (`on_event(dict)`), and {"event": "gone"} comes last, once the emulator has
closed everything; Node's stderr is echoed to ours and its tail kept.
"""

import collections
import json
import os
import selectors
import sys
import threading

_HOST_LIMIT = 1 << 20  # board output kept for a host that does not read; older bytes drop


class Relay(threading.Thread):
    """Pump bytes for one emulator process; `finish()` closes its stdin and lets it end."""

    def __init__(self, master, proc, control, on_event):
        super().__init__(name="emulator-relay", daemon=True)
        self.master = master
        self.proc = proc
        self.control = control
        self.on_event = on_event
        self.boot_output = bytearray()
        self.stderr_tail = collections.deque(maxlen=20)
        self._forwarding = False
        self._finishing = False
        self._lock = threading.Lock()
        self._to_board = bytearray()
        self._to_host = bytearray()
        self._partial = {"control": b"", "stderr": b""}
        self._wake_r, self._wake_w = os.pipe()
        for fd in (self._wake_r, proc.stdin.fileno(), proc.stdout.fileno(),
                   proc.stderr.fileno()):
            os.set_blocking(fd, False)
        control.setblocking(False)
        self._sel = selectors.DefaultSelector()
        self._sel.register(self._wake_r, selectors.EVENT_READ, "wake")
        self._sel.register(proc.stdout.fileno(), selectors.EVENT_READ, "board")
        self._sel.register(proc.stderr.fileno(), selectors.EVENT_READ, "stderr")
        self._sel.register(control.fileno(), selectors.EVENT_READ, "control")
        self._stdin = proc.stdin.fileno()

    # ---- called from other threads ------------------------------------------------------------

    def send(self, data):
        """Queue bytes for the board, as if the host had typed them."""
        with self._lock:
            self._to_board += data
        self._wake()

    def forward(self):
        """From now on, connect the pty to the board (and drop what the board said so far)."""
        self._forwarding = True
        self._wake()

    def request(self, line):
        """Send one control request line (e.g. 'cycles')."""
        self.control.sendall(line.encode() + b"\n")

    def finish(self):
        """Close the board's stdin (the emulator then saves its flash and exits)."""
        self._finishing = True
        self._wake()

    def _wake(self):
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass

    # ---- the thread ---------------------------------------------------------------------------

    def run(self):
        """Pump until the emulator has closed its stdout, stderr and control socket."""
        open_streams = {"board", "stderr", "control"}
        master_registered = False
        stdin_open = True
        while open_streams:
            if self._forwarding and not master_registered:
                self._sel.register(self.master, selectors.EVENT_READ, "host")
                master_registered = True
            if master_registered:
                mask = selectors.EVENT_READ | (selectors.EVENT_WRITE if self._to_host else 0)
                self._sel.modify(self.master, mask, "host")
            with self._lock:
                pending = bytes(self._to_board)
            if stdin_open and (self._finishing or pending):
                stdin_open = self._feed_board(pending)
            for key, mask in self._sel.select(timeout=0.5):
                if key.data == "wake":
                    os.read(self._wake_r, 4096)
                elif key.data == "host":
                    self._serve_host(mask)
                elif not self._read_stream(key.data):
                    self._sel.unregister(key.fd)
                    open_streams.discard(key.data)
        if master_registered:
            self._sel.unregister(self.master)
        self._sel.close()
        os.close(self._wake_r)
        os.close(self._wake_w)
        self.on_event({"event": "gone"})

    def _feed_board(self, pending):
        """Write what waits for the board; close its stdin when finishing. False once closed."""
        try:
            written = os.write(self._stdin, pending) if pending else 0
        except BlockingIOError:
            written = 0
        except OSError:
            written, self._finishing = len(pending), True  # the emulator has gone
        with self._lock:
            del self._to_board[:written]
            done = self._finishing and not self._to_board
        if done:
            self.proc.stdin.close()
        return not done

    def _serve_host(self, mask):
        if mask & selectors.EVENT_WRITE and self._to_host:
            try:
                written = os.write(self.master, self._to_host[:4096])
            except OSError:
                written = 0
            del self._to_host[:written]
        if mask & selectors.EVENT_READ:
            try:
                data = os.read(self.master, 4096)
            except OSError:
                data = b""
            if data:
                self.send(data)

    def _read_stream(self, name):
        """Read what the emulator wrote on stream `name`; False at its end."""
        fd = {"board": self.proc.stdout.fileno(), "stderr": self.proc.stderr.fileno(),
              "control": self.control.fileno()}[name]
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return True
        except OSError:
            data = b""
        if not data:
            return False
        if name == "board":
            if self._forwarding:
                self._to_host += data
                del self._to_host[:-_HOST_LIMIT]
            else:
                self.boot_output += data
        else:
            self._lines(name, data)
        return True

    def _lines(self, name, data):
        lines = (self._partial[name] + data).split(b"\n")
        self._partial[name] = lines.pop()
        for line in lines:
            if name == "control":
                self.on_event(json.loads(line))
            else:
                text = line.decode("utf-8", "replace").rstrip()
                self.stderr_tail.append(text)
                print("emulator: " + text, file=sys.stderr, flush=True)
