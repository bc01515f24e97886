"""The op table's flex_c calls (burn.graph.ops.CALLS) read against flex.h: for each kernel,
what every parameter of its flex_c function receives from the kernel's arguments. The
binding writers (py_bindings, c_bindings) turn one such description into GraphKernels'
method and burnflex's C function."""

import re

from burn.graph.ops import kernel_args, kernel_calls
from burn.host.codegen.c_api import constants, functions
from burn.host.flex.params import STRUCTS

# element type of a buffer parameter -> the buffer's short name (as_i8, BF_S8, ...); a
# `void *` buffer takes the element type of the kernel's name (SUFFIXES)
ELEMENTS = {"int8_t": "i8", "int16_t": "i16", "int32_t": "i32", "float": "f32"}
SUFFIXES = {"_s8": "i8", "_s16": "i16", "_f32": "f32"}


class CallError(ValueError):
    """A CALLS row that does not fit its kernel's arguments or its flex_c declaration."""


class Arg:
    """What one parameter of the flex_c function receives.

    kind: "value" (an argument, minus one, a number or a flex.h constant: `expr`, with the
    constant's value in `number`), "buffer" (argument `name`
    as `count` elements of `element`, `optional` when it may be None, `write` when the
    kernel writes it), "length" (the count of the buffer before it), "struct" (flex.h
    struct `struct`, its fields from the arguments: `fields`, [(field, expr)])."""

    def __init__(self, param, kind, **facts):
        self.param = param
        self.kind = kind
        self.name = self.expr = self.count = self.element = self.struct = self.number = None
        self.optional = self.write = False
        self.fields = ()
        for key, value in facts.items():
            setattr(self, key, value)


class Binding:
    """One kernel's binding: its name, arguments (burn.graph.ops order), flex_c function,
    and an Arg per parameter of that function."""

    def __init__(self, kernel, args, function, params, hint=""):
        self.kernel = kernel
        self.args = args
        self.function = function
        self.params = params
        self.hint = hint

    def buffers(self):
        """{argument name: its buffer Arg}."""
        return {p.name: p for p in self.params if p.kind == "buffer"}

    def count_args(self):
        """The arguments that size a buffer, in argument order."""
        words = set(w for p in self.params if p.kind == "buffer" for w in p.count)
        return [a for a in self.args if a in words]


def _expr(word, args, where, defines=None):
    """(sign, name or number) of a value word: "x", "-x", a number or a flex.h constant."""
    sign = "-" if word.startswith("-") else ""
    name = word.lstrip("-")
    if name.isdigit():
        return sign, int(name)
    if defines is not None and name in defines:
        return sign, name
    if name not in args:
        raise CallError("%s: %r is not an argument of the kernel" % (where, name))
    return sign, name


def _count(text, args, where):
    factors = text.split("*")
    for f in factors:
        if not f.isdigit() and f not in args:
            raise CallError("%s: count %r: %r is not an argument of the kernel"
                            % (where, text, f))
    return [int(f) if f.isdigit() else f for f in factors]


def _struct(param, args, where):
    name = param.pointee
    if name not in STRUCTS:
        raise CallError("%s: parameter %s points at %s, which STRUCTS does not describe"
                        % (where, param.name, name))
    fields = []
    for spec in STRUCTS[name].split():
        field, _, arg = spec.partition("=")
        fields.append((field, _expr(arg or field, args, where)))
    return Arg(param, "struct", struct=name, fields=fields)


def _element(param, kernel):
    if param.pointee == "void":
        return next((e for suffix, e in SUFFIXES.items() if kernel.endswith(suffix)), None)
    return ELEMENTS.get(param.pointee)


def _bind(kernel, function, words, hint, declared, defines):
    where = "CALLS %s" % kernel
    if function not in declared:
        raise CallError("%s: flex.h declares no %s" % (where, function))
    args = kernel_args(kernel)[1]
    words = words.split()
    params, out = list(declared[function].params), []
    while params:
        param = params.pop(0)
        if not words:
            raise CallError("%s: no word for parameter %s of %s" % (where, param.name, function))
        word = words.pop(0)
        buffer = re.match(r"^(\w+)(\?)?\[([\w*]+)\]$", word)
        if word == "&":
            out.append(_struct(param, args, where))
        elif buffer:
            element = _element(param, kernel)
            if not param.is_pointer or element is None:
                raise CallError("%s: %s is not a buffer parameter of a known element type"
                                % (where, param.name))
            name = buffer.group(1)
            if name not in args:
                raise CallError("%s: %r is not an argument of the kernel" % (where, name))
            arg = Arg(param, "buffer", name=name, optional=bool(buffer.group(2)),
                      count=_count(buffer.group(3), args, where), element=element,
                      write="const" not in param.ctype)
            out.append(arg)
            if params and params[0].ctype == "size_t" and params[0].name.endswith("_len"):
                out.append(Arg(params.pop(0), "length", name=name, count=arg.count,
                               optional=arg.optional))
        elif param.is_pointer:
            raise CallError("%s: pointer parameter %s needs x[count] or &" % (where, param.name))
        else:
            expr = _expr(word, args, where, defines)
            out.append(Arg(param, "value", expr=expr, number=defines.get(expr[1])))
    if words:
        raise CallError("%s: %d words more than %s's parameters" % (where, len(words), function))
    used = set(p.name for p in out if p.kind == "buffer")
    used |= set(p.expr[1] for p in out if p.kind == "value" and p.number is None)
    used |= set(e[1] for p in out if p.kind == "struct" for _, e in p.fields)
    used |= set(w for p in out if p.kind == "buffer" for w in p.count)
    unused = [a for a in args if a not in used]
    if unused:
        raise CallError("%s: the kernel's arguments %s reach no parameter" % (where, unused))
    for name in re.findall(r"\{(\w+)\}", hint):
        if name not in args:
            raise CallError("%s: hint names %r, not an argument of the kernel" % (where, name))
    return Binding(kernel, args, function, out, hint)


def bindings(header):
    """[Binding] of every CALLS kernel, in table order, read against flex.h's text."""
    declared, defines = functions(header), constants(header)
    return [_bind(k, f, words, hint, declared, defines)
            for k, f, words, hint in kernel_calls()]
