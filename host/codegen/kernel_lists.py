"""The kernel lists of the MicroPython module `burnflex`, written from the op table: which
kernels a build binds (all but PYTHON_ONLY's), which need an FPU (`needs_fpu`) and which
only a firmware made for them keeps (`optional_kernels`: the optional ops' and the int16
ones). burnflex.c holds the default lists, burnflex_extra.h the optional ones: a native
module's build takes its qstrs from the text of its .c files, so the optional names must
not be spelt in burnflex.c (the armv6m module, which leaves them out, has no bytes for
them)."""

from burn.graph.ops import (
    OPS,
    PLAN_STEPS,
    PYTHON_ONLY,
    kernel_args,
    kernels,
    needs_fpu,
    optional_kernels,
)
from burn.host.codegen.text import wrap_call

_WIDTH = 79  # the continuation backslash goes in column 80


def bound(fpu, optional):
    """The kernels burnflex binds, in table order, of the FPU-needing (`fpu`) or the other
    ones, among the optional (`optional`) or the default ones."""
    extra = set(optional_kernels())
    return [k for k in kernels() if k not in PYTHON_ONLY and needs_fpu(k) == fpu
            and (k in extra) == optional]


def _macro(name, entries, tail=None):
    lines = ["#define %s(X)" % name] + ["    X(MP_QSTR_%s, %s)" % (k, k) for k in entries]
    if tail:
        lines.append("    %s(X)" % tail)
    return [line.ljust(_WIDTH) + "\\" for line in lines[:-1]] + [lines[-1]]


def default_int_list():
    """burnflex.c: the default kernels of every build, then the optional ones' list."""
    return _macro("BF_INT8_KERNELS", bound(False, False), "BF_EXTRA_INT8_KERNELS")


def default_float_list():
    """burnflex.c: the default kernels of builds with an FPU, then the optional ones'."""
    return _macro("BF_FLOAT_KERNELS", bound(True, False), "BF_EXTRA_FLOAT_KERNELS")


def optional_lists():
    """burnflex_extra.h: the optional kernels of every build, then those that need an FPU."""
    return (_macro("BF_EXTRA_INT8_KERNELS", bound(False, True)) + [""]
            + _macro("BF_EXTRA_FLOAT_KERNELS", bound(True, True)))


def docs_table():
    """docs/micropython-module.md: every kernel burnflex binds, by where a build has it."""
    cells = [", ".join("`%s`" % k for k in bound(fpu, optional))
             for optional in (False, True) for fpu in (False, True)]
    return ["| | every build | builds with an FPU |", "| --- | --- | --- |",
            "| default firmware | %s | %s |" % tuple(cells[:2]),
            "| optional (a firmware built with `--ops-from` or `--all-ops`) | %s | %s |"
            % tuple(cells[2:])]


def wide_modules():
    """core/graph/s16_prepare.py: the burn.graph module whose `prepare` checks and binds an
    op kind's int16 or int32 kernels (the module of its `_s16` or `_s32` kernels in
    KERNELS), by kind and type."""
    lines = ["MODULES = {"]
    for kind, _rule, _tflite, names in OPS:
        found = []
        for dtype, suffix in (("int16", "_s16"), ("int32", "_s32")):
            modules = {kernel_args(k)[0] for k in names.split() if k.endswith(suffix)}
            if len(modules) > 1:
                raise ValueError("the %s kernels of kind %r live in several modules: %s"
                                 % (dtype, kind, ", ".join(sorted(modules))))
            found += ['"%s": "%s"' % (dtype, m) for m in modules]
        if found:
            lines.append('    "%s": {%s},' % (kind, ", ".join(found)))
    return lines + ["}"]


def wide_requantize():
    """micropython/burnflex_extra_s16.c: a function object per requantize kernel between
    int8, int16 and int32 (requantize_s8_s16 takes int8 in, int16 out; requantize_s16 is
    int16 both ways), each forwarding to the file's `requantize` with the two widths. The
    uint8 ones are Python only (PYTHON_ONLY)."""
    lines = []
    for k in optional_kernels():
        widths = k.split("_s")[1:]
        if not k.startswith("requantize_s") or set(widths) == {"8"} or k in PYTHON_ONLY:
            continue
        bits = (widths * 2)[:2]
        count = len(kernel_args(k)[1])
        lines += ["BF_FORWARD(%s, requantize, %s, %s)" % (k, bits[0], bits[1]),
                  "MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_%s_obj, %d, %d, %s);"
                  % (k, count, count, k)]
    return lines


def plan_kernels():
    """core/bst_ops.py: the kernels that have a plan step (PLAN_STEPS), in table order."""
    names = [k for _function, kernels_, _data in PLAN_STEPS for k in kernels_.split()]
    return wrap_call("PLAN_KERNELS = (", ['"%s"' % k for k in names], ")", indent=4)
