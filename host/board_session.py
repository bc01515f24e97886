"""An open serial link to a board that survives a broken connection: `open_board()` finds the
board (an attached one, the port given, or a virtual board it starts), and `reconnect()`
gets back to a clean raw REPL after the board reset itself or the link got confused.

Used by `burn-flash`, `burn repl` and `burn demo`.
"""

import time

from serial import SerialException

from burn.host.boards import board_names, load_board
from burn.host.link import Link, LinkError, NoBoardError, list_ports, open_port
from burn.host.link.errors import DeviceError
from burn.host.link.ports import choose_port

DEFAULT_BOARD = "rp2040"
_SYNC = "burn-sync"


def is_transport_error(exc):
    """Whether `exc` is the link failing (not code on the board raising)."""
    return isinstance(exc, LinkError) and not isinstance(exc, DeviceError)


class BoardSession:
    """A link to the board on `port` that can be reopened; closes `virtual_board` (a virtual
    or emulated board this session started) on close.

    `board` is the Board description, `where` says in words what the board is.
    """

    def __init__(self, port, board, virtual_board=None, where=""):
        self.port = port
        self.board = board
        self.virtual_board = virtual_board
        self.where = where or "%s on %s" % (board.name, port)
        self.link = None
        try:
            self.link = self._open()
        except BaseException:
            self._stop_virtual()
            raise

    @property
    def virtual(self):
        """Whether the board is a virtual board this session started."""
        return self.virtual_board is not None

    def _open(self, quiet=0.3, settle=2.0):
        # Ctrl-C first, then wait for silence: a running program stops and whatever was typed
        # ahead (a half-entered paste mode, say) is consumed before the raw REPL is entered.
        _wake(self.port, quiet, settle)
        return Link(self.port, board=self.board.name)

    def reconnect(self, attempts=3):
        """Close and reopen the port, interrupt the board and wait for it to stop talking
        (a reset board prints its banners), enter the raw REPL and check that code runs;
        the new Link.

        Raises the LinkError when the board does not come back: gone (NoBoardError), or
        silent (NotMicroPythonError: stalled), or still confused after `attempts` tries.
        """
        last = None
        for _ in range(attempts):
            self._close_link()
            self.link = self._open()
            try:
                if self.link.exec("print(%r)" % _SYNC).strip() == _SYNC:
                    return self.link
                last = LinkError("the board on %s answered garbage after reconnecting"
                                 % self.port)
            except LinkError as exc:
                last = exc
        raise last

    def _close_link(self):
        if self.link is not None:
            try:
                self.link.close()
            except LinkError:
                pass
            self.link = None

    def _stop_virtual(self):
        if self.virtual_board is not None:
            self.virtual_board.stop()
            self.virtual_board = None

    def close(self):
        """Close the link; stop the virtual or emulated board this session started."""
        self._close_link()
        self._stop_virtual()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _wake(port, quiet, settle):
    """Send Ctrl-C twice, then read and drop what the board sends until it is silent for
    `quiet` seconds (at most `settle` seconds in all)."""
    conn = open_port(port)
    try:
        conn.write(b"\r\x03\x03")
        deadline = time.monotonic() + settle
        last = time.monotonic()
        while time.monotonic() < deadline and time.monotonic() - last < quiet:
            if conn.read(4096):
                last = time.monotonic()
    except (OSError, SerialException) as exc:
        raise NoBoardError("lost the board on %s: %s" % (port, exc)) from None
    finally:
        conn.close()


def detect_board(port=None, board=None):
    """(port, Board) of an attached board: `port` or the first serial port whose USB id is a
    known board's (of `board`, if named). NoBoardError says how to proceed without one."""
    matches = list_ports()
    if port is None:
        port = choose_port(matches, board)
    if board is None:
        names = [n for m in matches if m.device == port for n in m.boards]
        board = names[0] if names else DEFAULT_BOARD
    return port, load_board(board)


def open_board(port=None, board=None, virtual=False, flash_dir=None, fallback_virtual=False,
               say=None, emulated=None):
    """A BoardSession: on `port`, on an attached board found by USB id, on a virtual `board`
    (default rp2040) when `virtual` (or, with `fallback_virtual`, when none is attached), or
    on an emulated one when `emulated` is an `Emulated` choice. A virtual board keeps its
    flash in `flash_dir` (temporary if None)."""
    say = say or (lambda message: None)
    if emulated is not None:
        return emulated.open(board or DEFAULT_BOARD, say)
    if not virtual:
        try:
            port, found = detect_board(port, board)
            return BoardSession(port, found)
        except NoBoardError as exc:
            if not fallback_virtual or port is not None:
                raise
            say("%s\nusing a virtual %s instead" % (_first_sentence(exc), board or DEFAULT_BOARD))
    from burn.host.virtual_board import VirtualBoard

    vb = VirtualBoard(board or DEFAULT_BOARD, flash_dir).start()
    where = "virtual %s on %s (flash in %s)" % (vb.board.name, vb.port, vb.flash_dir)
    return BoardSession(vb.port, vb.board, vb, where)


class Emulated:
    """The choice of an emulated board: the real rp2 firmware on rp2040js, or for a QEMU
    board (boards/qemu-*.json) burn's firmware for it under QEMU. `firmware` is the UF2 (or
    the QEMU board's ELF) it runs (default: the cached `burn firmware build`), `flash_image`
    the file that keeps an RP2040's flash between runs (default: a temporary one; a QEMU
    board keeps its flash in RAM, for the session)."""

    def __init__(self, firmware=None, flash_image=None, bootrom=None):
        self.firmware = firmware
        self.flash_image = flash_image
        self.bootrom = bootrom

    def open(self, board, say):
        """Boot the emulated `board` and open a BoardSession on it (NoBoardError when the
        emulator cannot start, with the reason)."""
        from burn.host.emulator import EmulatedBoard, EmulatorError

        if load_board(board).qemu_machine:
            return self._open_qemu(board, say)
        try:
            eb = EmulatedBoard(board, self.firmware, self.flash_image, self.bootrom)
            if eb.firmware is None and self.flash_image is None:
                raise EmulatorError("no firmware for the emulated %s: build it with `burn "
                                    "firmware build --board %s` or pass --firmware X.uf2"
                                    % (board, board))
            say("starting an emulated %s (%s)" % (board, eb.firmware or eb.flash_image))
            eb.start()
        except EmulatorError as exc:
            raise NoBoardError("emulated %s: %s" % (board, exc)) from None
        where = "emulated %s on %s (flash in %s)" % (eb.board.name, eb.port, eb.flash_image)
        return BoardSession(eb.port, eb.board, eb, where)

    def _open_qemu(self, board, say):
        from burn.host.emulator import EmulatorError
        from burn.host.emulator.qemu import QemuBoard

        if self.flash_image or self.bootrom:
            raise NoBoardError("emulated %s: --flash-image and --bootrom are for the emulated "
                               "RP2040; a QEMU board keeps its flash in RAM" % board)
        try:
            qb = QemuBoard(board, self.firmware)
            say("starting an emulated %s (QEMU %s)" % (board, qb.board.qemu_machine))
            qb.start()
        except EmulatorError as exc:
            raise NoBoardError("emulated %s: %s" % (board, exc)) from None
        where = "emulated %s on %s (QEMU %s; its flash in RAM)" % (
            qb.board.name, qb.port, qb.board.qemu_machine)
        return BoardSession(qb.port, qb.board, qb, where)

    @classmethod
    def from_args(cls, args):
        """The choice made by the --emulated options of a command (None without them)."""
        if not getattr(args, "emulated", False):
            return None
        return cls(getattr(args, "firmware", None), getattr(args, "flash_image", None),
                   getattr(args, "bootrom", None))


def add_board_options(parser, virtual_help, port_help=None, flash_dir_help=None,
                      firmware=True):
    """--board, one of --port, --virtual and --emulated, --flash-dir when flash_dir_help
    is given, and the emulated board's options (see add_emulated_options)."""
    parser.add_argument("--board", choices=board_names(),
                        help="board kind (default: found by USB id, else rp2040)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--port", help=port_help or "serial port or URL (default: found by USB "
                       "id)")
    where.add_argument("--virtual", action="store_true", help=virtual_help)
    if flash_dir_help:
        parser.add_argument("--flash-dir", help=flash_dir_help)
    add_emulated_options(where, parser, firmware)


def add_emulated_options(where, parser, firmware=True):
    """--emulated (in the mutually exclusive group `where`), --flash-image and, when
    `firmware`, --firmware for the emulated board."""
    where.add_argument("--emulated", action="store_true",
                       help="use an emulated board running the real firmware: an RP2040 on "
                       "rp2040js, or with --board qemu-* that board under QEMU")
    parser.add_argument("--flash-image", metavar="FILE",
                        help="with --emulated: file keeping the emulated board's flash "
                        "between runs (default: a temporary one); one board at a time may "
                        "use a file")
    if firmware:
        parser.add_argument("--firmware", metavar="FILE",
                            help="with --emulated: the UF2 (a QEMU board's ELF) it runs "
                            "(default: the one `burn firmware build` made)")


def _first_sentence(exc):
    text = str(exc)
    return text.split(". ", 1)[0].rstrip(".") + "."
