"""The public names of the int8 kernels that a target may replace (flex_c/src/entry/): each
entry/ file forwards flex.h's function to the reference kernel, `flex__ref_<name>` with the
same parameters, declared in ref/ref.h, unless the target's opt/ folder has a file of the
same name (flex_c/sources.py). Both follow the function's declaration in flex.h."""

from burn.host.codegen.c_api import functions
from burn.host.codegen.text import wrap_call

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


def _head(fn, name, tail):
    return wrap_call("%s %s(" % (fn.returns, name), [p.text for p in fn.params], tail)


def forwarders(header, entry):
    """The lines of entry/<entry>.c's functions."""
    declared = functions(header)
    lines = []
    for name in ENTRIES[entry]:
        fn = declared[name]
        lines += ([""] if lines else []) + _head(fn, name, ") {")
        lines += wrap_call("    return %s(" % ref_name(name), [p.name for p in fn.params], ");")
        lines.append("}")
    return lines


def declarations(header):
    """ref.h's declarations of the reference kernels (those not defined as macros)."""
    declared = functions(header)
    return [line for names in ENTRIES.values() for name in names if name not in MACROS
            for line in _head(declared[name], ref_name(name), ");")]
