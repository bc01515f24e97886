"""A small reader of little-endian ELF files, 32- and 64-bit (objects and linked images):
sections, symbols and loadable segments, enough for code-size reports, the libc check and
the emulator's loader."""

import struct

SHT_SYMTAB = 2
SHT_NOBITS = 8
SHF_ALLOC = 0x2
SHF_EXECINSTR = 0x4
STT_FUNC = 2
STT_OBJECT = 1
SHN_UNDEF = 0
PT_LOAD = 1


class Section:
    """One section header."""

    def __init__(self, name, type_, flags, addr, offset, size, link):
        self.name, self.type, self.flags = name, type_, flags
        self.addr, self.offset, self.size, self.link = addr, offset, size, link


class Symbol:
    """One symbol-table entry; `section` is None for undefined symbols."""

    def __init__(self, name, value, size, kind, bind, section):
        self.name, self.value, self.size = name, value, size
        self.kind, self.bind, self.section = kind, bind, section


class Elf:
    """Parsed ELF32 or ELF64 file: `sections`, `symbols`, `segments` [(vaddr, bytes, memsz)] and
    `load_images` [(paddr, bytes)]: what a loader (or a flash image) puts at the physical
    addresses of the loadable segments that carry bytes."""

    def __init__(self, data):
        data = bytes(data)
        if data[:4] != b"\x7fELF" or data[4] not in (1, 2) or data[5] != 1:
            raise ValueError("not a little-endian ELF file")
        self.data = data
        self.is64 = data[4] == 2
        a = "Q" if self.is64 else "I"  # addresses, offsets and sizes
        (self.type, self.machine, _v, self.entry, phoff, shoff, _f, _eh, phentsize, phnum,
         shentsize, shnum, shstrndx) = struct.unpack_from("<HHI3%sIHHHHHH" % a, data, 16)
        raw = [struct.unpack_from("<II4%sII2%s" % (a, a), data, shoff + i * shentsize)
               for i in range(shnum)]
        names = raw[shstrndx][4] if shnum else 0
        self.sections = [Section(self._str(names, r[0]), r[1], r[2], r[3], r[4], r[5], r[6])
                         for r in raw]
        self.segments = []
        self.load_images = []
        for i in range(phnum):
            if self.is64:  # ELF64 moves p_flags up to follow p_type
                p_type, _fl, off, vaddr, paddr, filesz, memsz, _al = struct.unpack_from(
                    "<IIQQQQQQ", data, phoff + i * phentsize)
            else:
                p_type, off, vaddr, paddr, filesz, memsz, _fl, _al = struct.unpack_from(
                    "<IIIIIIII", data, phoff + i * phentsize)
            if p_type == PT_LOAD:
                if off + filesz > len(data):
                    raise ValueError("segment %d (%d bytes at file offset %d) runs past the "
                                     "end of the file (%d bytes)" % (i, filesz, off, len(data)))
                self.segments.append((vaddr, data[off:off + filesz], memsz))
                if filesz:
                    self.load_images.append((paddr, data[off:off + filesz]))
        self.symbols = self._symbols()

    def _str(self, table_offset, index):
        end = self.data.index(b"\0", table_offset + index)
        return self.data[table_offset + index:end].decode("ascii", "replace")

    def _symbols(self):
        out = []
        for sec in self.sections:
            if sec.type != SHT_SYMTAB:
                continue
            strtab = self.sections[sec.link].offset
            entry = 24 if self.is64 else 16
            for i in range(1, sec.size // entry):
                if self.is64:
                    name, info, _other, shndx, value, size = struct.unpack_from(
                        "<IBBHQQ", self.data, sec.offset + i * entry)
                else:
                    name, value, size, info, _other, shndx = struct.unpack_from(
                        "<IIIBBH", self.data, sec.offset + i * entry)
                section = None if shndx == SHN_UNDEF else (
                    self.sections[shndx] if shndx < len(self.sections) else None)
                out.append(Symbol(self._str(strtab, name), value, size, info & 0xF, info >> 4,
                                  section))
        return out

    def undefined(self):
        """Names of the undefined (imported) symbols."""
        return sorted({s.name for s in self.symbols if s.section is None and s.name
                       and s.bind != 0})

    def functions(self):
        """{name: size in bytes} of the defined function symbols."""
        return {s.name: s.size for s in self.symbols
                if s.kind == STT_FUNC and s.section is not None}

    def alloc_size(self, code_only=False):
        """Bytes of the allocated sections that occupy flash (code, and read-only data
        unless code_only)."""
        total = 0
        for s in self.sections:
            if not s.flags & SHF_ALLOC or s.type == SHT_NOBITS:
                continue
            if code_only and not s.flags & SHF_EXECINSTR:
                continue
            total += s.size
        return total

    def symbol(self, name):
        """Address of the defined symbol `name` (KeyError if absent)."""
        for s in self.symbols:
            if s.name == name and s.section is not None:
                return s.value
        raise KeyError(name)
