"""TFLite SVDF imports as the optional svdf kind (int8: TFLM's integer SVDFs with int16 or
int8 weights_time and state; float32), its state carried from one inference to the next: four
inferences in a row bit for bit with TFLM on the plain kernels, the flex C kernels (host,
and built for the Cortex-M0+ run in unicorn) and the viper kernels (MicroPython unix port);
float32 within 1e-5 of TFLM. Model.reset() restores the state of a fresh load, as TFLM's
reset does."""

import json
import struct

import numpy as np
import pytest
from mp_models import run_models
from tflite_builder import run_tflm_sequence
from tflite_models import svdf_model

import burn
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, encode_bst
from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.runtime import use_flex
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite

CASES = 40
STEPS = 4  # inferences in a row per case


def _f32(v):
    return float(np.float32(v))


def _case(rng, dtype, i, out_scale=1.0):
    """One SVDF model and its STEPS inputs; `out_scale` multiplies the int8 output scale."""
    batch, rank = 1 + i % 2, 1 + (i // 2) % 2
    units, n_in, memory = (int(v) for v in rng.integers(1, 7, size=3))
    dims = (batch, n_in, units, rank, memory)
    filters = units * rank
    act = int(rng.integers(0, 2))
    if dtype == "float32":
        data = (rng.standard_normal((filters, n_in)), rng.standard_normal((filters, memory)),
                rng.standard_normal(units))
        ins = [rng.standard_normal((batch, n_in)).astype(np.float32) for _ in range(STEPS)]
        return svdf_model(dims, dtype, act, data=data), ins
    in_s, wf_s, wt_s = (_f32(rng.uniform(a, b)) for a, b in
                        ((0.01, 0.1), (0.005, 0.02), (1e-4, 1e-3)))
    int8_state = i % 5 == 4  # TFLM's other integer SVDF: int8 weights_time and state
    feature = 74.0 * 74.0 * np.sqrt(n_in)  # a typical feature sum
    state = 16 if int8_state else 4000  # a typical state value
    wt_top = 127 if int8_state else 4096
    state_s = _f32(in_s * wf_s * feature / state * rng.uniform(0.3, 3))
    out_s = _f32(state_s * wt_s * wt_top * 0.6 * state * np.sqrt(memory * rank) / 60 *
                 rng.uniform(0.5, 2) * out_scale)
    state_zp = 0 if i % 3 else int(rng.integers(-state // 40, state // 40 + 1))
    q = {"x": (in_s, int(rng.integers(-128, 128))), "wf": (wf_s, 0), "wt": (wt_s, 0),
         "s": (state_s, state_zp), "y": (out_s, int(rng.integers(-128, 128)))}
    data = (rng.integers(-128, 128, size=(filters, n_in)),
            rng.integers(-wt_top, wt_top + 1, size=(filters, memory)),
            rng.integers(-wt_top * state, wt_top * state, size=units))
    ins = [rng.integers(-128, 128, size=(batch, n_in), dtype=np.int8) for _ in range(STEPS)]
    return svdf_model(dims, dtype, act, q, data,
                      time_type="int8" if int8_state else "int16"), ins


def _cases(dtype, seed, count=CASES, out_scale=1.0):
    """(inputs, TFLM's outputs, .bst bytes) of `count` cases of STEPS inferences each."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        data, ins = _case(rng, dtype, i, out_scale)
        want = [o.reshape(-1) for o in run_tflm_sequence(data, ins, arena_size=1 << 16)]
        out.append((ins, want, encode_bst(import_tflite(data, tests=0))))
    return out


@pytest.fixture(scope="module")
def int8_cases():
    """50 cases: 40 with int16 weights_time and state, 10 with int8 ones."""
    return _cases("int8", 301, 50)


def _run_steps(model, ins):
    return [np.array(model.run(x.reshape(-1))).reshape(-1).tolist() for x in ins]


def test_int8_svdf_matches_tflm_over_consecutive_inferences(int8_cases):
    m0 = EmulatedLib("cortex-m0plus")
    for ins, want, bst in int8_cases:
        plain = burn.load(bst, variant="plain")
        assert [s["op"] for s in plain.info()["ops"]] == ["svdf"]
        flex = use_flex(burn.load(bst))
        emulated = use_flex(burn.load(bst), m0)
        assert flex.flex_ops == emulated.flex_ops == 1
        for model in (plain, flex, emulated):
            assert _run_steps(model, ins) == [w.tolist() for w in want]


def test_a_left_shift_past_int32_wraps_as_in_tflm():
    """Output scales 2**-24 of the usual make the output shift positive, so that the shifted
    sum leaves int32, which TFLM's and flex_c's int32 arithmetic wrap: the plain kernel too."""
    cases = _cases("int8", 303, 12, out_scale=2.0 ** -24)
    for _ins, _want, bst in cases:
        header = json.loads(bst[48:48 + struct.unpack_from("<I", bst, 8)[0]])
        assert header["ops"][0]["params"]["out_shift"] > 0
    for ins, want, bst in cases:
        for model in (burn.load(bst, variant="plain"), use_flex(burn.load(bst))):
            assert _run_steps(model, ins) == [w.tolist() for w in want]


@pytest.mark.parametrize("case", [5, 9])  # int16 state; int8 state with a zero point
def test_reset_restores_the_state_of_a_fresh_load(int8_cases, case):
    ins, want, bst = int8_cases[case]
    model = burn.load(bst, variant="plain")
    _run_steps(model, ins)
    model.reset()
    assert _run_steps(model, ins[:1]) == [want[0].tolist()]


def _matches_tflm_on_viper(cases, tmp_path):
    """The viper kernels (MicroPython unix port) give TFLM's outputs on every case."""
    results = run_models(tmp_path, [(bst, list(ins)) for ins, _want, bst in cases], heap="1m")
    for (_ins, want, _bst), result in zip(cases, results):
        assert result.runtimes == ["viper"], result.runtimes
        assert [run[0] for run in result.outputs] == [w.tolist() for w in want]


def test_int8_svdf_matches_tflm_on_viper(int8_cases, tmp_path):
    _matches_tflm_on_viper(int8_cases, tmp_path)


def test_a_left_shift_past_int32_wraps_on_viper_too(tmp_path):
    """As above, on the viper kernels, whose machine word is 64 bits on the unix port."""
    _matches_tflm_on_viper(_cases("int8", 303, 12, out_scale=2.0 ** -24), tmp_path)


def test_float_svdf_matches_tflm():
    """40 float32 cases of four inferences, plain and flex, within 1e-5 of TFLM."""
    for ins, want, bst in _cases("float32", 302):
        for model in (burn.load(bst, variant="plain"), use_flex(burn.load(bst))):
            for x, w in zip(ins, want):
                got = np.array(model.run(x.reshape(-1)), np.float32)
                assert np.abs(got - w).max() <= 1e-5 * max(1.0, float(np.abs(w).max()))


INT8_DIMS = (2, 3, 2, 2, 4)  # batch, input_size, units, rank, memory


@pytest.mark.parametrize("kwargs,match", [
    ({"variable": False}, "the state must be a variable tensor"),
    ({"bias": False}, "SVDF needs a bias"),
    ({"bias_scale": 0.5}, "bias scale 0.5 != state scale x weights_time scale"),
    ({"opt_rank": 0}, "rank 0 must be positive"),
    ({"opt_rank": 3}, "num_filters 4 % rank 3 != 0"),
    ({"time_type": "int32"}, "int16 or int8 weights_time and state"),
    ({"state_type": "int8"}, "weights_time is int16 but the state int8"),
])
def test_what_cannot_run_is_refused_at_import(kwargs, match):
    with pytest.raises(TFLiteImportError, match=match):
        import_tflite(svdf_model((1, 3, 2, 2, 4), **kwargs), tests=0)


def test_the_self_test_starts_from_a_zero_state():
    data = svdf_model(INT8_DIMS, data=(np.arange(-6, 6).reshape(4, 3), np.arange(16).reshape(4, 4),
                                   np.arange(2)))
    model = burn.load(encode_bst(import_tflite(data, tests=3)))
    model.run(np.ones(6, np.int8))  # leaves a state behind
    assert model.self_test() == 3


def _hostile(params=None, wt=None, shapes=None):
    batch, n_in, units, rank, memory = INT8_DIMS
    filters = units * rank
    xs, ys = shapes or ((batch, n_in), (batch, units))
    tensors = [GraphTensor("x", xs, "int8", 0.05, 0), GraphTensor("y", ys, "int8", 0.05, 0)]
    consts = {"wf": np.ones((filters, n_in), np.int8),
              "wt": np.ones((filters, memory), np.int32) if wt is None else wt,
              "bias": np.zeros(units, np.int32)}
    base = dict({"rank": rank, "in_zp": 0, "state_zp": 0, "out_zp": 0, "state_mult": 1 << 30,
                 "state_shift": 0, "out_mult": 1 << 30, "out_shift": 0, "state_bits": 16},
                **(params or {}))
    return encode_bst(Graph(tensors, [GraphOp("svdf", [0], [1], consts=consts, params=base)],
                            [(0, xs)], [(1, ys)]))


@pytest.mark.parametrize("kwargs,match", [
    ({"params": {"rank": 3}}, "do not fit rank 3"),
    ({"params": {"rank": 0}}, "rank"),
    ({"params": {"state_zp": 40000}}, "state_zp"),
    ({"params": {"out_shift": 40}}, "out_shift"),
    ({"wt": np.full((4, 4), 40000, np.int32)}, "not int16"),
    ({"wt": np.full((4, 4), 200, np.int32), "params": {"state_bits": 8}}, "not int8"),
    ({"params": {"state_bits": 8, "state_zp": 128}}, "state_zp"),
    ({"params": {"state_bits": 12}}, "state_bits 12: 8 or 16"),
    ({"shapes": ((2, 4), (2, 2))}, "input and output sizes"),
    ({"shapes": ((2, 3), (2, 3))}, "input and output sizes"),
])
def test_hostile_svdf_parameters_are_refused_by_the_reader(kwargs, match):
    with pytest.raises(ValueError, match=match):
        burn.load(_hostile(**kwargs))


def test_a_state_beyond_the_memory_cap_is_refused():
    bst = _hostile()
    burn.load(bst)
    with pytest.raises(ValueError, match="state of 128 bytes"):
        burn.load(bst, max_arena=100)
