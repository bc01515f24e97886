"""GraphKernels' methods for the kernels of the op table's CALLS (burn.host.codegen.calls):
each takes the kernel's arguments, views its buffers with the element type and count of
their flex_c parameter (burn.host.flex.params) and calls the flex_c function."""

from burn.host.codegen.text import wrap_call

_VIEW = {"i8": "as_i8", "i16": "as_i16", "i32": "as_i32", "f32": "as_f32"}
_INDENT = " " * 8


def count_text(count):
    """A buffer's count as a Python or C product: `rows * depth`."""
    return " * ".join(str(f) for f in count)


def _value(expr):
    sign, name = expr
    return sign + str(name)


def _param(arg):
    if arg.kind == "value":
        return _value(arg.expr)
    if arg.kind == "struct":
        return 'struct("%s", locals())' % arg.struct
    count = count_text(arg.count)
    if arg.kind == "length":
        return count if not arg.optional else "0 if %s is None else %s" % (arg.name, count)
    view = "%s(%s, %s)" % (_VIEW[arg.element], arg.name, count)
    return view if not arg.optional else "None if %s is None else %s" % (arg.name, view)


def _context(binding):
    names = binding.count_args()
    if not names:
        return '""'
    values = names[0] if len(names) == 1 else "(%s)" % ", ".join(names)
    return '"%s" %% %s' % (", ".join("%s %%d" % n for n in names), values)


def method(binding):
    """The lines of one GraphKernels method (indented for the class body)."""
    head = "    def %s(" % binding.kernel
    lines = wrap_call(head, ["self"] + binding.args, "):")
    lines.append('%s"""burn.graph\'s %s on flex_c\'s %s."""' % (_INDENT, binding.kernel,
                                                              binding.function))
    call = wrap_call('%sself._run("%s", [' % (_INDENT, binding.function),
                     [_param(p) for p in binding.params], "],")
    lines += call + [_INDENT + " " * 10 + _context(binding) + ")"]
    return lines


def methods(bindings):
    """The class body's lines: a method per binding, a blank line between them."""
    lines = []
    for b in bindings:
        lines += ([""] if lines else []) + method(b)
    return lines
