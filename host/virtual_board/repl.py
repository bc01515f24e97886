"""The REPL a MicroPython board speaks on its USB serial port, as a state machine.

Bytes from the host go in through `feed`; everything the host must see goes out through
`port.write`. The machine follows MicroPython's `shared/runtime/pyexec.c`: the friendly REPL
(`>>> `, Ctrl-A raw REPL, Ctrl-B banner, Ctrl-C cancel, Ctrl-D soft reset, Ctrl-E paste
mode), the raw REPL (`raw REPL; CTRL-B to exit`, Ctrl-D runs, `OK`, output, `\\x04`, error,
`\\x04`, `>`) and raw-paste mode (`\\x05A\\x01`, `R\\x01` and a flow-control window).

`port` is the board side and provides: write(data) to the host, execute(kind, source) with
kind "f" (file) or "s" (interactive statement), interrupt() (Ctrl-C while code runs) and
restart(run_main) for a soft reset.

While code runs, host bytes wait in a queue for the REPL, as in a board's input ring buffer
(typed-ahead lines run next); only Ctrl-C acts at once. Programs get no stdin.
"""

import codeop

BOOT, FRIENDLY, PASTE = "boot", "friendly", "paste"
RAW, RAW_PASTE, EXEC, DEAD = "raw", "raw-paste", "exec", "dead"

CTRL_A, CTRL_B, CTRL_C, CTRL_D, CTRL_E = 1, 2, 3, 4, 5
RAW_BANNER = b"raw REPL; CTRL-B to exit\r\n"
PASTE_BANNER = b"\r\npaste mode; Ctrl-C to cancel, Ctrl-D to finish\r\n=== "
SOFT_REBOOT = b"MPY: soft reboot\r\n"


def cooked(data):
    """Board output as a board's UART sends it: every newline as CR LF."""
    return data.replace(b"\n", b"\r\n")


def statement_complete(source):
    """Whether an interactive statement is complete (an unfinished block waits for more)."""
    try:
        return codeop.compile_command(source, "<stdin>", "single") is not None
    except (SyntaxError, ValueError, OverflowError):
        return True  # let the board report it


class Repl:
    """The REPL protocol states of one board; see the module docstring."""

    def __init__(self, port, board_title, mcu, stdin_buffer=256):
        self.port = port
        self.board_title = board_title
        self.mcu = mcu
        # As pyexec.c: a raw-paste window is half the stdin buffer, and two are free at first.
        self.window = stdin_buffer // 2
        self.version = "MicroPython"
        self.state = BOOT
        self.raw_mode = False  # survives a soft reset, as pyexec_mode_kind does
        self.queue = bytearray()
        self.line = bytearray()
        self.lines = []
        self.buffer = bytearray()
        self.window_left = 0
        self.escape = 0
        self.last_byte = 0
        self.exec_kind = FRIENDLY
        self.interruptible = False  # a Ctrl-C before the firmware runs Python is dropped
        self.interrupt_asked = False  # a Ctrl-C sent before the program started

    # ---- events from the board side -------------------------------------------------------

    def on_booting(self):
        """The firmware runs boot.py and main.py now: Ctrl-C may interrupt them."""
        self.interruptible = True

    def on_started(self):
        """The firmware has read the program and starts it: a Ctrl-C typed since the program
        was sent interrupts it now."""
        self.interruptible = True
        if self.interrupt_asked:
            self._interrupt()

    def on_ready(self, version):
        """The firmware finished booting (boot.py, main.py): show the prompt."""
        self.version = version
        if self.raw_mode:
            self._enter_raw()
        else:
            self._enter_friendly()
        self._drain()

    def on_output(self, data):
        """Program output (stdout and stderr share the UART)."""
        self.port.write(cooked(data))

    def on_done(self, kind, payload):
        """The program finished: kind "D" (fine), "E" (traceback in payload), "X" (exit)."""
        tail = b""
        if self.exec_kind == RAW:
            tail = b"\x04" + cooked(payload) + b"\x04"
        elif kind == "E":
            tail = cooked(payload)
        self.port.write(tail)
        if kind == "X":
            self.soft_reset()
            return
        if self.exec_kind == RAW:
            self.state = RAW
            self.port.write(b">")
        else:
            self.state = FRIENDLY
            self.port.write(b">>> ")
        self._drain()

    def on_crash(self, status):
        """The firmware process died: report it and reboot, as a watchdog would.

        A firmware that dies while booting stays down (no reboot loop) until a Ctrl-D.
        """
        self.port.write(b"\r\nFATAL: MicroPython exited with status %d\r\n" % status)
        if self.state == BOOT:
            self.state = DEAD
            self.queue.clear()
        else:
            self.soft_reset()

    def soft_reset(self):
        """Restart the firmware with fresh RAM; the flash keeps its files."""
        self.state = BOOT
        self.interruptible = False
        self.buffer.clear()
        self.port.write(SOFT_REBOOT)
        self.port.restart(run_main=not self.raw_mode)

    # ---- bytes from the host --------------------------------------------------------------

    def feed(self, data):
        """Bytes the host sent."""
        if self.state == DEAD:
            if CTRL_D in data:
                self.soft_reset()
            return
        if self.state in (BOOT, EXEC):
            self._feed_running(data)
        else:
            self.queue += data
            self._drain()

    def _feed_running(self, data):
        for byte in data:
            if byte == CTRL_C:
                # One interrupt per program: the KeyboardInterrupt stops it, and a second
                # one would land in the firmware's own bookkeeping after it (a board simply
                # prints a second traceback; the unix port would lose the answer). Before
                # the firmware starts the program it is kept for on_started.
                if self.interruptible:
                    self._interrupt()
                elif self.state == EXEC:
                    self.interrupt_asked = True
            else:
                self.queue.append(byte)  # for the REPL once the program has stopped

    def _interrupt(self):
        self.interruptible = False
        self.interrupt_asked = False
        self.port.interrupt()

    def _drain(self):
        handlers = {
            FRIENDLY: self._friendly,
            PASTE: self._paste,
            RAW: self._raw,
            RAW_PASTE: self._raw_paste,
        }
        while self.queue and self.state in handlers:
            handlers[self.state]()
        if CTRL_C in self.queue and self.state in (BOOT, EXEC):
            rest = bytes(self.queue)  # a Ctrl-C typed ahead interrupts the new program
            self.queue.clear()
            self._feed_running(rest)

    def _pop(self):
        byte = self.queue[0]
        del self.queue[0]
        return byte

    def _run(self, kind, source, exec_kind):
        self.state = EXEC
        self.exec_kind = exec_kind
        self.interruptible = False  # until the firmware says it starts (on_started)
        self.interrupt_asked = False
        self.port.execute(kind, source)

    # ---- friendly REPL ----------------------------------------------------------------------

    def _enter_friendly(self):
        self.state = FRIENDLY
        self.line.clear()
        self.lines = []
        banner = "%s; %s (virtual) with %s\r\nType \"help()\" for more information.\r\n>>> " % (
            self.version, self.board_title, self.mcu)
        self.port.write(banner.encode())

    def _friendly(self):
        byte = self._pop()
        previous, self.last_byte = self.last_byte, byte
        if self.escape:
            # ESC [ ... final byte: cursor keys and the like are not edited here
            self.escape = 0 if (self.escape > 1 and 0x40 <= byte <= 0x7E) else self.escape + 1
        elif byte == 0x1B:
            self.escape = 1
        elif CTRL_A <= byte <= CTRL_E and byte != CTRL_C and not self.line and not self.lines:
            self._friendly_control(byte)
        elif byte == CTRL_C:
            self.line.clear()
            self.lines = []
            self.port.write(b"\r\n>>> ")
        elif byte in (8, 0x7F):
            if self.line:
                del self.line[-1]
                self.port.write(b"\x08 \x08")
        elif byte == 13 or (byte == 10 and previous != 13):
            self._friendly_enter()
        elif byte >= 32 or byte == 9:
            self.line.append(byte)
            self.port.write(bytes((byte,)))

    def _friendly_control(self, byte):
        self.port.write(b"\r\n")
        if byte == CTRL_A:
            self.raw_mode = True
            self._enter_raw()
        elif byte == CTRL_B:
            self._enter_friendly()
        elif byte == CTRL_D:
            self.soft_reset()
        else:
            self.state = PASTE
            self.buffer.clear()
            self.port.write(PASTE_BANNER[2:])

    def _friendly_enter(self):
        self.port.write(b"\r\n")
        self.lines.append(self.line.decode("utf-8", "replace"))
        self.line.clear()
        if self.lines == [""]:
            self.lines = []
            self.port.write(b">>> ")
            return
        # An indented block ends with an empty line, as at MicroPython's own prompt.
        source = "\n".join(self.lines)
        if statement_complete(source) or (len(self.lines) > 1 and self.lines[-1] == ""):
            self.lines = []
            self._run("s", source, FRIENDLY)
        else:
            self.port.write(b"... ")

    def _paste(self):
        byte = self._pop()
        if byte == CTRL_C:
            self.state = FRIENDLY
            self.port.write(b"\r\n>>> ")
        elif byte == CTRL_D:
            self.port.write(b"\r\n")
            source = bytes(self.buffer).replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            self._run("f", source.decode("utf-8", "replace"), FRIENDLY)
        else:
            self.buffer.append(byte)
            self.port.write(b"\r\n=== " if byte == 13 else bytes((byte,)))

    # ---- raw REPL and raw-paste -------------------------------------------------------------

    def _enter_raw(self):
        self.state = RAW
        self.buffer.clear()
        self.port.write(RAW_BANNER + b">")

    def _raw(self):
        controls = [self.queue.find(c) for c in (b"\x01", b"\x02", b"\x03", b"\x04")]
        cut = min([i for i in controls if i >= 0], default=len(self.queue))
        if cut:
            self.buffer += self.queue[:cut]
            del self.queue[:cut]
            return
        byte = self._pop()
        if byte == CTRL_A:
            self._raw_ctrl_a()
        elif byte == CTRL_B:
            self.raw_mode = False
            self.port.write(b"\r\n")
            self._enter_friendly()
        elif byte == CTRL_C:
            self.buffer.clear()
        elif not self.buffer:
            self.port.write(b"OK\r\n")
            self.soft_reset()
        else:
            self.port.write(b"OK")
            self._run("f", self._take_source(), RAW)

    def _raw_ctrl_a(self):
        if len(self.buffer) == 2 and self.buffer[0] == CTRL_E:
            command = self.buffer[1]
            self.buffer.clear()
            if command == ord("A"):
                self.state = RAW_PASTE
                self.window_left = self.window
                self.port.write(b"R\x01" + self.window.to_bytes(2, "little") + b"\x01")
            else:
                self.port.write(b"R\x00>")
            return
        self._enter_raw()

    def _raw_paste(self):
        chunk = self.queue[: self.window_left]
        ends = [i for i in (chunk.find(b"\x03"), chunk.find(b"\x04")) if i >= 0]
        take = min(ends) if ends else len(chunk)
        self.buffer += chunk[:take]
        del self.queue[:take]
        self.window_left -= take
        if self.window_left == 0:
            self.window_left = self.window
            self.port.write(b"\x01")
        if not ends:
            return
        byte = self._pop()
        self.port.write(b"\x04")  # end of data acknowledged
        if byte == CTRL_D:
            self._run("f", self._take_source(), RAW)
        else:
            self.buffer.clear()
            self.state = RAW
            self.port.write(b"\x04KeyboardInterrupt\r\n\x04>")

    def _take_source(self):
        source = bytes(self.buffer).decode("utf-8", "replace")
        self.buffer.clear()
        return source
