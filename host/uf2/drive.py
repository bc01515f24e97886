"""Putting UF2 firmware on a board through its bootloader's USB drive, then waiting for the
new MicroPython to answer on its serial port.

A board in its UF2 bootloader (an RP2040 started with BOOTSEL held) shows up as a small USB
drive holding INFO_UF2.TXT; copying a .uf2 file onto it flashes the blocks of the board's
family and reboots the board. The steps are separate so that other targets (an emulated
board taking the UF2 directly) can reuse the checks and the wait:

    from burn.host.uf2 import drive as uf2_drive
    firmware = uf2_drive.load_firmware("firmware.uf2", "rp2040")   # checked for the board
    drive = uf2_drive.find_drive(firmware.board)                   # or check_drive(path, ...)
    uf2_drive.copy_to_drive(firmware, drive)
    port, answer = uf2_drive.wait_for_micropython(firmware.board, timeout=30)
"""

import glob
import os
import string
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from burn.host import uf2
from burn.host.atomic import write_bytes_atomic
from burn.host.boards import all_boards, load_board
from burn.host.link import Link, LinkError, list_ports

INFO_FILE = "INFO_UF2.TXT"
_VERSION_PROBE = "import sys\nprint(sys.version)\nprint(getattr(sys.implementation, " \
                 "'_machine', ''))"


class FirmwareError(Exception):
    """Putting firmware on the board failed or cannot start; the message says what to do."""


class NoDriveError(FirmwareError):
    """No bootloader drive of the board is mounted."""


class WaitTimeout(FirmwareError):
    """MicroPython did not answer on a serial port in time after the copy."""


@dataclass
class Firmware:
    """A UF2 file checked for `board`: its bytes, blocks, the image of the board's family
    ({address: bytes}) and uf2.info()'s description."""

    path: Path
    board: object
    data: bytes
    blocks: list
    ranges: dict
    info: dict
    notes: list = field(default_factory=list)


def uf2_board(board):
    """The Board `board` names, checked to take UF2 files (FirmwareError otherwise)."""
    board = load_board(board)
    if board.uf2_family is None:
        raise FirmwareError(
            "the %s (%s) is not flashed with UF2 files (its flash method is %s): %s. "
            "Firmware: %s" % (board.name, board.title, board.flash_method,
                              board.flash_instructions.rstrip("."), board.firmware_url))
    return board


def board_for_family(family):
    """The first board whose bootloader takes UF2 files of `family`, or None."""
    return next((b for b in all_boards() if b.uf2_family == family), None)


def load_firmware(path, board):
    """Read and check the UF2 file at `path` for `board`: a valid UF2 with blocks of the
    board's family. FirmwareError saying what is wrong otherwise."""
    board = uf2_board(board)
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise FirmwareError("cannot read %s: %s" % (path, exc.strerror or exc)) from None
    try:
        blocks = uf2.parse(data)
        described = uf2.info(data)
    except uf2.UF2Error as exc:
        raise FirmwareError("%s is not valid UF2 firmware: %s" % (path, exc)) from None
    kinds = uf2.families(blocks)
    want = board.uf2_family
    if want not in kinds:
        raise FirmwareError(
            "%s is for %s, but the %s's bootloader takes family %s (0x%08x) and would ignore "
            "it. Use the firmware for %s: %s"
            % (path.name, " and ".join("%s (%s)" % (uf2.family_name(f), _hex(f)) for f in kinds),
               board.name, uf2.family_name(want), want, board.micropython_board,
               board.firmware_url))
    notes = ["%s also holds blocks for %s, which the %s ignores" % (
        path.name, ", ".join(uf2.family_name(f) for f in kinds if f != want), board.name)
        ] if len(kinds) > 1 else []
    try:
        ranges = uf2.image(blocks, want)
    except uf2.UF2Error as exc:
        raise FirmwareError("%s is not valid UF2 firmware: %s" % (path, exc)) from None
    return Firmware(path, board, data, blocks, ranges, described, notes)


def _hex(family):
    return "no family id" if family is None else "0x%08x" % family


# ---- the bootloader drive ---------------------------------------------------------------------


def drive_facts(folder):
    """The fields of `folder`/INFO_UF2.TXT ({'Board-ID': ..., 'Model': ...}), or None when the
    folder holds no such file."""
    try:
        text = (Path(folder) / INFO_FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    facts = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            facts[key.strip()] = value.strip()
    return facts


def drive_fits(facts, board):
    """Whether a drive's INFO_UF2.TXT fields say it is `board`'s bootloader."""
    want = (board.uf2_board_id or "").lower()
    return bool(want) and any(facts.get(key, "").lower().startswith(want)
                              for key in ("Board-ID", "Model"))


def mount_points():
    """Folders where removable drives are mounted on this system (glob patterns expanded)."""
    if sys.platform == "win32":
        return [Path("%s:\\" % letter) for letter in string.ascii_uppercase
                if os.path.exists("%s:\\" % letter)]
    patterns = ["/Volumes/*"] if sys.platform == "darwin" else [
        "/media/*/*", "/media/*", "/run/media/*/*", "/mnt/*"]
    return [Path(p) for pattern in patterns for p in sorted(glob.glob(pattern))]


def _where_looked():
    if sys.platform == "win32":
        return "the drive letters"
    return "/Volumes/*" if sys.platform == "darwin" else \
        "/media/*/*, /media/*, /run/media/*/*, /mnt/*"


def find_drive(board, folders=None):
    """The mounted bootloader drive of `board` among `folders` (default: mount_points()).
    NoDriveError, saying how to enter the bootloader, when there is none."""
    board = uf2_board(board)
    for folder in mount_points() if folders is None else folders:
        facts = drive_facts(folder)
        if facts is not None and drive_fits(facts, board):
            return Path(folder)
    raise NoDriveError(
        "no %s bootloader drive (%s) is mounted (looked in %s). %s Then run this again, or "
        "name the drive's folder with --drive.%s"
        % (board.name, board.uf2_board_id, _where_looked(), board.flash_instructions,
           _running_hint(board)))


def _running_hint(board):
    try:
        running = [m.device for m in list_ports() if board.name in m.boards]
    except OSError:
        return ""
    if not running:
        return ""
    return (" A %s runs MicroPython on %s: `import machine; machine.bootloader()` at its "
            "REPL enters the bootloader too." % (board.name, running[0]))


def check_drive(folder, board):
    """`folder` as the bootloader drive of `board`: FirmwareError unless it holds an
    INFO_UF2.TXT of that board."""
    board = uf2_board(board)
    folder = Path(folder)
    if not folder.is_dir():
        raise NoDriveError("%s is not a folder: give the mounted drive's folder, e.g. "
                           "/media/$USER/%s" % (folder, board.uf2_board_id))
    facts = drive_facts(folder)
    if facts is None:
        raise NoDriveError("%s holds no %s: it is not a UF2 bootloader drive. %s"
                           % (folder, INFO_FILE, board.flash_instructions))
    if not drive_fits(facts, board):
        raise FirmwareError(
            "%s is the drive of another board (Board-ID %r, model %r), not of the %s (%s)"
            % (folder, facts.get("Board-ID"), facts.get("Model"), board.name,
               board.uf2_board_id))
    return folder


def copy_to_drive(firmware, drive):
    """Copy the firmware's UF2 file onto `drive` (a temporary name, then a rename). A drive
    that vanishes as the copy ends is a board rebooting into its new firmware, not an
    error. Returns the path written."""
    target = Path(drive) / (firmware.path.stem + ".uf2")
    try:
        write_bytes_atomic(target, firmware.data)
    except OSError as exc:
        if drive_facts(drive) is None:
            return target  # the bootloader took every block and rebooted under our feet
        raise FirmwareError("copying %s to %s failed: %s"
                            % (firmware.path.name, drive, exc.strerror or exc)) from None
    return target


# ---- after the copy ---------------------------------------------------------------------------


def _candidate_ports(board, port):
    if port is not None:
        return [port]
    try:
        return [m.device for m in list_ports() if board.name in m.boards]
    except OSError:
        return []


def wait_for_micropython(board, timeout=30.0, port=None, poll=0.25):
    """(port, answer) once MicroPython answers on `port` or on a serial port with one of
    `board`'s USB ids; `answer` is its sys.version line and machine. WaitTimeout, saying
    what was seen, after `timeout` seconds."""
    board = load_board(board)
    deadline = time.monotonic() + timeout
    last_error = None
    while True:
        for device in _candidate_ports(board, port):
            left = deadline - time.monotonic()
            try:
                with Link(device, board=board.name, timeout=max(0.5, min(left, 3.0))) as link:
                    return device, link.exec(_VERSION_PROBE, timeout=5.0).strip()
            except LinkError as exc:
                last_error = exc
        left = deadline - time.monotonic()
        if left <= 0:
            break
        time.sleep(min(poll, left))
    where = "on %s" % port if port else "on a serial port with USB id %s" % \
        " or ".join(board.usb_ids)
    seen = " (last error: %s)" % last_error if last_error else ""
    raise WaitTimeout(
        "MicroPython did not answer %s within %.0f s%s. If the board rebooted into other "
        "firmware it will not answer; else unplug it, plug it in again and check with "
        "`burn board list`." % (where, timeout, seen))


# ---- the whole job ----------------------------------------------------------------------------


@dataclass
class FirmwareReport:
    """What flash_firmware did: the firmware, the drive and file written, the port and
    MicroPython's answer (None when not waited for), seconds of each step."""

    firmware: Firmware
    drive: Path
    written: Path
    copy_seconds: float
    port: str = None
    answer: str = None
    wait_seconds: float = 0.0


def flash_firmware(path, board, drive=None, wait=30.0, port=None, say=None, folders=None):
    """Check the UF2 file at `path` for `board`, find (or check) the bootloader drive, copy
    the file there and, when `wait` (seconds) is set, wait for MicroPython on `port` or the
    board's USB serial port. Raises FirmwareError (NoDriveError, WaitTimeout)."""
    say = say or (lambda message: None)
    firmware = load_firmware(path, board)
    board = firmware.board
    mp = firmware.info["micropython"]
    say("firmware: %s, %s bytes for %s%s" % (
        firmware.path.name, "{:,}".format(len(firmware.data)), uf2.family_name(board.uf2_family),
        ", MicroPython %s" % mp["version"] if mp else ""))
    for note in firmware.notes:
        say("  " + note)
    drive = find_drive(board, folders) if drive is None else check_drive(drive, board)
    say("copying to the %s bootloader drive %s" % (board.name, drive))
    start = time.monotonic()
    written = copy_to_drive(firmware, drive)
    report = FirmwareReport(firmware, drive, written, time.monotonic() - start)
    say("copied %s in %.1f s" % (written, report.copy_seconds))
    if wait:
        say("waiting up to %.0f s for MicroPython to answer" % wait)
        start = time.monotonic()
        report.port, report.answer = wait_for_micropython(board, wait, port)
        report.wait_seconds = time.monotonic() - start
        if mp and mp["banner"] not in report.answer:
            say("  note: the board says %r, the firmware file says %r: it may run other "
                "firmware than the one copied" % (report.answer.split("\n")[0], mp["banner"]))
    return report
