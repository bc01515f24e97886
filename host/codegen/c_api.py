"""flex.h read as data: the declarations of its functions and the fields of its parameter
structs, from the header's own text (flex_c/sources.py `header_text`)."""

import re

from burn.host.flex import targets


class Param:
    """One parameter of a C function: its type as written (`const flex_dims4 *`), name and
    array suffix (`[5]`, or "")."""

    def __init__(self, ctype, name, suffix=""):
        self.ctype = ctype
        self.name = name
        self.suffix = suffix

    @property
    def is_pointer(self):
        """Whether the parameter is a pointer."""
        return self.ctype.endswith("*")

    @property
    def text(self):
        """The parameter as declared: `const flex_dims4 *in_dims`, `int32_t groups`."""
        return self.ctype + ("" if self.is_pointer else " ") + self.name + self.suffix

    @property
    def pointee(self):
        """The type a pointer parameter points at, without `const` (`flex_dims4`)."""
        return self.ctype.rstrip("*").replace("const", "").strip()


class Function:
    """A function declared in flex.h: return type, name, [Param]."""

    def __init__(self, returns, name, params):
        self.returns = returns
        self.name = name
        self.params = params



def _code(text):
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.S)


def _param(text):
    text = " ".join(text.split())
    found = re.match(r"(.*?[\s*])(\w+)(\[\w*\])?$", text)
    if not found:
        raise ValueError("flex.h: cannot read the parameter %r" % text)
    return Param(re.sub(r"\s*\*\s*", " *", found.group(1).strip()), found.group(2),
                 found.group(3) or "")


def functions(text=None):
    """{name: Function} of every function flex.h declares."""
    code = _code(text if text is not None else targets.header_text())
    out = {}
    for returns, name, params in re.findall(
            r"^\s*((?:const\s+)?\w+\s*\**)\s*(flex_\w+)\s*\(([^;{]*?)\)\s*;", code, flags=re.M):
        plist = [] if params.strip() in ("", "void") else [_param(p) for p in params.split(",")]
        out[name] = Function(" ".join(returns.split()), name, plist)
    return out


def struct_fields(text=None):
    """{struct name: [field names]} of flex.h's typedef structs of int32_t fields only."""
    code = _code(text if text is not None else targets.header_text())
    out = {}
    for body, name in re.findall(r"typedef struct\s*\{(.*?)\}\s*(\w+);", code, flags=re.S):
        decls = [d.strip() for d in body.split(";") if d.strip()]
        if all(d.startswith("int32_t ") for d in decls):
            out[name] = [f.strip() for d in decls for f in d[len("int32_t "):].split(",")]
    return out


def constants(text=None):
    """{name: int} of flex.h's integer #defines (`#define FLEX_UNARY_TANH 5`)."""
    code = _code(text if text is not None else targets.header_text())
    return {name: int(value, 0) for name, value in
            re.findall(r"^\s*#define\s+(FLEX_\w+)\s+\(?(-?(?:0x[0-9a-fA-F]+|\d+))\)?\s*$",
                       code, flags=re.M)}
