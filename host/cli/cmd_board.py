"""`burn board`: the boards burn knows, the serial ports attached, and the virtual board.

    burn board list                      boards (data in boards/*.json) and serial ports seen
    burn board virtual --board rp2040    run a virtual board until Ctrl-C; prints its port
    burn board emulate --firmware F.uf2  run the firmware on an emulated RP2040 until Ctrl-C
    burn board emulate --board qemu-m7   run burn's firmware for a QEMU board until Ctrl-C
    burn board info [--port P | --virtual] [--board B]   what a connected board reports
"""

import signal
import sys
import tempfile
import threading

from burn.host.boards import all_boards, board_names
from burn.host.cli.number_args import positive_float
from burn.host.emulator import EMULATED_BOARDS
from burn.host.emulator.qemu import qemu_boards


def register(subparsers):
    """Add the `board` subcommand and its actions."""
    parser = subparsers.add_parser("board", help="list boards and ports, run a virtual board")
    actions = parser.add_subparsers(dest="board_action", metavar="ACTION")
    actions.required = True

    listing = actions.add_parser("list", help="known boards and attached serial ports")
    listing.set_defaults(run=run_list)

    virtual = actions.add_parser(
        "virtual", help="run a virtual board (MicroPython unix port on a pty) until Ctrl-C"
    )
    virtual.add_argument("--board", default="rp2040", choices=board_names())
    virtual.add_argument("--flash-dir", help="folder holding its flash image (kept; one "
                         "board at a time may use it); default: a temporary folder removed "
                         "on exit")
    virtual.set_defaults(run=run_virtual)

    emulate = actions.add_parser(
        "emulate", help="run MicroPython firmware on an emulated board until Ctrl-C",
        description="Boot a MicroPython UF2 on an emulated RP2040 (rp2040js under Node.js >= "
        "18) and serve its USB serial on a pty until Ctrl-C. The flash image holds the whole "
        "flash and keeps the filesystem across runs; the firmware's bytes are written into it "
        "at start, as a UF2 copy onto a real board would. A QEMU board (%s) boots burn's "
        "firmware ELF under QEMU instead, its serial console on a pty, one instruction per "
        "nanosecond of its clock (time.ticks_us() counts thousands of instructions); it has "
        "no flash image." % ", ".join(qemu_boards()))
    emulate.add_argument("--board", default="rp2040", choices=EMULATED_BOARDS + tuple(
        qemu_boards()))
    emulate.add_argument("--firmware", help="MicroPython UF2 for the board, or ELF for a QEMU "
                         "board (default: the one `burn firmware build` made; optional when "
                         "--flash-image already holds a firmware)")
    emulate.add_argument("--flash-image", help="file holding the whole flash (kept; created "
                         "erased if missing); default: a temporary file removed on exit")
    emulate.add_argument("--bootrom", help="RP2040 mask ROM dump (default: "
                         "$BURN_RP2040_BOOTROM or the vendor folder)")
    emulate.add_argument("--timeout", type=positive_float, default=20.0,
                         help="seconds the firmware has to reach its REPL (default 20)")
    emulate.set_defaults(run=run_emulate)

    info = actions.add_parser("info", help="connect to a board and print what it reports")
    info.add_argument("--board", default=None, choices=board_names())
    where = info.add_mutually_exclusive_group()
    where.add_argument("--port", help="serial port or URL (default: found by USB id)")
    where.add_argument("--virtual", action="store_true", help="start a virtual board")
    info.set_defaults(run=run_info)


def _kib(n):
    return "%d KiB" % (n // 1024)


def run_list(args):
    """Print the known boards and the serial ports found."""
    from burn.host.link import list_ports

    rows = [("board", "MCU", "mpy arch", "RAM", "heap", "flash", "fs", "USB", "flashing")]
    for b in all_boards():
        rows.append((b.name, b.mcu, b.mpy_arch, _kib(b.ram_bytes), _kib(b.heap_bytes),
                     _kib(b.flash_bytes), _kib(b.fs_bytes), " ".join(b.usb_ids),
                     b.flash_method))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    print()
    ports = list_ports()
    if not ports:
        print("serial ports: none found (`burn board virtual` runs a virtual board)")
    for port in ports:
        note = ("MicroPython on " + "/".join(port.boards) if port.boards else
                "bootloader of " + "/".join(port.bootloader_of) + " (no MicroPython yet)"
                if port.bootloader_of else "not a known board")
        print("%s  [%s]  %s  - %s" % (port.device, port.usb_id or "no USB id",
                                      port.description, note))
    return 0


def run_virtual(args):
    """Run a virtual board in the foreground until Ctrl-C."""
    from burn.host.virtual_board.supervisor import Supervisor

    temporary = None
    flash_dir = args.flash_dir
    if flash_dir is None:
        temporary = tempfile.TemporaryDirectory(prefix="burn-virtual-%s-" % args.board)
        flash_dir = temporary.name
    try:
        supervisor = Supervisor(args.board, flash_dir)
    except (ValueError, RuntimeError) as exc:
        print("burn board virtual: %s" % exc, file=sys.stderr)
        return 2
    # before the port is printed: whoever reads it may stop the board at once
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: supervisor.stop())
    b = supervisor.board
    print("virtual %s (%s, %s): MicroPython unix port, heap %s, flash %s (%s) in %s"
          % (b.name, b.title, b.mcu, _kib(b.heap_bytes), _kib(b.fs_bytes), b.fs_type,
             flash_dir))
    print("connect to: %s" % supervisor.port)
    print("  e.g. mpremote connect %s repl   |   burn ... --port %s"
          % (supervisor.port, supervisor.port))
    print("Ctrl-C stops it.", flush=True)
    try:
        supervisor.serve()
    finally:
        if temporary is not None:
            temporary.cleanup()
    return 0


def run_emulate(args):
    """Run an emulated board (rp2040js, or QEMU for a QEMU board) until Ctrl-C."""
    from burn.host.emulator import EmulatedBoard, EmulatorError
    from burn.host.emulator.qemu import QemuBoard

    qemu = args.board in qemu_boards()
    if qemu and (args.flash_image or args.bootrom):
        print("burn board emulate: --flash-image and --bootrom are for the RP2040; %s boots "
              "its firmware from RAM" % args.board, file=sys.stderr)
        return 2
    board = (QemuBoard(args.board, firmware=args.firmware) if qemu else
             EmulatedBoard(args.board, firmware=args.firmware, flash_image=args.flash_image,
                           bootrom=args.bootrom))
    stop = threading.Event()
    try:
        board.start(args.timeout)
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: stop.set())
        b = board.board
        if qemu:
            print("emulated %s (%s) on QEMU %s: firmware %s"
                  % (b.name, b.title, b.qemu_machine, board.firmware or "built by burn"))
            print("connect to: %s" % board.port)
        else:
            print("emulated %s (%s, %s) on rp2040js: firmware %s, flash image %s"
                  % (b.name, b.title, b.mcu, board.firmware or "from the image",
                     args.flash_image or "temporary"))
            print("connect to: %s (also %s)" % (board.port, board.link))
        print("  e.g. mpremote connect %s repl   |   burn ... --port %s"
              % (board.port, board.port))
        print("Ctrl-C stops it.", flush=True)
        while not stop.wait(0.2):
            if not board.running:
                print("burn board emulate: the emulator stopped", file=sys.stderr)
                return 1
    except EmulatorError as exc:
        print("burn board emulate: %s" % exc, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    finally:
        board.close()
    if getattr(board, "final", None) is not None:
        print("powered off after %d emulated cycles (core 1 ran %d)"
              % (board.final["cycles"], board.final["core1_cycles"]))
    return 0


def run_info(args):
    """Connect and print platform, version, heap and filesystem of the board."""
    from burn.host.link import LinkError, connect

    try:
        with connect(args.port, board=args.board, virtual=args.virtual) as link:
            info = link.info()
            heap = link.mem_info()
            total, free = link.fs_info()
            print("port      %s" % link.port)
            print("platform  %s" % info["platform"])
            print("version   %s" % info["version"])
            print("machine   %s" % info["machine"])
            print("heap      %d bytes free of %d" % (heap["free"], heap["total"]))
            print("flash fs  %d bytes free of %d" % (free, total))
    except LinkError as exc:
        print("burn board info: %s" % exc, file=sys.stderr)
        return 1
    return 0
