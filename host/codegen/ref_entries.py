"""The public names of the int8 kernels that a target may replace (flex_c/src/entry/): each
entry/ file forwards flex.h's function to the reference kernel, `flex__ref_<name>` with the
same parameters, declared in ref/ref.h, unless the target's opt/ folder has a file of the
same name (flex_c/sources.py). Both follow the function's declaration in flex.h, through two
macros ref.h defines for each function: FLEX__SIGNATURE_<stem>(name), its declaration under
another name, and FLEX__ARGS_<stem>, its parameters' names as the arguments of a call. Every
definition of such a kernel (the reference one, entry/'s, each target's) opens with the
first, so that its parameter list is written once, in flex.h."""

from burn.host.codegen.c_api import functions
from burn.host.codegen.text import WIDTH, wrap_call

# entry/ file: the flex.h functions it forwards, in its order
ENTRIES = {
    "s8_conv": ("flex_s8_conv2d",),
    "s8_depthwise": ("flex_s8_depthwise_conv2d",),
    "s8_elementwise": ("flex_s8_add",),
    "s8_fully_connected": ("flex_s8_fully_connected",),
    "s8_pool": ("flex_s8_avg_pool2d",),
}
# reference kernels whose name ref.h defines as a macro over a wider function
MACROS = ("flex_s8_add",)


def ref_name(name):
    """The reference kernel's name of public kernel `name`: flex_x -> flex__ref_x."""
    return "flex__ref_" + name[len("flex_"):]


def _stem(name):
    return name[len("flex_"):]


def _macro(head, lines):
    """A #define of `head` whose body is `lines`, each continued with a backslash aligned
    at the project's width."""
    body = [head] + lines
    return [line.ljust(WIDTH - 2) + " \\" for line in body[:-1]] + [body[-1]]


def forwarders(entry):
    """The lines of entry/<entry>.c's functions (their signatures: ref.h's macros)."""
    lines = []
    for name in ENTRIES[entry]:
        lines += ([""] if lines else []) + [
            "FLEX__SIGNATURE_%s(%s) {" % (_stem(name), name),
            "    return %s(FLEX__ARGS_%s);" % (ref_name(name), _stem(name)), "}"]
    return lines


def declarations(header):
    """ref.h's two macros of each replaceable kernel, and the declarations of the reference
    kernels (those not defined as macros)."""
    declared = functions(header)
    lines = []
    for names in ENTRIES.values():
        for name in names:
            fn, stem = declared[name], _stem(name)
            lines += _macro("#define FLEX__SIGNATURE_%s(name)" % stem,
                            wrap_call("    %s name(" % fn.returns,
                                      [p.text for p in fn.params], ")", width=WIDTH - 2))
            lines += _macro("#define FLEX__ARGS_%s" % stem,
                            wrap_call("    ", [p.name for p in fn.params], "",
                                      width=WIDTH - 2, indent=8))
            if name not in MACROS:
                lines.append("FLEX__SIGNATURE_%s(%s);" % (stem, ref_name(name)))
    return lines
