"""Where a firmware image's flash and static RAM go: text (code and constants in flash),
data (initialised RAM, also stored in flash) and bss (zeroed RAM), each split into burn's
frozen core, the flex C module and the rest of MicroPython.

The split comes from the linker map (which object each input section came from), the ELF
symbols of frozen_content.c (the frozen modules' code objects, named after their module),
and frozen_content.c itself (the qstrs only burn's modules use)."""

import re

from burn.host.flex.elf import SHF_ALLOC, SHT_NOBITS, STT_FUNC, Elf

STT_FILE = 4
RAM_BASE, RAM_END = 0x20000000, 0x20100000
# Output sections that reserve RAM for the stacks and the C heap rather than hold variables.
_RESERVED = (".heap", ".stack_dummy", ".stack1_dummy")
_BURN_SYMBOL = re.compile(r"(^|_)burn(_|$)")
KINDS = ("text", "data", "bss")
PARTS = ("frozen_core", "flex_module", "rest")


def section_kinds(elf):
    """{output section name: 'text' | 'data' | 'bss'} of the allocated sections: by address,
    because the rp2 linker script gives RAM code and variables (.data) the flags of code."""
    kinds = {}
    for s in elf.sections:
        if not s.flags & SHF_ALLOC or s.name in _RESERVED:
            continue
        if s.type == SHT_NOBITS:
            kinds[s.name] = "bss"
        else:
            kinds[s.name] = "data" if RAM_BASE <= s.addr < RAM_END else "text"
    return kinds


def map_input_sections(text):
    """(output section, input section, address, size, object file) of every input section
    in a GNU ld map file (names too long for one line continue on the next)."""
    out = []
    start = text.find("Linker script and memory map")
    output = pending = None
    for line in text[start:].splitlines():
        if not line.strip():
            continue
        if not line[0].isspace():
            output = line.split()[0]
            pending = None
            continue
        fields = line.split()
        if line[1] != " ":
            if len(fields) == 1:
                pending = fields[0]
                continue
            name, fields = fields[0], fields[1:]
        elif pending is not None:
            name = pending
        else:
            continue
        pending = None
        if len(fields) >= 3 and fields[0].startswith("0x") and fields[1].startswith("0x"):
            out.append((output, name, int(fields[0], 16), int(fields[1], 16),
                        " ".join(fields[2:])))
    return out


def _other_frozen_symbols(elf, frozen_c):
    """Bytes of the local symbols of frozen_content.c that belong to modules not burn's.
    The port lists each frozen module in the binary info as `__bi_<line>`, after the line
    of frozen_content.c that names the module."""
    lines = frozen_c.splitlines()
    total = 0
    inside = False
    for sym in elf.symbols:
        if sym.kind == STT_FILE:
            inside = sym.name.endswith("frozen_content.c")
        elif not inside or sym.section is None:
            continue
        elif sym.name.startswith("__bi_") and sym.name[5:].isdigit():
            line = int(sym.name[5:]) - 1
            total += sym.size * (line >= len(lines) or '"burn/' not in lines[line])
        elif not _BURN_SYMBOL.search(sym.name):
            total += sym.size
    return total


def _block(text, start_marker):
    at = text.find(start_marker)
    return text[at:text.find("};", at)] if at >= 0 else ""


def _is_burn(module):
    """Whether a module name (dotted, slashed, or escaped as in C symbols) is burn's."""
    return module == "burn" or module.startswith(("burn.", "burn/", "burn_"))


def other_frozen_tables(frozen_c, table_bytes):
    """Bytes of frozen_content.c's shared tables that the port's own frozen modules need
    (all but burn's): their qstrs (characters, NUL, pointer and a share of the hash and
    length tables, `table_bytes` being those tables' size), file names and module pointers."""
    names = re.findall(r"(MP_QSTR_\w+)", _block(frozen_c, "enum {"))
    lengths = [int(n) for n in
               re.findall(r"(\d+),", _block(frozen_c, "mp_qstr_frozen_const_lengths[] ="))]
    entry_bytes = 4 + table_bytes / max(1, len(names))
    used = set()
    for chunk in frozen_c.split("// frozen module ")[1:]:
        if not _is_burn(chunk.split(None, 1)[0]):
            used.update(re.findall(r"MP_QSTR_\w+", chunk))
    qstrs = sum(length + 1 + entry_bytes
                for name, length in zip(names, lengths) if name in used)
    files = [f for m, f in re.findall(r'MICROPY_FROZEN_LIST_ITEM\("([^"]*)", "([^"]*)"\)',
                                      frozen_c) if not _is_burn(m)]
    return round(qstrs + sum(len(f) + 1 + 4 for f in files))


def image_sizes(elf_bytes, map_text, frozen_c, flex_markers):
    """The size report of one image: {'total': {kind: bytes}, 'parts': {part: {kind:
    bytes}}, 'flash_end': address, 'ram_code': [(name, address, size)] of the flex module's
    input sections placed in RAM}. An object file whose path holds one of `flex_markers`
    belongs to the flex module."""
    elf = Elf(elf_bytes)
    kinds = section_kinds(elf)
    total = dict.fromkeys(KINDS, 0)
    for s in elf.sections:
        if s.name in kinds:
            total[kinds[s.name]] += s.size
    parts = {part: dict.fromkeys(KINDS, 0) for part in PARTS}
    frozen_total = 0
    ram_code = []
    for output, name, addr, size, obj in map_input_sections(map_text):
        kind = kinds.get(output)
        if kind is None or not size:
            continue
        if obj.endswith(("frozen_content.c.o", "frozen_content.c.obj", "/frozen_content.o")) \
                and kind == "text":
            frozen_total += size
        elif any(m in obj for m in flex_markers):
            parts["flex_module"][kind] += size
            if RAM_BASE <= addr < RAM_END and kind == "data" and not name.startswith(".data"):
                ram_code.append((name, addr, size))
    if frozen_c:
        sizes = {s.name: s.size for s in elf.symbols if s.section is not None}
        tables = (sizes.get("mp_qstr_frozen_const_hashes", 0)
                  + sizes.get("mp_qstr_frozen_const_lengths", 0))
        parts["frozen_core"]["text"] = (frozen_total - _other_frozen_symbols(elf, frozen_c)
                                        - other_frozen_tables(frozen_c, tables))
    for kind in KINDS:
        parts["rest"][kind] = total[kind] - sum(parts[p][kind] for p in PARTS[:2])
    flash_end = max(paddr + len(data) for paddr, data in elf.load_images)
    image = sum(len(data) for _paddr, data in elf.load_images)
    return {"total": total, "parts": parts, "image_bytes": image, "flash_end": flash_end,
            "ram_code": _functions_in(elf, ram_code)}


def _functions_in(elf, spans):
    """(function name, address, size) of the ELF's functions inside the (name, address,
    size) input-section `spans`, by address."""
    found = set()
    for sym in elf.symbols:
        if sym.kind != STT_FUNC or sym.section is None:
            continue
        addr = sym.value & ~1  # Thumb functions have bit 0 set
        if any(start <= addr < start + size for _name, start, size in spans):
            found.add((sym.name, addr, sym.size))
    return sorted(found, key=lambda f: f[1])


def report_lines(report):
    """The size report as text lines: flash and static RAM, each with burn's shares."""
    parts, total = report["parts"], report["total"]
    labels = {"frozen_core": "burn frozen core", "flex_module": "flex C module",
              "rest": "MicroPython and SDK"}
    lines = ["%-22s %10s %10s %10s %10s" % ("", "flash", "text", "data", "bss")]
    for part in PARTS:
        p = parts[part]
        lines.append("%-22s %10d %10d %10d %10d"
                     % (labels[part], p["text"] + p["data"], p["text"], p["data"], p["bss"]))
    lines.append("%-22s %10d %10d %10d %10d" % ("total", total["text"] + total["data"],
                                                total["text"], total["data"], total["bss"]))
    base = report.get("code_base", 0x10000000)  # XIP flash; None: a QEMU board's RAM image
    used = report["image_bytes"] if base is None else report["flash_end"] - base
    limit = report["code_limit"] - (base or 0)
    lines.append("flash image %d of %d bytes of code space (%d free); static RAM %d bytes "
                 "(data + bss)" % (used, limit, limit - used, total["data"] + total["bss"]))
    for name, addr, size in report["ram_code"]:
        lines.append("flex kernel in SRAM: %-32s 0x%08x %6d" % (name, addr, size))
    return lines
