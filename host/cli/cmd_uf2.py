"""`burn uf2`: describe UF2 firmware files and convert between ELF, raw binary and UF2.

    burn uf2 info firmware.uf2                 # family, address ranges, MicroPython version
    burn uf2 info firmware.uf2 --json
    burn uf2 convert firmware.elf -o firmware.uf2
    burn uf2 convert app.bin -o app.uf2 --base 0x10000000 --family rp2040
    burn uf2 convert firmware.uf2 -o firmware.bin
"""

import json
import sys
from pathlib import Path

PROG = "burn uf2"


def register(subparsers):
    """Add `burn uf2` and its `info` and `convert` commands."""
    parser = subparsers.add_parser(
        "uf2", help="describe UF2 firmware files; convert ELF/bin to UF2 and UF2 to bin",
        description="UF2 is the file format of drag-and-drop bootloaders (the RP2040's "
                    "RPI-RP2 drive, among others).")
    sub = parser.add_subparsers(dest="uf2_command", metavar="COMMAND", required=True)

    info = sub.add_parser("info", help="family, address ranges, blocks and, for MicroPython "
                                       "firmware, its version and frozen modules")
    info.add_argument("file", help="the .uf2 file")
    info.add_argument("--json", action="store_true", help="print the description as JSON")
    info.set_defaults(run=run_info)

    convert = sub.add_parser(
        "convert", help="ELF or raw binary to UF2, UF2 (or ELF) to raw binary",
        description="The input's kind is read from its content (UF2, ELF, else raw binary); "
                    "the output's from its suffix (.uf2 or .bin). A binary made from a UF2 "
                    "covers its lowest to its highest address, gaps filled with 0xff; it "
                    "starts at the lowest address, which is printed.")
    convert.add_argument("input", help="a .elf, .bin or .uf2 file")
    convert.add_argument("-o", "--output", required=True, help="the .uf2 or .bin to write")
    convert.add_argument("--family", help="UF2 family of the output: a name (rp2040, "
                         "rp2350-arm-s, rp2350-riscv, absolute, data, esp32s3, samd21, ...) "
                         "or a number such as 0xe48bff56 (default rp2040); from a UF2 "
                         "holding several families, the one to extract")
    convert.add_argument("--base", help="load address of a raw binary (default 0x10000000, "
                         "the RP2040's flash)")
    convert.set_defaults(run=run_convert)


def _fail(message):
    print("%s: %s" % (PROG, message), file=sys.stderr)
    return 1


def _n(value):
    return "{:,}".format(value)


def format_info(path, described):
    """The human-readable description `burn uf2 info` prints for uf2.info()'s dict."""
    lines = ["file         %s" % path]
    for family in described["families"]:
        lines.append("family       %s (0x%08x)" % (family["name"], family["id"])
                     if family["id"] is not None else "family       none (no family id)")
    lines.append("blocks       %d (%s payload bytes)" % (described["blocks"],
                                                          _n(described["payload_bytes"])))
    for span in described["ranges"]:
        lines.append("range        0x%08x-0x%08x  %9s bytes  %s" % (
            span["start"], span["end"], _n(span["size"]), span["family"]))
    mp = described["micropython"]
    if mp is not None:
        lines.append("micropython  %s%s%s" % (
            mp["version"], " built %s" % mp["build_date"] if mp["build_date"] else "",
            " for %s" % mp["machine"] if mp["machine"] else ""))
        lines.append("banner       %s" % mp["banner"])
        lines.append("frozen       %d modules%s" % (
            len(mp["frozen"]), ": " + ", ".join(mp["frozen"]) if mp["frozen"] else ""))
    return "\n".join(lines)


def run_info(args):
    """Print the description of a UF2 file; 1 with the reason for a bad one."""
    from burn.host import uf2
    try:
        described = uf2.info(Path(args.file).read_bytes())
    except (OSError, uf2.UF2Error) as exc:
        return _fail("%s: %s" % (args.file, getattr(exc, "strerror", None) or exc))
    if args.json:
        print(json.dumps(described, indent=2))
    else:
        print(format_info(args.file, described))
    return 0


def _number(text, what):
    try:
        return int(text, 0)
    except ValueError:
        raise ValueError("%s %r is not a number (write hex as 0x10000000)" % (what, text)) \
            from None


def convert(data, suffix, family=None, base=None):
    """(output bytes, what was done in words) for input `data` and an output of `suffix`
    ('.uf2' or '.bin'); UF2Error or ValueError with the reason when it cannot be done."""
    from burn.host import uf2
    if suffix not in (".uf2", ".bin"):
        raise ValueError("the output must end in .uf2 or .bin, not %r" % (suffix or "nothing"))
    if uf2.is_uf2(data):
        if suffix == ".uf2":
            raise ValueError("the input is a UF2 file already: write a .bin to unpack it")
        if base is not None:
            raise ValueError("--base is for raw binary input; a UF2 file has its addresses")
        blocks = uf2.parse(data)
        start, out = uf2.to_bin(uf2.image(blocks, None if family is None
                                          else uf2.family_id(family)))
        return out, "UF2 (%d blocks) to a binary of %s bytes from 0x%08x" % (
            len(blocks), _n(len(out)), start)
    if data[:4] == b"\x7fELF":
        if base is not None:
            raise ValueError("--base is for raw binary input; an ELF file has its addresses")
        ranges, kind = uf2.elf_ranges(data), "ELF"
    else:
        if not data:
            raise ValueError("the input is empty")
        ranges = {uf2.RP2040_FLASH_BASE if base is None else _number(base, "--base"): data}
        kind = "binary"
    if suffix == ".bin":
        if kind != "ELF":
            raise ValueError("the input is a raw binary already: write a .uf2")
        start, out = uf2.to_bin(ranges)
        return out, "ELF to a binary of %s bytes from 0x%08x" % (_n(len(out)), start)
    family = uf2.family_id(family or "rp2040")
    out = uf2.write_uf2(ranges, family)
    spans = ", ".join("0x%08x+%s" % (start, _n(len(chunk))) for start, chunk in ranges.items())
    return out, "%s (%s) to UF2 for %s: %d blocks" % (
        kind, spans, uf2.family_name(family), len(out) // uf2.BLOCK_SIZE)


def run_convert(args):
    """Convert and write the output atomically; 1 with the reason when it cannot be done."""
    from burn.host import uf2
    from burn.host.atomic import write_bytes_atomic
    try:
        data = Path(args.input).read_bytes()
    except OSError as exc:
        return _fail("%s: %s" % (args.input, exc.strerror or exc))
    try:
        out, done = convert(data, Path(args.output).suffix.lower(), args.family, args.base)
    except (uf2.UF2Error, ValueError) as exc:
        return _fail("%s: %s" % (args.input, exc))
    try:
        write_bytes_atomic(args.output, out)
    except OSError as exc:
        return _fail("writing %s: %s" % (args.output, exc.strerror or exc))
    print("wrote %s: %s" % (args.output, done))
    return 0
