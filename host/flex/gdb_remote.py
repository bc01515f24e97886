"""A client of the GDB remote serial protocol, enough to drive QEMU's gdbstub: read and write
memory and registers, set breakpoints, continue until the target stops.

Packets are `$data#checksum` (the sum of the data's bytes modulo 256, two hex digits), each
acknowledged with `+`. QEMU takes packets of up to 4096 bytes, so memory moves in chunks of
1 KB (2 KB of hex). QEMU answers a continue with a stop reply (`S05` or `T05...`) when a
breakpoint is hit.
"""

import socket
import time


class GdbError(RuntimeError):
    """The stub refused a request, hung up or did not answer in time."""


class GdbRemote:
    """One connection to a stub listening on (host, port)."""

    def __init__(self, host, port, timeout=10.0):
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.create_connection((host, port), timeout=1.0)
                self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise GdbError("no GDB stub answered on %s:%d" % (host, port)) from None
                time.sleep(0.05)
        self._buffer = b""
        # QEMU answers register requests (p, P) only once the client has read the target
        # description, whose register numbers they then use.
        self.request("qXfer:features:read:target.xml:0,ffb")

    def close(self):
        """Hang up."""
        self.sock.close()

    def _read(self, timeout):
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(65536)
        except socket.timeout:
            raise GdbError("the GDB stub did not answer within %ss" % timeout) from None
        if not data:
            raise GdbError("the GDB stub hung up")
        self._buffer += data

    def _packet(self, timeout):
        while True:
            start = self._buffer.find(b"$")
            end = self._buffer.find(b"#", start + 1) if start >= 0 else -1
            if start >= 0 and end >= 0 and len(self._buffer) >= end + 3:
                data = self._buffer[start + 1:end]
                self._buffer = self._buffer[end + 3:]
                self.sock.sendall(b"+")
                return data.decode("latin-1")
            self._read(timeout)

    def request(self, data, timeout=10.0):
        """Send packet `data` (str) and return the stub's answer (str)."""
        payload = data.encode("latin-1")
        frame = b"$%s#%02x" % (payload, sum(payload) & 0xFF)
        self.sock.sendall(frame)
        answer = self._packet(timeout)
        if answer.startswith("E") and len(answer) == 3:
            raise GdbError("the GDB stub refused %r: %s" % (data[:40], answer))
        return answer

    def write_memory(self, addr, data, chunk=1024):
        """Write bytes `data` at `addr`."""
        for at in range(0, len(data), chunk):
            part = data[at:at + chunk]
            if self.request("M%x,%x:%s" % (addr + at, len(part), part.hex())) != "OK":
                raise GdbError("writing %d bytes at 0x%x failed" % (len(part), addr + at))

    def read_memory(self, addr, size, chunk=1024):
        """`size` bytes at `addr`."""
        out = bytearray()
        for at in range(0, size, chunk):
            n = min(chunk, size - at)
            out += bytes.fromhex(self.request("m%x,%x" % (addr + at, n)))
        return bytes(out)

    def write_register(self, number, value, size=4):
        """Set register `number` (the stub's numbering; `size` bytes wide) to `value`."""
        data = (value & ((1 << (8 * size)) - 1)).to_bytes(size, "little").hex()
        if self.request("P%x=%s" % (number, data)) != "OK":
            raise GdbError("writing register %d failed" % number)

    def read_register(self, number):
        """Register `number` as an unsigned 32-bit value."""
        return int.from_bytes(bytes.fromhex(self.request("p%x" % number)), "little")

    def breakpoint(self, addr, kind=2):
        """Insert a breakpoint at `addr` (kind 2: a 16-bit Thumb instruction)."""
        if self.request("Z0,%x,%x" % (addr, kind)) != "OK":
            raise GdbError("no breakpoint at 0x%x" % addr)

    def resume(self, timeout):
        """Continue and wait (at most `timeout` s) for the target to stop; the stop reply."""
        payload = b"c"
        self.sock.sendall(b"$c#%02x" % (sum(payload) & 0xFF))
        deadline = time.monotonic() + timeout
        while True:
            try:
                answer = self._packet(max(0.01, deadline - time.monotonic()))
            except GdbError:
                if time.monotonic() >= deadline:
                    self.sock.sendall(b"\x03")  # interrupt, so the stub can be used again
                    self._packet(5.0)
                    raise GdbError("the target did not stop within %ss" % timeout) from None
                raise
            if answer[:1] in ("S", "T"):
                return answer
            if answer[:1] in ("W", "X"):
                raise GdbError("the target exited: %s" % answer)
