"""The glue that follows the op table (core/graph/ops.py) and flex.h, written by a
generator instead of by hand: `python -m burn.host.codegen` rewrites each generated region
(burn.host.codegen.regions) of the checkout's files, `--check` only says which would change
and exits 1 then (CI runs it through tests/host/test_codegen.py).

    from burn.host.codegen import generate
    changed = generate(root)          # {relative path: new text} of the files that differ
"""

from pathlib import Path

from burn.host.codegen import (
    c_bindings,
    calls,
    kernel_lists,
    plan_glue,
    py_bindings,
    ref_entries,
    regions,
)
from burn.host.flex.targets import header_text


def _plan(make):
    def lines(header):
        return make(plan_glue.steps(header))
    return lines


def _calls(make):
    def lines(header):
        return make(calls.bindings(header))
    return lines


def _entry(name):
    def lines(_header):
        return ref_entries.forwarders(name)
    return lines


def _table(make):
    def lines(_header):
        return make()
    return lines


# (file, region, lines of the region from flex.h's text)
REGIONS = (
    ("flex_c/include/flex/plan.h", "op-codes", _plan(plan_glue.op_codes)),
    ("flex_c/src/common/plan.c", "step-sizes", _plan(plan_glue.step_sizes)),
    ("flex_c/src/common/plan.c", "step-calls", _plan(plan_glue.step_calls)),
    ("micropython/burnflex.h", "renames", _plan(plan_glue.renames)),
    ("micropython/burnflex_plan.c", "recorders", _plan(plan_glue.recorders)),
    ("micropython/burnflex.c", "int8-kernels", _table(kernel_lists.default_int_list)),
    ("micropython/burnflex.c", "float-kernels", _table(kernel_lists.default_float_list)),
    ("micropython/burnflex_extra.h", "optional-kernels", _table(kernel_lists.optional_lists)),
    ("docs/micropython-module.md", "kernels", _table(kernel_lists.docs_table)),
    ("core/graph/s16_prepare.py", "wide-modules", _table(kernel_lists.wide_modules)),
    ("core/bst_ops.py", "plan-kernels", _table(kernel_lists.plan_kernels)),
    ("host/flex/kernels_generated.py", "bindings", _calls(py_bindings.methods)),
    ("micropython/burnflex_extra_generated.c", "bindings",
     _calls(c_bindings.optional_functions)),
    ("micropython/burnflex_extra_s16.c", "requantize", _table(kernel_lists.wide_requantize)),
    ("micropython/burnflex_f32.c", "bindings", _calls(c_bindings.float_functions)),
    ("flex_c/src/ref/ref.h", "reference-kernels", ref_entries.declarations),
) + tuple(("flex_c/src/entry/%s.c" % name, "forwarders", _entry(name))
          for name in ref_entries.ENTRIES)


def generate(root):
    """{path relative to `root`: new text} of every file whose generated regions differ from
    what the op table and flex.h (the checkout's) give now."""
    header = header_text(str(Path(root, "flex_c")))
    old = {path: Path(root, path).read_text() for path in dict.fromkeys(r[0] for r in REGIONS)}
    new = dict(old)
    for path, name, make in REGIONS:
        new[path] = regions.replace(new[path], path, name, make(header))
    return {p: t for p, t in new.items() if t != old[p]}
