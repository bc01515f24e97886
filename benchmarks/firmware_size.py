"""Firmware size: burn's RP2040 firmware against stock RPI_PICO MicroPython v1.28.0.

Builds both with the same machinery (`burn.host.firmware`; the stock one is the port's
RPI_PICO board with no frozen burn and no user C module), then prints flash (text + data)
and static RAM (data + bss) of each, with burn's frozen core, the flex C module and the
rest broken out; the size of the burnflex native module (.mpy) per architecture; and, on
the emulated RP2040 (`burn.host.emulator`), the heap free after boot and after
`import burn`. Goals printed beside the figures:

    burn's flash share (frozen core + flex module)   <= 160 KB
    heap free after `import burn`                     >= stock heap free after boot - 8 KB
    burnflex.mpy for armv6m                           <= 24 KB

Both builds are cached by their inputs: the first run takes minutes, later runs seconds.

With --ops-from MODEL.bst (repeatable) it also builds the firmware that keeps only those
models' kernels (`burn firmware build --ops-from`) and prints its share beside the full one.

Run: python benchmarks/firmware_size.py [--board rp2040] [--no-emulator] [--ops-from M.bst]
"""

import argparse
import contextlib
import sys

from burn.host.firmware import FirmwareError
from burn.host.firmware.build import build_firmware

KB = 1024
FLASH_GOAL = 160 * KB
HEAP_MARGIN = 8 * KB
NATMOD_GOAL = 24 * KB
NATMOD_ARCHES = ("armv6m", "armv7m", "armv7emsp", "x64")

HEAP_FREE = "import gc\ngc.collect()\nprint(gc.mem_free())"
IMPORT_BURN = "import burn\n" + HEAP_FREE


def heap_figures(run, with_burn):
    """{'boot': free heap bytes after boot, 'import burn': after importing burn} measured
    through `run(code) -> printed text` on a freshly booted board (the second only when
    `with_burn`)."""
    figures = {"boot": int(run(HEAP_FREE).split()[-1])}
    if with_burn:
        figures["import burn"] = int(run(IMPORT_BURN).split()[-1])
    return figures


@contextlib.contextmanager
def emulated_runner(uf2):
    """A `run(code)` callable executing code on the emulated RP2040 booted from `uf2`."""
    from burn.host.emulator.board import EmulatedBoard
    from burn.host.link.link import Link

    with EmulatedBoard("rp2040", firmware=uf2) as board:
        link = Link(board.port)
        try:
            yield lambda code: link.exec(code, timeout=60)
        finally:
            link.close()


def _row(label, report):
    t = report["total"]
    return "%-28s %9d %9d" % (label, t["text"] + t["data"], t["data"] + t["bss"])


def _verdict(ok):
    return "meets the goal" if ok else "MISSES the goal"


def _progress(phase, percent=None):
    if percent is None:
        print("  " + phase, file=sys.stderr, flush=True)


def sizes(board):
    """Build both images; print the comparison. Returns (stock result, burn result)."""
    stock = build_firmware(board, stock=True, progress=_progress)
    burn = build_firmware(board, progress=_progress)
    s, b = stock.report, burn.report
    print("%-28s %9s %9s" % ("firmware (bytes)", "flash", "static RAM"))
    print(_row("stock RPI_PICO v1.28.0", s))
    print(_row("burn", b))
    for part, label in (("frozen_core", "  burn frozen core"), ("flex_module", "  flex C module"),
                        ("rest", "  rest")):
        p = b["parts"][part]
        print("%-28s %9d %9d" % (label, p["text"] + p["data"], p["data"] + p["bss"]))
    delta = (b["total"]["text"] + b["total"]["data"]) - (s["total"]["text"] + s["total"]["data"])
    share = _share(b)
    print("burn image - stock image: %d bytes of flash, %d of static RAM"
          % (delta, (b["total"]["data"] + b["total"]["bss"])
             - (s["total"]["data"] + s["total"]["bss"])))
    print("burn's flash share %.1f KB (goal <= %d KB): %s"
          % (share / KB, FLASH_GOAL // KB, _verdict(share <= FLASH_GOAL)))
    for name, addr, size in b["ram_code"]:
        print("  flex kernel in SRAM: %-36s 0x%08x %5d bytes" % (name, addr, size))
    return stock, burn


def _share(report):
    return sum(report["parts"][p]["text"] + report["parts"][p]["data"]
               for p in ("frozen_core", "flex_module"))


def selection_sizes(board, models, burn):
    """Build the firmware with only the kernels of `models`; print its parts against the
    full build `burn`."""
    from burn.host.firmware.ops_select import kernels_of

    kernels = kernels_of(models)
    sel = build_firmware(board, progress=_progress, ops=kernels).report
    print("--ops-from %s: kernels %s" % (" ".join(models), " ".join(kernels)))
    for part, label in (("frozen_core", "  burn frozen core"), ("flex_module", "  flex C module")):
        full, kept = (sum(r["parts"][part][k] for k in ("text", "data"))
                      for r in (burn.report, sel))
        print("%-28s %9d (full build %d, %d less)" % (label, kept, full, full - kept))
    print("burn's flash share with --ops-from %.1f KB (full build %.1f KB)"
          % (_share(sel) / KB, _share(burn.report) / KB))


def natmod_sizes():
    """Print the burnflex .mpy size per architecture."""
    from burn.host.mpy.natmod import build_natmod

    for arch in NATMOD_ARCHES:
        try:
            size = build_natmod(arch, log=_progress).stat().st_size
        except Exception as e:  # one architecture's failure must not hide the others
            print("burnflex.mpy %-10s not built: %s" % (arch, str(e).splitlines()[0]))
            continue
        goal = ("  (goal <= %d KB: %s)" % (NATMOD_GOAL // KB, _verdict(size <= NATMOD_GOAL))
                if arch == "armv6m" else "")
        print("burnflex.mpy %-10s %7d bytes%s" % (arch, size, goal))


def heaps(stock, burn):
    """Print the heap figures measured on the emulated RP2040."""
    with emulated_runner(stock.uf2) as run:
        s = heap_figures(run, with_burn=False)
    with emulated_runner(burn.uf2) as run:
        b = heap_figures(run, with_burn=True)
    print("heap free after boot: stock %d, burn %d bytes" % (s["boot"], b["boot"]))
    ok = b["import burn"] >= s["boot"] - HEAP_MARGIN
    print("heap free after import burn: %d bytes (goal >= stock boot - 8 KB = %d): %s"
          % (b["import burn"], s["boot"] - HEAP_MARGIN, _verdict(ok)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--board", default="rp2040")
    parser.add_argument("--no-emulator", action="store_true",
                        help="skip the heap figures (they boot the emulated RP2040)")
    parser.add_argument("--ops-from", metavar="MODEL.bst", action="append",
                        help="also build the firmware with only these models' kernels")
    args = parser.parse_args(argv)
    try:
        stock, burn = sizes(args.board)
        if args.ops_from:
            selection_sizes(args.board, args.ops_from, burn)
    except FirmwareError as e:
        print("error: %s" % e, file=sys.stderr)
        return 1
    natmod_sizes()
    if not args.no_emulator:
        try:
            heaps(stock, burn)
        except Exception as e:  # report and go on: the size figures above stand
            print("heap figures not measured: %s" % e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
