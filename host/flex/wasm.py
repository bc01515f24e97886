"""Names a WebAssembly object file imports (its undefined symbols), for the libc check."""


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


def imports(data):
    """Field names of every import of the wasm module `data` (bytes)."""
    if data[:4] != b"\0asm":
        raise ValueError("not a WebAssembly module")
    pos, names = 8, []
    while pos < len(data):
        section = data[pos]
        size, pos = _leb(data, pos + 1)
        end = pos + size
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
        pos = end
    return names
