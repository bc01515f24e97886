"""Names a WebAssembly object file imports (its undefined symbols) and defines (its linking
section's symbol table), for the libc check."""


def _leb(data, pos):
    result = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return result, pos


def _name(data, pos):
    n, pos = _leb(data, pos)
    return data[pos:pos + n].decode("utf-8", "replace"), pos + n


def _skip_limits(data, pos):
    flags, pos = _leb(data, pos)
    _min, pos = _leb(data, pos)
    if flags & 1:
        _max, pos = _leb(data, pos)
    return pos


def _sections(data):
    """(section id, start, end) of each section of the wasm module `data` (bytes)."""
    if data[:4] != b"\0asm":
        raise ValueError("not a WebAssembly module")
    pos = 8
    while pos < len(data):
        section = data[pos]
        size, pos = _leb(data, pos + 1)
        yield section, pos, pos + size
        pos += size


def imports(data):
    """Field names of every import of the wasm module `data` (bytes)."""
    names = []
    for section, pos, _end in _sections(data):
        if section == 2:
            count, p = _leb(data, pos)
            for _ in range(count):
                _module, p = _name(data, p)
                field, p = _name(data, p)
                kind = data[p]
                p += 1
                if kind == 0:
                    _type, p = _leb(data, p)
                elif kind == 1:
                    p = _skip_limits(data, p + 1)
                elif kind == 2:
                    p = _skip_limits(data, p)
                else:
                    p += 2
                names.append(field)
    return names


_SYMBOL_TABLE = 8  # the linking section's subsection of symbols
_UNDEFINED, _EXPLICIT_NAME = 0x10, 0x40


def _symbols(data, pos):
    """Names of the defined function, data and global symbols in a symbol table at pos."""
    count, pos = _leb(data, pos)
    names = []
    for _ in range(count):
        kind = data[pos]
        flags, pos = _leb(data, pos + 1)
        if kind == 3:  # a section symbol: its section's index only
            _index, pos = _leb(data, pos)
            continue
        if kind == 1:  # data: a name, then where it lies when defined
            name, pos = _name(data, pos)
            if not flags & _UNDEFINED:
                for _ in range(3):
                    _value, pos = _leb(data, pos)
        else:  # function, global, tag, table: an index, a name when defined or explicit
            _index, pos = _leb(data, pos)
            name = None
            if not flags & _UNDEFINED or flags & _EXPLICIT_NAME:
                name, pos = _name(data, pos)
        if name is not None and not flags & _UNDEFINED:
            names.append(name)
    return names


def defined(data):
    """Names of the symbols the wasm object file `data` (bytes) defines."""
    names = []
    for section, pos, end in _sections(data):
        title, p = _name(data, pos) if section == 0 else ("", pos)
        if title == "linking":
            _version, p = _leb(data, p)
            while p < end:
                kind = data[p]
                length, p = _leb(data, p + 1)
                if kind == _SYMBOL_TABLE:
                    names += _symbols(data, p)
                p += length
    return names
