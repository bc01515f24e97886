"""`burn firmware build --board NAME`: MicroPython firmware with burn frozen in and the flex
C module compiled in, built in the cache (reused while its inputs are unchanged)."""

import sys

from burn.host.atomic import write_bytes_atomic
from burn.host.firmware import FirmwareError, ops_select
from burn.host.firmware.build import build_firmware
from burn.host.firmware.recipe import ALL_OPS, recipe_boards
from burn.host.firmware.sizes import report_lines


def register(subparsers):
    """Add the `firmware` subcommand."""
    p = subparsers.add_parser("firmware", help="build MicroPython firmware with burn inside")
    sub = p.add_subparsers(dest="firmware_command", metavar="ACTION", required=True)
    b = sub.add_parser(
        "build", help="build the firmware image of a board (.uf2; .elf for a QEMU board)",
        description="Build MicroPython v1.28.0 for a board with the package burn frozen in "
        "(bytecode in flash), the flex C module compiled in and a ROMFS partition for models. "
        "Needs the Arm GNU toolchain, cmake and make. The build runs in the cache "
        "($BURN_CACHE_DIR or ~/.cache/burn, folder firmware/); a second build with the same "
        "inputs takes the cached image.")
    b.add_argument("--board", default="rp2040",
                   help="board name from boards/ (with a recipe: %s; default rp2040)"
                   % ", ".join(recipe_boards()))
    b.add_argument("-o", "--output", help="where to write the image (default "
                   "firmware-BOARD.uf2, or .elf for a QEMU board, in the current folder)")
    b.add_argument("--micropython", metavar="DIR", help="MicroPython v1.28.0 source tree "
                   "(a checkout with the rp2 submodules, or its .tar.xz); default "
                   "$BURN_MICROPYTHON_SRC, the vendor archive, or a git clone")
    b.add_argument("--force", action="store_true",
                   help="rebuild from a clean build folder even if a cached image exists")
    b.add_argument("--stock", action="store_true",
                   help="build the port's own board without burn (for size comparisons)")
    b.add_argument("--debug", action="store_true",
                   help="keep the line numbers of burn's frozen bytecode, so tracebacks on the "
                   "board name real lines (about 7 KB more flash; the release build has "
                   "'line 1' in burn's frames)")
    b.add_argument("--ops-from", metavar="MODEL.bst", action="append",
                   help="keep only the kernels these models use (repeat for several models): "
                   "the other ops' C kernels and Python modules are left out, saving flash. "
                   "A model with another op then fails to load on the board with a message "
                   "that names it; default: every op but the optional ones (burn import "
                   "--list-ops marks them)")
    b.add_argument("--all-ops", action="store_true",
                   help="keep every op, the optional ones too (more flash than the default)")
    b.set_defaults(run=run_build)


def run_build(args):
    """Build with a progress bar, write the image, print the size report; 1 on failure."""
    try:
        if args.ops_from and args.all_ops:
            raise FirmwareError("choose --ops-from or --all-ops, not both")
        ops = (ops_select.kernels_of(args.ops_from) if args.ops_from
               else ALL_OPS if args.all_ops else None)
    except FirmwareError as e:
        print("error: %s" % e, file=sys.stderr)
        return 1
    output = args.output
    try:
        with _Progress() as progress:
            result = build_firmware(args.board, args.micropython, args.force, args.stock,
                                    progress, debug=args.debug, ops=ops)
        output = output or "firmware-%s%s%s%s" % (
            args.board, "-stock" if args.stock else "-debug" if args.debug else "",
            "-all-ops" if ops == ALL_OPS else "" if ops is None else
            "-ops-" + ops_select.label(ops), result.image.suffix)
        write_bytes_atomic(output, result.image.read_bytes())
    except FirmwareError as e:
        print("error: %s" % e, file=sys.stderr)
        return 1
    except OSError as e:
        print("error: cannot write %s: %s" % (output, e.strerror or e), file=sys.stderr)
        return 1
    report = result.report
    how = "cached" if result.cached else "built in %.0f s" % report["build_seconds"]
    print("firmware for %s (MicroPython %s, %s; %s): %s"
          % (report["board"], report["micropython"], report["flavor"], how, output))
    if not report["flex_module"] and report["flavor"] != "stock":
        print("note: no flex C module (micropython/micropython.cmake is missing)")
    if report.get("ops") is not None:
        print("kernels: %s" % " ".join(report["ops"]))
    print("\n".join(report_lines(report)))
    print("build folder: %s" % result.folder)
    return 0


class _Progress:
    """A rich progress bar on a terminal, plain lines otherwise."""

    def __enter__(self):
        self._bar = None
        self._phase = None
        if sys.stderr.isatty():
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
            self._bar = Progress(TextColumn("{task.description}"), BarColumn(),
                                 TextColumn("{task.percentage:>3.0f}%"), TimeElapsedColumn(),
                                 transient=True)
            self._bar.start()
            self._task = self._bar.add_task("firmware", total=100)
        return self

    def __call__(self, phase, percent=None):
        if self._bar is not None:
            self._bar.update(self._task, description=phase, completed=percent or 0)
        elif phase != self._phase:
            print(phase + " ...", file=sys.stderr, flush=True)
        self._phase = phase

    def __exit__(self, *exc):
        if self._bar is not None:
            self._bar.stop()
