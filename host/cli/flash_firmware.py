"""`burn-flash --firmware FILE.uf2`: put MicroPython firmware on a UF2 board (through its
bootloader drive) before, or instead of, a model.

    burn-flash --board rp2040 --firmware firmware.uf2              # found drive, then wait
    burn-flash --firmware firmware.uf2 --drive /media/me/RPI-RP2 model.bst
"""

import sys
from pathlib import Path

from burn.host.cli.number_args import nonnegative_float


def add_arguments(parser):
    """The firmware options of `burn flash` / `burn-flash`."""
    group = parser.add_argument_group(
        "firmware", "put MicroPython firmware (.uf2) on a board through its bootloader drive "
        "first (RP2040, RP2350: hold BOOTSEL while plugging it in)")
    group.add_argument("--firmware", metavar="UF2", help="the .uf2 firmware to copy; without "
                       "--board, the board is the one its UF2 family belongs to; with "
                       "--emulated, the firmware the emulated board runs")
    group.add_argument("--drive", metavar="FOLDER", help="the bootloader drive's folder "
                       "(default: found among the mounted drives by its INFO_UF2.TXT)")
    group.add_argument("--wait", type=nonnegative_float, default=30.0, metavar="SECONDS",
                       help="how long to wait for MicroPython to answer on the board's "
                       "serial port after the copy; 0 does not wait (default 30)")


def _board_name(args):
    from burn.host import uf2
    from burn.host.uf2 import drive as uf2_drive
    if args.board:
        return args.board
    try:
        kinds = uf2.families(uf2.parse(Path(args.firmware).read_bytes()))
    except (OSError, uf2.UF2Error):
        return "rp2040"  # load_firmware reports the unreadable or invalid file
    for family in kinds:
        board = uf2_drive.board_for_family(family)
        if board is not None:
            return board.name
    raise uf2_drive.FirmwareError(
        "no known board takes UF2 family %s: name the board with --board"
        % " or ".join(uf2.family_name(f) for f in kinds))


def run(args, prog):
    """Flash the firmware of `args.firmware`; 0 on success, else 1 (2 when no bootloader
    drive is mounted) with the reason on stderr. Sets `args.board` and `args.port` for a
    model flashed next."""
    from burn.host.uf2 import drive as uf2_drive
    if args.virtual:
        print("%s: --firmware needs a real board; a virtual board runs the unix port"
              % prog, file=sys.stderr)
        return 2
    try:
        args.board = _board_name(args)
        report = uf2_drive.flash_firmware(args.firmware, args.board, args.drive, args.wait,
                                          args.port, say=print)
    except uf2_drive.FirmwareError as exc:
        print("%s: %s" % (prog, exc), file=sys.stderr)
        return 2 if isinstance(exc, uf2_drive.NoDriveError) else 1
    if report.port is not None:
        print("MicroPython answers on %s after %.1f s: %s" % (
            report.port, report.wait_seconds, report.answer.replace("\n", "; ")))
        args.port = report.port
    return 0
