"""`QemuBoard`: burn's firmware for a QEMU board (boards/*.json with `qemu_machine`) running
under QEMU, its serial console on a pty.

    with QemuBoard("qemu-m7") as board:
        with burn.host.link.connect(board.port) as link:
            print(link.exec("print(1 + 1)"))

QEMU counts no cycles. With `icount` (on by default) it runs one instruction per nanosecond
of the board's clock (`-icount shift=0`), so `time.ticks_us()` on the board measures
thousands of instructions: `instructions()` turns a span of ticks into a count. The firmware
is the ELF that `burn firmware build --board <board>` made, unless one is given.
"""

import base64
import os
import re
import select
import shutil
import subprocess
import time
from pathlib import Path

from burn.host.boards import load_board
from burn.host.emulator.lifecycle import BoardProcess
from burn.host.emulator.runtime import EmulatorError

_PTY = re.compile(rb"char device redirected to (/dev/pts/\d+)")
_PROMPT = b">>> "
_INSTALL = {"qemu-system-arm": "apt-get install -y qemu-system-arm",
            "qemu-system-riscv32": "apt-get install -y qemu-system-misc"}
TAIL_BYTES = 2000
CHUNK_BYTES = 3072  # raw bytes per exec when a file is sent into the board's RAM


def qemu_boards():
    """Names of the boards QEMU emulates, sorted."""
    from burn.host.boards import all_boards

    return [b.name for b in all_boards() if b.qemu_machine]


def send_bytes(link, name, data):
    """Make `data` the bytearray `name` in the board's RAM, in chunks over the raw REPL: the
    qemu port has no filesystem to put a model on."""
    link.exec("import binascii\n%s = bytearray(%d)" % (name, len(data)))
    for at in range(0, len(data), CHUNK_BYTES):
        chunk = data[at:at + CHUNK_BYTES]
        link.exec("%s[%d:%d] = binascii.a2b_base64(%r)"
                  % (name, at, at + len(chunk), base64.b64encode(chunk).decode()))


def _version(program):
    """The first line of `program --version` ("QEMU emulator version 7.2.22 ..."), or the
    program's name when it gives none."""
    proc = subprocess.run([program, "--version"], capture_output=True, text=True, check=False)
    return (proc.stdout.splitlines() or [program])[0]


def instructions(ticks_us):
    """Instructions run in `ticks_us` microseconds of an icount board's clock."""
    return ticks_us * 1000


class QemuBoard(BoardProcess):
    """One QEMU board: `port` is the pty path to open (set by `start()`)."""

    def __init__(self, board="qemu-m7", firmware=None, icount=True):
        self.board = load_board(board)
        if not self.board.qemu_machine:
            raise EmulatorError("board %s is not one QEMU emulates; those are: %s"
                                % (self.board.name, ", ".join(qemu_boards())))
        self.firmware = Path(firmware) if firmware else None
        self.icount = icount
        self.port = None
        self.proc = None
        self._console = b""

    def argv(self, program, firmware):
        """QEMU's command line: the board's machine, no display or monitor, the serial
        console on a pty, semihosting (the port's exit), and the instruction clock."""
        argv = [program, "-machine", self.board.qemu_machine, "-display", "none",
                "-monitor", "none", "-semihosting", "-serial", "pty", "-kernel", str(firmware)]
        if self.board.mpy_arch.startswith("rv"):  # the image starts itself: no firmware
            argv += ["-bios", "none"]
        return argv + (["-icount", "shift=0"] if self.icount else [])

    def start(self, timeout=20.0):
        """Boot the firmware and wait (at most `timeout` s) until it answers at the REPL;
        returns self. EmulatorError with the reason (and the console's tail) otherwise."""
        program = shutil.which(self.board.qemu_system)
        if program is None:
            raise EmulatorError("%s not found on PATH; install QEMU: %s" % (
                self.board.qemu_system, _INSTALL.get(self.board.qemu_system, "your package "
                                                     "manager's qemu-system package")))
        firmware = self.firmware or self._built_firmware()
        if not firmware.is_file():
            raise EmulatorError("no firmware at %s" % firmware)
        self.proc = subprocess.Popen(self.argv(program, firmware), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            self.port = self._pty_path(time.monotonic() + timeout)
            self._wait_prompt(time.monotonic() + timeout)
        except BaseException:
            self.close()
            raise
        return self

    def _built_firmware(self):
        from burn.host.firmware.build import cached_image

        image = cached_image(self.board.name)
        if image is None:
            raise EmulatorError("no firmware built for %s yet: run burn firmware build "
                                "--board %s" % (self.board.name, self.board.name))
        return image

    def _pty_path(self, deadline):
        out = b""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.2)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 4096)
                if not chunk:
                    break
                out += chunk
                found = _PTY.search(out)
                if found:
                    return found.group(1).decode()
        if b"unsupported machine type" in out:
            raise EmulatorError("this QEMU (%s) does not emulate the machine %s of board %s; "
                                "QEMU 7.2 or newer does: %s" % (
                                    _version(self.proc.args[0]), self.board.qemu_machine,
                                    self.board.name, _INSTALL.get(self.board.qemu_system,
                                                                  "update QEMU")))
        raise EmulatorError("QEMU gave no serial pty (exit status %s): %s"
                            % (self.proc.poll(), out[-TAIL_BYTES:].decode(errors="replace")))

    def _wait_prompt(self, deadline):
        fd = os.open(self.port, os.O_RDWR | os.O_NOCTTY)
        try:
            last_poke = 0.0
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    break
                if time.monotonic() - last_poke > 1.0:
                    os.write(fd, b"\r\n")
                    last_poke = time.monotonic()
                ready, _, _ = select.select([fd], [], [], 0.1)
                if ready:
                    self._console = (self._console + os.read(fd, 4096))[-TAIL_BYTES:]
                    if self._console.endswith(_PROMPT):
                        return
        finally:
            os.close(fd)
        raise EmulatorError("the firmware never reached the REPL; console tail:\n%s"
                            % self._console.decode(errors="replace"))

    @property
    def running(self):
        """Whether QEMU is still running."""
        return self.proc is not None and self.proc.poll() is None

    def close(self, timeout=5.0):
        """Power off: QEMU is terminated (killed past `timeout`)."""
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            self.proc.stdout.close()
            self.proc = None
