"""Every list of ops and every kernel argument order agrees with burn.graph.ops.

The table is the one description of the ops (docs/adding-an-op.md): the prepare step
(burn.bst_ops), the kernels (plain and viper twins), the burnflex C module, the host flex
binding and its flex.h structs, the TFLite importer, the arena planner and the docs table
in burn/graph/__init__.py must all say the same thing.
"""

import ast
import importlib
import inspect
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import burn.graph
from burn import bst_ops
from burn.bst import BstFile
from burn.graph import control as control_module
from burn.graph import in_place
from burn.graph.ops import (
    ANY_SHAPE,
    CONTROL,
    FUSES_ACTIVATION,
    GROUPS,
    KERNELS,
    OPS,
    OPTIONAL,
    PYTHON_ONLY,
    WEIGHTED,
    kernel_args,
    kernels,
    kinds,
    needs_fpu,
    optional_kernels,
)
from burn.host import arena_plan
from burn.host.bst_writer import GraphOp, GraphTensor
from burn.host.flex import graph_kernels, runtime, targets
from burn.host.flex.params import STRUCTS
from burn.host.importers.tflite import registry

ROOT = Path(__file__).resolve().parents[2]
KERNEL_NAMES = [n for _m, names, _a in KERNELS for n in names.split()]
# trailing arguments of the Python twins that the C kernels do without (burn.graph)
PY_EXTRAS = ("mult_off", "table")
# GraphKernels methods that take *args and hand them to _pool after the flex.h name and the
# element view: the geometry by name, then these activation arguments as they are
POOLS = {"avg_pool_s8": ["act_min", "act_max"], "max_pool_s8": ["act_min", "act_max"],
         "avg_pool_f32": ["act"], "max_pool_f32": ["act"],
         "avg_pool_s16": ["act_min", "act_max"], "max_pool_s16": ["act_min", "act_max"]}
# (kind, parameter) whose kernel argument of the same name is computed from it: arg's
# kernel `op` is the parameter plus 2 for an int32 output (burn.graph.arg)
DERIVED = {("arg", "op")}


def test_no_core_module_imports_the_table():
    """The firmware leaves the table out (flash): a core module that imported it would
    fail on the board."""
    from burn.host.firmware import inputs

    assert "graph/ops.py" in inputs.NOT_FROZEN and "graph/ops.py" not in inputs.core_files()
    for path in (ROOT / "core").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [(node.module or "") + "." + a.name for a in node.names]
            else:
                continue
            assert not [n for n in names if n.endswith("graph.ops") or n in (".ops", "ops")
                        or n.startswith(("burn.graph.ops.", "ops."))], path


def test_every_list_of_ops_is_the_tables():
    assert len(set(kinds())) == len(OPS)
    assert set(bst_ops.PREPARE) | set(OPTIONAL) == set(kinds())
    assert {op[1] for op in OPS} <= {"e", "w", "r", ""}
    assert set(in_place.ELEMENTWISE) == set(kinds("e"))
    assert set(in_place.WINDOWED) == set(kinds("w"))
    # the kinds' TFLite ops, and the control ops' (burn.graph.control: no kernels)
    importers = {n for op in OPS for n in op[2].split()}
    control = {n for _kind, names in CONTROL for n in names.split()}
    assert not importers & control and not {k for k, _n in CONTROL} & set(kinds())
    assert set(registry.CONVERTERS) | set(registry.FOLDED) == importers | control
    assert {k for k, _n in CONTROL} == set(bst_ops._CONTROL) == set(control_module.KINDS)
    assert not set(registry.CONVERTERS) & set(registry.FOLDED)
    named = {n for op in OPS for n in op[3].split()}
    assert named == set(KERNEL_NAMES) and len(KERNEL_NAMES) == len(set(KERNEL_NAMES))
    assert set(runtime._FLEX_KERNELS) == set(KERNEL_NAMES) - set(PYTHON_ONLY)
    for word in (w for _m, _n, args in KERNELS for w in args.split()):
        assert word[0] != "*" or word[1:] in GROUPS
    for kind_list in (WEIGHTED, FUSES_ACTIVATION, ANY_SHAPE):  # the exporter's op properties
        assert set(kind_list) <= set(kinds()) and len(set(kind_list)) == len(kind_list)


def test_optional_ops_stay_out_of_the_default_firmware():
    """An optional op costs a default firmware no flash: its prepare step and kernels live
    in modules that only it uses, which the default selection leaves unfrozen, and its C
    code and bindings in files that the small builds leave out. The int16 kernels (and the
    int16 ops' prepare step) are left out the same way."""
    from burn.host.firmware import inputs, ops_select

    assert set(OPTIONAL) <= set(kinds()) and len(set(OPTIONAL)) == len(OPTIONAL)
    for kind in kinds():  # an optional op's prepare step is its own module's, by its name
        assert (kind in bst_ops.PREPARE) == (kind not in OPTIONAL), kind
        if kind in OPTIONAL:
            assert callable(importlib.import_module("burn.graph." + kind).prepare), kind
    default = ops_select.default_kernels()
    assert not ops_select.lists_kernels(default) and not ops_select.lists_kernels(None)
    assert ops_select.lists_kernels(("conv_s8",))
    optional = set(optional_kernels())
    assert set(kernels(OPTIONAL)) | {k for k in KERNEL_NAMES
                                     if "_s16" in k or "_s32" in k or "_u8" in k} == optional
    if not optional:
        assert default is None
        return
    assert set(default) == set(KERNEL_NAMES) - optional
    frozen = set(ops_select.kept_core_files(ROOT / "core", inputs.core_files(), default))
    for kind in OPTIONAL:
        modules = {kernel_args(k)[0] for k in kernels([kind])} | {kind}
        assert not {"graph/%s.py" % m for m in modules} & frozen, kind
    s16 = {"graph/%s.py" % kernel_args(k)[0] for k in optional if "_s16" in k}
    assert s16 and not (s16 | {"graph/s16_prepare.py", "graph/s16_arith.py"}) & frozen
    extra = "".join(p.read_text() for p in (ROOT / "micropython").glob("burnflex_extra_*.c"))
    plain = "".join(p.read_text() for p in (ROOT / "micropython").glob("burnflex_*.c")
                    if not p.name.startswith("burnflex_extra_"))
    for name in optional & set(runtime._FLEX_KERNELS):
        assert "bf_%s_obj" % name in extra and "bf_%s_obj" % name not in plain, name


def test_int16_kernels_are_chosen_by_dtype_and_kept_with_their_prepare_step():
    """burn.bst_ops' rule as the firmware selection applies it: an int16 op binds its _s16
    kernel (_s8_s16 / _s16_s8 between int8 and int16), a copy the generic kernel; a
    firmware made for an int16 model freezes the int16 prepare step with the kernels."""
    from burn.host.firmware import inputs, ops_select

    pick = ops_select.step_kernel
    assert pick("conv2d", "int16") == "conv_s16" and pick("conv2d", "int8") == "conv_s8"
    assert pick("quantize", "float32", "int16") == "quantize_s16"
    assert pick("quantize", "float32", "int8") == "quantize_s8"
    assert pick("requantize", "int8", "int16") == "requantize_s8_s16"
    assert pick("requantize", "int16", "int8") == "requantize_s16_s8"
    assert pick("requantize", "int8", "int8") == "requantize_s8"
    assert pick("copy", "int16") == "copy" and pick("dequantize", "int16") == "dequantize_s16"
    # int32 data, and comparisons, whose output is int8 0/1 whatever their operands
    assert pick("requantize", "int8", "int32") == "requantize_s8_s32"
    assert pick("add", "int32") == "add_s32" and pick("compare", "int32", "int8") == "compare_s32"
    assert pick("compare", "float32", "int8") == "compare_f32"
    assert pick("compare", "int8", "int8") == "compare_s8"
    # a select's first input is its condition: the output's type picks the kernel
    assert [pick("select", "int8", t) for t in ("int8", "int16", "float32")] == [
        "select_s8", "select_s16", "select_f32"]
    kept = ops_select.kept_core_files(ROOT / "core", inputs.core_files(), ["conv_s16"])
    assert {"graph/s16_prepare.py", "graph/s16_conv.py", "graph/s16_arith.py"} <= set(kept)
    # a cast is named by both its types; one from or to int16 or int32 is prepared by way
    # of s16_prepare, one of float32 to int8 by its own module; from float32 it needs an FPU
    casts = {("int32", "int8"): "cast_s32_s8", ("int16", "int8"): "cast_s16_s8",
             ("float32", "int8"): "cast_f32_s8", ("float32", "int32"): "cast_f32_s32",
             ("int32", "float32"): "cast_s32_f32"}
    assert {pair: pick("cast", *pair) for pair in casts} == casts
    assert [needs_fpu(k) for k in casts.values()] == [False, False, True, True, True]
    assert set(casts.values()) <= set(optional_kernels())
    for name, wide in (("cast_s32_s8", True), ("cast_f32_s8", False)):
        kept = ops_select.kept_core_files(ROOT / "core", inputs.core_files(), [name])
        assert "graph/cast.py" in kept and ("graph/s16_prepare.py" in kept) == wide


def test_a_kernel_module_left_out_of_the_firmware_fails_its_op_clearly(monkeypatch):
    step = bst_ops.Step(3, "conv2d", [0], [1], {}, {})
    monkeypatch.delitem(bst_ops.PREPARE, "conv2d")  # as an optional op left out
    with pytest.raises(ValueError, match=r"op 3 \(conv2d\): unknown op, or not in this "
                       r"firmware \(burn firmware build --ops-from\)"):
        bst_ops.prepare(step, SimpleNamespace(tensors=[((1,), "int8")] * 2))
    for kind in ("ops", "fixedpoint", "__init__", "", ".", "s16_prepare", "a.b"):
        hostile = bst_ops.Step(0, kind, [0], [1], {}, {})  # a module that is no op's
        with pytest.raises(ValueError, match="op 0 "):
            bst_ops.prepare(hostile, SimpleNamespace(tensors=[((1,), "int8")] * 2))


@pytest.mark.parametrize("kind,rule", [op[:2] for op in OPS])
def test_arena_planner_overlaps_the_tables_in_place_ops(kind, rule):
    """An op overlaps its dying input in the arena exactly when the table gives it an
    in-place rule: an input and output of one shape and dtype, with every parameter a
    windowed, row-by-row or elementwise rule reads."""
    tensors = [GraphTensor("x", (1, 4, 4, 2), "int8", 0.1, 0),
               GraphTensor("y", (1, 4, 4, 2), "int8", 0.1, 0)]
    params = {"stride_h": 1, "stride_w": 1, "pad_top": 0, "pad_left": 0, "outer": 16,
              "reduce": 1, "inner": 2}
    op = GraphOp(kind, [0], [1], consts={"w": np.zeros((32, 32), np.int8)}, params=params)
    delta = arena_plan.overlap_delta(op, 0, tensors)
    assert (delta is None) == (rule == "")
    if rule == "e":
        assert delta == 0


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_python_kernels_take_the_tables_arguments(name):
    module, args = kernel_args(name)
    mod = importlib.import_module("burn.graph." + module)
    plain = getattr(mod, name + "_plain", None) or getattr(mod, name)
    params = list(inspect.signature(plain).parameters.values())
    assert [p.name for p in params[:len(args)]] == args
    assert all(p.name in PY_EXTRAS and p.default is None for p in params[len(args):])
    # the viper twins run on MicroPython only: read their signatures from the source of
    # burn.graph's twin modules (`<module>_viper.py`)
    found = [node for path in sorted(Path(mod.__file__).parent.glob("*_viper.py"))
             for node in ast.walk(ast.parse(path.read_text()))
             if isinstance(node, ast.FunctionDef) and node.name == name + "_fast"]
    for node in found:
        names = [a.arg for a in node.args.args]
        assert names[:len(args)] == args and set(names[len(args):]) <= set(PY_EXTRAS)
    # every kernel with a twin has it in a twin module (logistic's and tanh's are made by
    # s8_lookup.table_twin)
    assert found or not hasattr(mod, name + "_fast") or module in ("s8_logistic", "s8_tanh"), \
        name


@pytest.mark.parametrize("name", sorted(runtime._FLEX_KERNELS))
def test_flex_binding_takes_the_tables_arguments(name):
    method, count = runtime._FLEX_KERNELS[name]
    args = kernel_args(name)[1]
    assert count == len(args)
    if method in POOLS:
        params = inspect.signature(graph_kernels.GraphKernels._pool).parameters.values()
        # after self, the flex_c name and the element view
        names = [p.name for p in params if p.kind != p.VAR_POSITIONAL][3:] + POOLS[method]
    else:
        names = list(inspect.signature(getattr(graph_kernels.GraphKernels, method)).parameters)[1:]
    assert names == args


def test_board_kernel_cases_follow_the_table():
    """tests/micropython's cases (burnflex against the Python kernels on MicroPython) name
    each kernel's module as the table does and pass the table's argument count."""
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "micropython"))
    try:
        import kernel_cases
    finally:
        sys.path.pop(0)
    rng = np.random.default_rng(0)
    for name, (module, _fn, make) in kernel_cases.KERNELS.items():
        assert kernel_args(name)[0] == module, name
        assert len(make(rng)) == len(kernel_args(name)[1]), name


def _flex_h_structs():
    text = targets.header_text()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    structs = {}
    for body, name in re.findall(r"typedef struct\s*\{(.*?)\}\s*(\w+);", text, flags=re.S):
        fields = []
        for decl in body.split(";"):
            decl = decl.strip()
            if decl:
                fields += [f.strip() for f in decl.split(None, 1)[1].split(",")]
        structs[name] = fields
    return structs


def test_flex_structs_follow_flex_h():
    structs = _flex_h_structs()
    arg_names = {a for name in KERNEL_NAMES for a in kernel_args(name)[1]}
    computed = {"pad_bottom", "pad_right", "h", "w", "c"}  # made by the binding
    assert set(STRUCTS) <= set(structs)
    for name, spec in STRUCTS.items():
        fields = [s.split("=")[0] for s in spec.split()]
        assert fields == structs[name], name
        for s in spec.split():
            assert s.split("=")[-1].lstrip("-") in arg_names | computed, (name, s)


def test_burnflex_module_takes_the_tables_argument_counts():
    found = {}
    for path in (ROOT / "micropython").glob("burnflex*.c"):
        for name, lo, hi in re.findall(
                r"MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN\(bf_(\w+)_obj,\s*(\d+),\s*(\d+)",
                path.read_text()):
            found[name] = (int(lo), int(hi))
    for name in runtime._FLEX_KERNELS:
        count = len(kernel_args(name)[1])
        assert found.get(name) == (count, count), name


def _graph_reference():
    """The reference in burn/graph/__init__.py (comments: see its docstring), as text."""
    return re.sub(r"^# ?", "", Path(burn.graph.__file__).read_text(), flags=re.M)


def _doc_signatures():
    """{kernel: [argument names]} of the docs table in burn/graph/__init__.py."""
    doc = _graph_reference()
    sigs = {}
    for name, args in re.findall(r"\b(\w+)\(([^()]*)\)", doc):
        if name in KERNEL_NAMES and "same" not in args and name not in sigs:
            sigs[name] = [a.strip() for a in args.split(",")]
    return sigs


def test_docs_table_matches():
    sigs = _doc_signatures()
    assert len(sigs) >= 25
    for name, args in sigs.items():
        assert args == kernel_args(name)[1], name
    doc = _graph_reference()
    for name in KERNEL_NAMES:  # in the index, or in the docstring of the kernel's module
        module = importlib.import_module("burn.graph." + kernel_args(name)[0])
        assert re.search(r"\b%s\b" % name, doc + module.__doc__), name


def test_bst_format_lists_every_op():
    """docs/bst-format.md's op table has a row for each kind (a row may name several)."""
    text = (ROOT / "docs" / "bst-format.md").read_text()
    table = text[text.index("| op | in | consts |"):]
    table = table[:table.index("\n\n")]
    rows = [line.split("|")[1] for line in table.splitlines()[2:]]
    documented = [k.strip() for row in rows for k in row.split(",")]
    assert sorted(documented) == sorted(kinds())


def _float_cnn(path):
    """A float32 CNN (conv, depthwise, pools, clamp, fully connected, softmax) as a .bst."""
    from burn import nn
    from burn.host.bst_writer import write_bst
    from burn.host.export import to_float_graph

    burn.seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.ReLU6(),
                          nn.Conv2d(4, 8, 3, padding=1, groups=4), nn.ReLU(),
                          nn.AvgPool2d(2), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(8, 3),
                          nn.Softmax(dim=1))
    samples = np.random.default_rng(0).random((4, 1, 8, 8), dtype=np.float32)
    write_bst(to_float_graph(model, samples, tests=1), path)
    return str(path)


def _models(tmp_path_factory):
    """.bst files that hold every op kind of the table between them."""
    from bst_fuzz_models import cnn, lstm, matmul, others
    from op_kind_models import models

    d = tmp_path_factory.mktemp("op_table")
    paths = [cnn(d / "cnn.bst"), others(d / "others.bst"), _float_cnn(d / "float.bst"),
             matmul(d / "matmul.bst"), lstm(d / "lstm.bst")]
    for i, data in enumerate(models()):
        (d / ("kind%d.bst" % i)).write_bytes(data)
        paths.append(str(d / ("kind%d.bst" % i)))
    return paths


def test_prepare_passes_arguments_in_table_order(tmp_path_factory):
    """Every kind of op binds one of its kernels with at least the table's arguments, and
    every parameter of an op that is also a kernel argument (by name) reaches the kernel at
    the table's position (the viper twins take the same tuple)."""
    checked, covered = set(), set()
    for path in _models(tmp_path_factory):
        f = BstFile(path, 1 << 26)
        f.parse()
        ops = f.ops
        f.close()
        model = burn.load(path, variant="plain")
        assert len(model._steps) == len(ops)
        for step, (kind, _ins, _outs, _consts, params) in zip(model._steps, ops):
            base = runtime._base_name(step.k)
            args = kernel_args(base)[1]
            assert base in [n for op in OPS if op[0] == kind for n in op[3].split()]
            assert len(step.a) >= len(args)
            covered.add(kind)
            for i, a in enumerate(args):
                if a in params and not isinstance(params[a], list) and \
                        (kind, a) not in DERIVED:
                    assert step.a[i] == params[a], (kind, a)
                    checked.add((kind, a))
    assert sorted(covered) == sorted(kinds())
    assert len({k for k, _a in checked}) >= 29 and len(checked) >= 160
    assert ("conv2d", "act") in checked and ("avg_pool2d", "act") in checked
