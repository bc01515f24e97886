"""`burn flash` (also the `burn-flash` command): put the core and a model on a board, check
it there and report latency, heap and flash.

    burn-flash --board rp2040 model.bst              # the attached Pico, found by USB id
    burn-flash --board rp2040 --port /dev/ttyACM0 model.bst
    burn-flash --board rp2040 --virtual model.bst    # a virtual board (no hardware)
    burn-flash --board rp2040 --emulated model.bst   # an emulated RP2040, real firmware
    burn-flash --dry-run model.bst                   # what would be sent; sends nothing
                                                     # (no board needed)
    burn-flash --board rp2040 --firmware firmware.uf2  # MicroPython firmware first
"""

import os
import sys

from burn.host.board_session import Emulated, add_board_options
from burn.host.cli import flash_firmware


def add_arguments(parser):
    """The options of `burn flash` / `burn-flash`."""
    parser.add_argument("model", nargs="?",
                        help="the .bst model file (may be left out with --firmware)")
    add_board_options(parser, "flash a virtual board (MicroPython unix port on a pty)",
                      flash_dir_help="with --virtual: folder keeping the virtual board's "
                      "flash between runs (default: a temporary one); one board at a time "
                      "may use a folder", firmware=False)
    parser.add_argument("--remote", default=None,
                        help="path of the model on the board (default /model.bst)")
    parser.add_argument("--storage", choices=("auto", "rom", "fs"), default="auto",
                        help="where the model goes: rom = the firmware's ROMFS partition "
                        "(/rom, weights read in place from flash, least RAM), fs = the "
                        "filesystem (layers read into RAM as they run); auto (default) "
                        "takes rom when the firmware has a partition the model fits")
    parser.add_argument("--dry-run", action="store_true",
                        help="show what would be sent and removed; change nothing. Without "
                        "an attached board (and no --port, --virtual or --emulated), plan "
                        "for an empty board of the --board kind")
    parser.add_argument("--force", action="store_true",
                        help="send every file even if the board has it already")
    parser.add_argument("--no-self-test", action="store_true",
                        help="skip the self-test and the measurements on the board")
    flash_firmware.add_arguments(parser)
    parser.set_defaults(run=run)


def register(subparsers):
    """Add `burn flash`."""
    parser = subparsers.add_parser("flash", help="put the core and a .bst model on a board, "
                                                 "self-test it there and report")
    add_arguments(parser)


def run(args):
    """Flash and print the report; 0 when everything passed."""
    from burn.host import deploy
    from burn.host.board_session import open_board
    from burn.host.deploy.dry_run import plan_without_board
    from burn.host.deploy.errors import FlashError
    from burn.host.deploy.report import plan_lines, report_lines
    from burn.host.link import LinkError, NoBoardError

    prog = "burn-flash"
    say = print
    if args.firmware and not args.emulated:
        if args.dry_run:
            if not os.path.isfile(args.firmware):
                print("%s: no firmware file %s" % (prog, args.firmware), file=sys.stderr)
                return 2
            say("dry run: the firmware %s would be copied to the board's bootloader drive "
                "first" % args.firmware)
        else:
            status = flash_firmware.run(args, prog)
            if status or args.model is None:
                return status
    if args.model is None:
        if args.firmware and not args.emulated:
            return 0
        print("%s: give a .bst model, or --firmware FILE.uf2 (see --help)" % prog,
              file=sys.stderr)
        return 2
    remote = args.remote or deploy.REMOTE_MODEL
    if not remote.startswith("/"):
        remote = "/" + remote
    try:
        session = open_board(args.port, args.board, args.virtual, args.flash_dir,
                             emulated=Emulated.from_args(args))
    except NoBoardError as exc:
        if not args.dry_run or args.port or args.virtual or args.emulated:
            print("%s: %s" % (prog, exc), file=sys.stderr)
            return 2
        session = None
    except LinkError as exc:
        print("%s: %s" % (prog, exc), file=sys.stderr)
        return 2
    try:
        if session is None:
            report = plan_without_board(args.board, args.model, remote, args.storage, say)
        else:
            with session:
                report = deploy.flash(session, args.model, remote, dry_run=args.dry_run,
                                      run_measure=not args.no_self_test, force=args.force,
                                      say=say, progress_stream=sys.stdout,
                                      placement=args.storage)
    except (FlashError, ValueError, OSError) as exc:
        print("%s: %s" % (prog, exc), file=sys.stderr)
        return 1
    if args.dry_run:
        print("dry run: nothing was sent; this would be:")
        print("\n".join(plan_lines(report)))
        if report.model is not None and report.model.host_self_test_error:
            print("%s: %s: the self-test failed on the host, so it would fail on the board: "
                  "%s" % (prog, args.model, report.model.host_self_test_error), file=sys.stderr)
            return 1
        return 0
    print("\n".join(report_lines(report)))
    if not report.ok:
        print("%s: the self-test failed on the board" % prog, file=sys.stderr)
        return 1
    return 0
