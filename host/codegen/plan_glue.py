"""The glue of flex_c's plans, written from the op table's PLAN_STEPS and flex.h: the
FLEX_OP codes (flex/plan.h), the step sizes and step calls of flex_plan_run (plan.c), and
burnflex's recorders with the renames that route the bindings' kernel calls to them
(burnflex_plan.c, burnflex.h).

A step holds its kernel's parameters in order: an int32_t or size_t is one word, a pointer
to a parameter struct of int32_t fields is those fields as words, a data pointer is an
entry of the pointer table. Two kinds are special: the op table names parameters that point
at data on the binding's stack ("pads=8"), which the recorder copies into the plan's data
area (a pointer-table entry), and concat's `const void *const *` inputs, one word that
indexes the first of n_inputs consecutive entries of the table (the word before gives n)."""

from burn.graph.ops import PLAN_STEPS, needs_fpu
from burn.host.codegen import c_api
from burn.host.codegen.text import wrap_call

LIST_OF_BUFFERS = "const void *const *"


class Slot:
    """How one parameter is held in a step: kind "w" (int32_t), "n" (size_t), "f" (a float,
    its bits), "b" (a struct
    of `count` words), "p" (a pointer-table entry), "d" (data of `count` words, copied into
    the plan, reached through a pointer-table entry) or "c" (a list of buffers); `at` is its
    first word, or its pointer-table index for "p" and "d"."""

    def __init__(self, param, kind, count, at):
        self.param = param
        self.kind = kind
        self.count = count
        self.at = at


class Step:
    """One plan step: its flex_c Function, FLEX_OP code name and number, the kernels that
    keep it in a build, its Slots, and its word and pointer counts."""

    def __init__(self, function, code, kernels, data, structs):
        self.function = function
        self.code = code
        self.name = "FLEX_OP_" + function.name[len("flex_"):].upper()
        self.kernels = kernels.split()
        self.slots = []
        self.words = self.ptrs = 0
        for param in function.params:
            kind, count = _kind(function.name, param, data, structs)
            at = self.ptrs if kind in "pd" else self.words
            self.slots.append(Slot(param, kind, count, at))
            if kind in "pd":
                self.ptrs += 1
            else:
                self.words += count


def _kind(fname, param, data, structs):
    if param.name in data:
        return "d", data[param.name]
    if param.ctype == LIST_OF_BUFFERS:
        return "c", 1
    if param.is_pointer and param.pointee in structs:
        return "b", len(structs[param.pointee])
    if param.is_pointer:
        return "p", 0
    if param.ctype in ("int32_t", "size_t", "float"):
        return {"int32_t": "w", "size_t": "n", "float": "f"}[param.ctype], 1
    raise ValueError("%s: a plan step cannot hold parameter %s of type %s"
                     % (fname, param.name, param.ctype))


def steps(header=None):
    """[Step] of the op table's PLAN_STEPS, numbered from 1, read against flex.h."""
    functions = c_api.functions(header)
    structs = c_api.struct_fields(header)
    out = []
    for code, (fname, kernels, data) in enumerate(PLAN_STEPS, 1):
        if fname not in functions:
            raise ValueError("op table: plan step %s is not declared in flex.h" % fname)
        counts = dict((k, int(v)) for k, v in (d.split("=") for d in data.split()))
        out.append(Step(functions[fname], code, kernels, counts, structs))
    return out


def op_codes(all_steps):
    """flex/plan.h: the FLEX_OP codes, then the byte copy's and the count."""
    last = len(all_steps) + 1
    lines = ["#define %s %d" % (s.name, s.code) for s in all_steps]
    return lines + ["#define FLEX_OP_COPY %d /* bytes; pointers src, dst (they may overlap) */"
                    % last, "#define FLEX_OP_COUNT %d" % (last + 1)]


def step_sizes(all_steps):
    """plan.c: the word and pointer counts of each op's step (FLEX_OP_COPY: 1 and 2)."""
    def table(name, values):
        return wrap_call("static const uint8_t %s[FLEX_OP_COUNT] = {" % name,
                         [str(v) for v in values], "};")
    return (table("step_words", [0] + [s.words for s in all_steps] + [1])
            + table("step_ptrs", [0] + [s.ptrs for s in all_steps] + [2]))


def _step_argument(slot):
    if slot.kind == "w":
        return "w[%d]" % slot.at
    if slot.kind == "n":
        return "N(%d)" % slot.at
    if slot.kind == "f":
        return "F(%d)" % slot.at
    if slot.kind == "b":
        return "(const %s *)(w + %d)" % (slot.param.pointee, slot.at)
    if slot.kind == "c":
        return "(%s)(buffers + w[%d])" % (LIST_OF_BUFFERS.strip(), slot.at)
    return "p[%d]" % slot.at


def step_calls(all_steps):
    """plan.c: run_step's cases, each kept by a build that keeps one of its kernels; a step
    of float kernels only by a build with the float kernels (FLOAT_STEPS)."""
    lines = []
    for s in all_steps:
        kept = " || ".join("HAS(%s)" % k for k in s.kernels)
        if _float_only(s):
            kept = "FLOAT_STEPS && (%s)" % kept
        lines.append("#if " + kept)
        lines.append("    case %s:" % s.name)
        for slot in s.slots:
            if slot.kind == "c":  # n_inputs entries from the word's index, within the table
                n, first = "w[%d]" % (slot.at - 1), "w[%d]" % slot.at
                lines += ["        if (%s < 0 || %s < 0 || (size_t)%s > n_buffers ||"
                          % (n, first, first),
                          "            (size_t)%s > n_buffers - (size_t)%s)" % (n, first),
                          "            return FLEX_E_PARAM;"]
        lines += wrap_call("        return %s(" % s.function.name,
                           [_step_argument(slot) for slot in s.slots], ");")
        lines.append("#endif")
    return lines


def _format(slot):
    if slot.kind in "bd":
        return slot.kind + "0123456789abcdefghijklmnopqrstuvwxyz"[slot.count]
    return slot.kind


# how a recorder passes a parameter to call(): a pointer as `const void *`, a float as the
# double a variadic call takes (explicitly: the ports warn of the promotion)
_RECORDED = {"p": "P(%s)", "b": "P(%s)", "d": "P(%s)", "f": "(double)%s"}


def _float_only(step):
    return all(needs_fpu(k) for k in step.kernels)


def recorders(all_steps):
    """burnflex_plan.c: bf_<kernel>, one per step, with the kernel's own parameters; each
    hands its arguments to call() with their layout as a format string. Those of float
    kernels only in builds that have them (BURNFLEX_FLOAT)."""
    lines = []
    for s in all_steps:
        name = "bf_" + s.function.name[len("flex_"):]
        body = wrap_call("%s %s(" % (s.function.returns, name),
                         [p.text for p in s.function.params], ") {")
        args = [s.name, '"%s"' % "".join(_format(slot) for slot in s.slots)]
        args += [_RECORDED.get(slot.kind, "%s") % slot.param.name for slot in s.slots]
        body += wrap_call("    return call(", args, ");") + ["}"]
        if _float_only(s):
            body = ["#if BURNFLEX_FLOAT"] + body + ["#endif"]
        lines += body + [""]
    return lines[:-1]


def renames(all_steps):
    """burnflex.h: each plan step's kernel renamed to its recorder, for the bindings."""
    return ["#define %s bf_%s" % (s.function.name, s.function.name[len("flex_"):])
            for s in all_steps]
