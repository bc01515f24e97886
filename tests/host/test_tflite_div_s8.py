"""TFLite's int8 DIV (the optional op `div`, kernel div_s8), broadcast as SUB is (either
operand may repeat): 48 random one-op models bit for bit with TFLM on the plain kernels, flex
(host and emulated Cortex-M0+) and the MicroPython unix port, zero divisors included; every
pair of int8 values at the extreme output shifts; scales beyond burn's range refused at
import; hostile parameters refused at load and by the C kernel."""

import numpy as np
import pytest
from one_op_runtimes import check_on_host, check_on_micropython
from tflite_builder import ModelBuilder, run_tflm

import burn
from burn.graph import quant_params as qp
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, encode_bst
from burn.host.flex.graph_kernels import GraphKernels
from burn.host.flex.runtime import use_flex
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite

CASES = 48


def _model(shapes, out_shape, scales, zps, act=0, dtypes=("int8",) * 3):
    mb = ModelBuilder()
    ta, tb, ty = (mb.tensor(n, s, dt, scale=sc, zero_point=zp) for n, s, dt, sc, zp in zip(
        "aby", tuple(shapes) + (out_shape,), dtypes, scales, zps))
    mb.op("DIV", [ta, tb], [ty], "DivOptions", FusedActivationFunction=act)
    return mb.finish([ta, tb], [ty])


def _case(rng):
    shape = tuple(int(d) for d in rng.integers(1, 5, size=int(rng.integers(1, 5))))
    small = [shape, (1,) * (len(shape) - 1) + shape[-1:], (1,)][int(rng.integers(0, 3))]
    shapes = (small, shape) if rng.integers(0, 3) == 0 else (shape, small)
    scales = [float(np.float32(np.exp(rng.uniform(-5, 1)))) for _ in range(3)]
    zps = [int(v) for v in rng.integers(-128, 128, size=3)]
    xs = [rng.integers(-128, 128, size=s).astype(np.int8) for s in shapes]
    # some divisors and dividends at the zero point: TFLM's results for 0 / y and x / 0
    for x, zp in zip(xs, zps):
        x.reshape(-1)[rng.random(x.size) < 0.15] = zp
    return _model(shapes, shape, scales, zps, act=int(rng.integers(0, 4))), xs


@pytest.fixture(scope="module")
def cases():
    rng = np.random.default_rng(1516)
    out = []
    for i in range(CASES):
        data, xs = _case(rng)
        want = run_tflm(data, xs)[0].reshape(-1)
        graph = import_tflite(data, tests=0)
        name = "DIV %d%s" % (i, " swapped" if graph.ops[0].params["swap"] else "")
        out.append((name, xs, want, encode_bst(graph)))
    return out


def test_matches_tflm_on_plain_and_flex(cases):
    assert any(c[0].endswith("swapped") for c in cases)  # the first operand repeats
    check_on_host(cases, "div")


def test_matches_tflm_on_micropython(cases, tmp_path):
    check_on_micropython(cases, tmp_path, int8_runtime="plain")


@pytest.mark.parametrize("scales", [
    (1.3 * 2.0 ** -26, 1.0, 1.0),  # output shift -25: the final right shift up to 63
    (1.0, 2.0 ** -10.8, 2.0 ** -10.8),  # output shift 22: down to 0
    (0.05, 0.1, 0.02),  # many exact halves: the multiplier's last bits decide them
    (0.3, 0.1, 0.03),
])
def test_every_pair_of_values_matches_tflm(scales):
    a, b = (v.reshape(-1).astype(np.int8) for v in np.meshgrid(np.arange(-128, 128),
                                                                np.arange(-128, 128)))
    data = _model(((a.size,), (a.size,)), (a.size,), scales, (3, -5, 7))
    want = run_tflm(data, [a, b], arena_size=1 << 20)[0]
    bst = encode_bst(import_tflite(data, tests=0))
    for model in (burn.load(bst, variant="plain"), use_flex(burn.load(bst))):
        assert np.asarray(model.run([a, b])).reshape(-1).tolist() == want.tolist()


def test_multiplier_is_the_double_quotient_of_the_scales():
    # 0.05 / (0.1 x 0.02) is 25 in float32 but not in double, where TFLM computes it: the
    # float32 multiplier misrounds 843 of the 65536 pairs (the exact halves)
    s = [float(np.float32(v)) for v in (0.05, 0.1, 0.02)]
    assert qp.div_params(0.05, 0.1, 0.02) == qp.quantize_multiplier(s[0] / (s[1] * s[2]))
    assert qp.div_params(0.05, 0.1, 0.02) != qp.quantize_multiplier(25.0)


@pytest.mark.parametrize("scales", [(2.0 ** -27, 1.0, 1.0), (1.0, 2.0 ** -11.2, 2.0 ** -11)])
def test_scales_beyond_the_shift_range_are_refused(scales):
    data = _model(((4,), (4,)), (4,), scales, (0, 0, 0))
    with pytest.raises(TFLiteImportError, match=r"output multiplier .* outside burn's"):
        import_tflite(data, tests=0)


def test_mixed_types_are_refused():
    data = _model(((4,), (4,)), (4,), (0.1, 0.1, 0.1), (0, 0, 0),
                  dtypes=("int8", "int8", "int16"))
    with pytest.raises(TFLiteImportError, match="DIV of INT16/INT8 tensors is not supported"):
        import_tflite(data, tests=0)


_GOOD = {"swap": 0, "a_zp": 1, "b_zp": -2, "out_zp": 3, "mult": 1 << 30, "shift": 0,
         "act_min": -128, "act_max": 127}


def _div_bst(params):
    tensors = [GraphTensor(n, (4,), "int8", 0.1, 0) for n in "aby"]
    return encode_bst(Graph(tensors, [GraphOp("div", [0, 1], [2], params=params)],
                            [(0, (4,)), (1, (4,))], [(2, (4,))]))


@pytest.mark.parametrize("change,message", [
    ({"shift": 23}, "shift"), ({"shift": -26}, "shift"), ({"swap": 2}, "swap"),
    ({"a_zp": 128}, "a_zp"), ({"b_zp": -129}, "b_zp"), ({"mult": -1}, "mult"),
    ({"act_min": 5, "act_max": 4}, "act_min"), ({"mult": None}, "mult"),
])
def test_bst_reader_refuses_hostile_parameters(change, message):
    params = {k: v for k, v in dict(_GOOD, **change).items() if v is not None}
    burn.load(_div_bst(_GOOD))  # the unchanged parameters load
    with pytest.raises(ValueError, match=message):
        burn.load(_div_bst(params))


@pytest.mark.parametrize("change", [{"shift": 23}, {"swap": 2}, {"mult": -1}, {"a_zp": 129},
                                    {"act_min": 5, "act_max": 4}])
def test_c_kernel_refuses_hostile_parameters(change):
    a, b, y = (np.ones(4, np.int8) for _ in range(3))
    p = dict(_GOOD, **change)
    GraphKernels().div_s8(a, b, y, 4, 4, *_GOOD.values())
    with pytest.raises(ValueError):
        GraphKernels().div_s8(a, b, y, 4, 4, *p.values())
