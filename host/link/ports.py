"""Finding a board's serial port by its USB ids, and opening a port with clear errors."""

import errno
from dataclasses import dataclass

import serial
import serial.tools.list_ports

from burn.host.boards import all_boards, load_board
from burn.host.link.errors import (
    NoBoardError,
    NotMicroPythonError,
    PortBusyError,
    PortPermissionError,
)


@dataclass(frozen=True)
class PortMatch:
    """A serial port and the boards whose USB ids it carries."""

    device: str
    usb_id: str  # 'vvvv:pppp', or '' for ports without USB ids
    description: str
    boards: tuple  # board names running MicroPython with this id
    bootloader_of: tuple  # board names whose ROM bootloader has this id


def match_ports(port_infos, boards=None):
    """Each of pyserial's `ListPortInfo`s paired with the boards its USB id belongs to."""
    boards = all_boards() if boards is None else boards
    matches = []
    for info in port_infos:
        usb_id = "" if info.vid is None else "%04x:%04x" % (info.vid, info.pid)
        matches.append(PortMatch(
            device=info.device,
            usb_id=usb_id,
            description=info.description or "",
            boards=tuple(b.name for b in boards if usb_id in b.usb_ids),
            bootloader_of=tuple(b.name for b in boards if usb_id in b.bootloader_usb_ids),
        ))
    return matches


def list_ports():
    """Every serial port on this machine, matched against the known boards."""
    return match_ports(serial.tools.list_ports.comports())


def choose_port(matches, board=None):
    """The one port to use for `board` (any known board if None) among `matches`.

    NoBoardError when none fits (listing what was seen), NotMicroPythonError when the board
    only shows up in its ROM bootloader, i.e. without MicroPython firmware.
    """
    name = load_board(board).name if board is not None else None
    fits = [m for m in matches if m.boards and (name is None or name in m.boards)]
    if fits:
        return fits[0].device
    for m in matches:
        if m.bootloader_of and (name is None or name in m.bootloader_of):
            target = load_board(name or m.bootloader_of[0])
            raise NotMicroPythonError(
                "%s (%s) is in its bootloader (USB %s): it has no MicroPython firmware yet. "
                "%s Firmware: %s" % (target.title, m.device, m.usb_id,
                                     target.flash_instructions, target.firmware_url)
            )
    seen = ", ".join("%s [%s]" % (m.device, m.usb_id or "no USB id") for m in matches)
    wanted = "%s board" % name if name else "MicroPython board"
    raise NoBoardError(
        "no %s found on any serial port (seen: %s). Plug it in, name its port with --port, "
        "or use the virtual board (--virtual)." % (wanted, seen or "none")
    )


def find_port(board=None):
    """The serial port of an attached `board` (or any known board), found by USB id."""
    return choose_port(list_ports(), board)


def open_port(port, baudrate=115200, write_timeout=5.0):
    """Open `port` (a device path or pyserial URL) exclusively; a LinkError on failure."""
    try:
        conn = serial.serial_for_url(
            port, baudrate=baudrate, timeout=0.05, write_timeout=write_timeout,
            exclusive=True, do_not_open=True,
        )
        conn.open()
        return conn
    except (serial.SerialException, OSError) as exc:
        raise _open_error(port, exc) from None


def _open_error(port, exc):
    code = getattr(exc, "errno", None)
    text = str(exc)
    if code in (errno.ENOENT, errno.ENODEV, errno.ENXIO) or "No such file" in text:
        return NoBoardError(
            "no serial port %s: is the board plugged in? (`burn board list` shows the ports)"
            % port
        )
    if code in (errno.EACCES, errno.EPERM) or "Permission denied" in text:
        return PortPermissionError(
            "permission denied opening %s: add your user to the group that owns it "
            "(Linux: sudo usermod -aG dialout $USER, then log in again)" % port
        )
    if code in (errno.EBUSY, errno.EAGAIN) or "exclusively lock" in text:
        return PortBusyError(
            "serial port %s is in use by another program (a serial terminal, mpremote, Thonny "
            "or another burn command); close it and retry" % port
        )
    return NoBoardError("could not open serial port %s: %s" % (port, text))
