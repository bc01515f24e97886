"""GraphKernels' methods for the kernels of the op table's CALLS (burn.host.codegen.calls):
each takes the kernel's arguments, views its buffers with the element type and count of
their flex_c parameter (burn.host.flex.params) and calls the flex_c function."""

import re

from burn.host.codegen.text import wrap_call

_VIEW = {"i8": "as_i8", "i16": "as_i16", "i32": "as_i32", "f32": "as_f32"}
_INDENT = " " * 8
_ARGS = " " * 12


def count_text(count):
    """A buffer's count as a Python or C product: `rows * depth`."""
    return " * ".join(str(f) for f in count)


def _value(expr):
    sign, name = expr
    return sign + str(name)


def _param(arg):
    if arg.kind == "value" and arg.number is not None:
        return ("-" if arg.expr[0] else "") + str(arg.number)
    if arg.kind == "value":
        value = _value(arg.expr)
        return "float(%s)" % value if arg.param.ctype == "float" else value
    if arg.kind == "struct":
        return 'struct("%s", locals())' % arg.struct
    count = count_text(arg.count)
    if arg.kind == "length":
        return count if not arg.optional else "0 if %s is None else %s" % (arg.name, count)
    view = "%s(%s, %s)" % (_VIEW[arg.element], arg.name, count)
    return view if not arg.optional else "None if %s is None else %s" % (arg.name, view)


def _context(binding):
    """The lines of the call's last argument: the sizes, for its error messages."""
    names = binding.count_args()
    text = ", ".join("%s %%d" % n for n in names)
    if binding.hint:
        text += " (%s)" % re.sub(r"\{\w+\}", "%d", binding.hint)
        names = names + re.findall(r"\{(\w+)\}", binding.hint)
    if not names:
        return ['"%s"' % text]
    values = names[0] if len(names) == 1 else "(%s)" % ", ".join(names)
    text = '"%s"' % text
    if len(_ARGS + text + values) + 4 <= 99:
        return [text + " % " + values]
    return [text, "% " + values]


def method(binding):
    """The lines of one GraphKernels method (indented for the class body)."""
    head = "    def %s(" % binding.kernel
    lines = wrap_call(head, ["self"] + binding.args, "):")
    lines.append('%s"""burn.graph\'s %s on flex_c\'s %s."""' % (_INDENT, binding.kernel,
                                                              binding.function))
    lines.append('%sself._run("%s", [' % (_INDENT, binding.function))
    lines += wrap_call(_ARGS, [_param(p) for p in binding.params], "],", indent=len(_ARGS))
    context = _context(binding)
    context[-1] += ")"
    return lines + [_ARGS + line for line in context]


def methods(bindings):
    """The class body's lines: a method per binding, a blank line between them."""
    lines = []
    for b in bindings:
        lines += ([""] if lines else []) + method(b)
    return lines
