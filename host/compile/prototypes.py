"""flex_c's kernel prototypes read from flex.h: each parameter's C type, and whether a pointer
parameter is read-only (`const T *`), which decides whether a buffer outside the arena can
live in flash."""

import re

from burn.host.flex.targets import header_text

_PROTO = re.compile(r"flex_status\s+(flex_\w+)\s*\(([^;{]*?)\)\s*;", re.S)


class Param:
    """One parameter: `ctype` (e.g. "const int8_t *"), `name`, `pointee` (the type pointed to,
    without const, for a pointer; None otherwise), `readonly` (a pointer to const)."""

    def __init__(self, text):
        text = " ".join(text.split())
        m = re.match(r"(.*?)(\w+)(\[\d*\])?$", text)
        self.ctype, self.name = m.group(1).strip(), m.group(2)
        if m.group(3):  # an array parameter is a pointer
            self.ctype += " *"
        stars = self.ctype.count("*")
        base = self.ctype.replace("*", " ").split()
        self.readonly = stars >= 1 and base[0] == "const"
        core = [w for w in base if w != "const"]
        self.pointee = " ".join(core) if stars == 1 else (
            "const %s *const" % " ".join(core) if stars == 2 else None)
        self.pointer_list = stars == 2


_CACHE = {}


def prototypes():
    """{kernel name: [Param]} for every kernel declared in flex.h."""
    if not _CACHE:
        for name, params in _PROTO.findall(header_text()):
            params = params.strip()
            _CACHE[name] = [] if params in ("", "void") else [Param(p) for p in
                                                               params.split(",")]
    return _CACHE
