"""The glue that follows the op table (core/graph/ops.py) and flex.h, written by a
generator instead of by hand: `python -m burn.host.codegen` rewrites each generated region
(burn.host.codegen.regions) of the checkout's files, `--check` only says which would change
and exits 1 then (CI runs it through tests/host/test_codegen.py).

    from burn.host.codegen import generate
    changed = generate(root)          # {relative path: new text} of the files that differ
"""

from pathlib import Path

from burn.host.codegen import kernel_lists, plan_glue, regions


def _plan(make):
    def lines(header):
        return make(plan_glue.steps(header))
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
)


def _header(root):
    """flex.h with its parts, read from the checkout `root` (the sources.py rule)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("flex_c_sources",
                                                  Path(root, "flex_c", "sources.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.header_text()


def generate(root):
    """{path relative to `root`: new text} of every file whose generated regions differ from
    what the op table and flex.h give now."""
    header = _header(root)
    texts = {}
    for path, name, make in REGIONS:
        old = texts.get(path)
        if old is None:
            old = texts[path] = Path(root, path).read_text()
        texts[path] = regions.replace(old, path, name, make(header))
    return {p: t for p, t in texts.items() if t != Path(root, p).read_text()}
