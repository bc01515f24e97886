"""TFLite UNIDIRECTIONAL_SEQUENCE_LSTM imports as the optional lstm kind, its hidden and cell
states carried from one inference to the next: int8 bit for bit with TFLM's integer LSTM on
the plain kernels and the flex C kernels (host, and built for the Cortex-M0+ run in
unicorn), int16 (TFLM's int16x8 LSTM) bit for bit on the same runtimes and on the
MicroPython unix port, float32 within 1e-5 of TFLM on the plain and flex kernels, batch-major and
time-major. Model.reset() restores the state of a fresh load; what TFLM's micro kernel
refuses is refused at import with its reason, and hostile .bst parameters by the reader."""

import numpy as np
import pytest
from mp_models import run_models
from tflite_builder import run_tflm_sequence
from tflite_models import lstm_model

import burn
from burn.host import mpy
from burn.host.bst_writer import Graph, GraphOp, GraphTensor, encode_bst
from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.runtime import GraphKernels, use_flex
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.sigmoid16 import sigmoid_table
from burn.host.importers.tflite import import_tflite

CASES = 40
INFERENCES = 3  # in a row per case


def _dims(rng, i):
    """(batch, steps, input_size, units) and time_major of case i."""
    dims = (1 + i % 2, int(rng.integers(1, 7)), int(rng.integers(1, 17)),
            int(rng.integers(1, 17)))
    return dims, (i // 2) % 2


def _inputs(rng, dims, time_major, dtype):
    batch, steps, n_in, _units = dims
    shape = (steps, batch, n_in) if time_major else (batch, steps, n_in)
    if dtype in ("int8", "int16"):
        info = np.iinfo(dtype)
        return [rng.integers(info.min, info.max + 1, size=shape, dtype=dtype)
                for _ in range(INFERENCES)]
    return [rng.standard_normal(shape).astype(np.float32) for _ in range(INFERENCES)]


def _float_case(rng, i):
    dims, time_major = _dims(rng, i)
    _batch, _steps, n_in, units = dims
    data = (rng.standard_normal((4, units, n_in)) * 0.5,
            rng.standard_normal((4, units, units)) * 0.5, rng.standard_normal((4, units)))
    clip = float(rng.uniform(0.5, 2.0)) if i % 3 == 0 else 0.0
    return (lstm_model(dims, "float32", data, time_major=time_major, cell_clip=clip),
            _inputs(rng, dims, time_major, "float32"))


def _int8_case(rng, i):
    dims, time_major = _dims(rng, i)
    _batch, _steps, n_in, units = dims
    in_s, h_s = _f32(rng.uniform(0.01, 0.1)), _f32(rng.uniform(0.5, 2) / 128)
    # scales that put each gate's sums around +-2 in Q3.12
    w_s = [_f32(rng.uniform(0.5, 2) * 2 / (in_s * 74 * 74 * np.sqrt(n_in))) for _ in range(4)]
    r_s = [_f32(rng.uniform(0.5, 2) * 2 / (h_s * 74 * 74 * np.sqrt(units))) for _ in range(4)]
    q = {"x": (in_s, int(rng.integers(-128, 128))), "w": w_s, "r": r_s,
         "b": [_f32(in_s * s) for s in w_s], "h": (h_s, int(rng.integers(-20, 21))),
         "c": 2.0 ** int(rng.integers(-15, -7))}
    data = (rng.integers(-127, 128, size=(4, units, n_in)),
            rng.integers(-127, 128, size=(4, units, units)),
            np.round(rng.uniform(-1, 1, size=(4, units)) / np.array(q["b"])[:, None]))
    clip = float(rng.uniform(0.5, 8.0)) if i % 3 == 0 else 0.0
    return (lstm_model(dims, "int8", data, q, time_major=time_major, cell_clip=clip),
            _inputs(rng, dims, time_major, "int8"))


def _int16_case(rng, i):
    dims, time_major = _dims(rng, i)
    _batch, _steps, n_in, units = dims
    in_s, h_s = _f32(rng.uniform(0.5, 2) / 32768), _f32(rng.uniform(0.5, 2) / 32768)
    # gate sums around +-2 in Q3.12: int16 values spread about 18900, int8 weights about 74
    w_s = [_f32(rng.uniform(0.5, 2) * 2 / (in_s * 18900 * 74 * np.sqrt(n_in)))
           for _ in range(4)]
    r_s = [_f32(rng.uniform(0.5, 2) * 2 / (h_s * 18900 * 74 * np.sqrt(units)))
           for _ in range(4)]
    q = {"x": (in_s, 0), "w": w_s, "r": r_s, "b": [_f32(in_s * s) for s in w_s],
         "h": (h_s, 0), "c": 2.0 ** int(rng.integers(-15, -7))}
    data = (rng.integers(-127, 128, size=(4, units, n_in)),
            rng.integers(-127, 128, size=(4, units, units)),
            np.round(rng.uniform(-1, 1, size=(4, units)) / np.array(q["b"])[:, None]))
    clip = float(rng.uniform(0.5, 8.0)) if i % 3 == 0 else 0.0
    return (lstm_model(dims, "int16", data, q, time_major=time_major, cell_clip=clip),
            _inputs(rng, dims, time_major, "int16"))


def _f32(v):
    return float(np.float32(v))


def _cases(make, seed, count=CASES):
    """(inputs, TFLM's outputs, .bst bytes) of `count` cases of INFERENCES inferences each."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        data, ins = make(rng, i)
        want = [o.reshape(-1) for o in run_tflm_sequence(data, ins, arena_size=1 << 16)]
        out.append((ins, want, encode_bst(import_tflite(data, tests=0))))
    return out


@pytest.fixture(scope="module")
def float_cases():
    return _cases(_float_case, 401)


@pytest.fixture(scope="module")
def int8_cases():
    return _cases(_int8_case, 402)


@pytest.fixture(scope="module")
def int16_cases():
    return _cases(_int16_case, 403, 12)


def _run_steps(model, ins):
    return [np.array(model.run(x.reshape(-1))).reshape(-1) for x in ins]


def _matches_on_every_runtime(cases, reset=False):
    """Each case's steps equal TFLM's on the plain kernels, flex on the host and flex on the
    emulated Cortex-M0+ (and again on plain after a reset, with `reset`); how many cases'
    outputs change from step to step."""
    m0 = EmulatedLib("cortex-m0plus")
    changing = 0
    for ins, want, bst in cases:
        plain = burn.load(bst, variant="plain")
        assert [s["op"] for s in plain.info()["ops"]] == ["lstm"]
        flex = use_flex(burn.load(bst))
        emulated = use_flex(burn.load(bst), m0)
        assert flex.flex_ops == emulated.flex_ops == 1
        for model in (plain, flex, emulated):
            assert [g.tolist() for g in _run_steps(model, ins)] == [w.tolist() for w in want]
        changing += len({w.tobytes() for w in want}) > 1
        if reset:
            plain.reset()
            assert [g.tolist() for g in _run_steps(plain, ins)] == [w.tolist() for w in want]
    return changing


def test_int8_lstm_matches_tflm_over_consecutive_inferences(int8_cases):
    assert _matches_on_every_runtime(int8_cases) >= CASES // 2  # not stuck at one value


@pytest.mark.parametrize("case", [3, 8])
def test_reset_restores_the_int8_state_of_a_fresh_load(int8_cases, case):
    ins, want, bst = int8_cases[case]
    for model in (burn.load(bst, variant="plain"), use_flex(burn.load(bst))):
        _run_steps(model, ins)
        model.reset()
        assert [g.tolist() for g in _run_steps(model, ins)] == [w.tolist() for w in want]


def test_int16_lstm_matches_tflm_over_consecutive_inferences(int16_cases):
    changing = _matches_on_every_runtime(int16_cases, reset=True)
    assert changing >= len(int16_cases) // 2  # the outputs are not stuck at one value


def test_int16_lstm_matches_tflm_on_micropython(int16_cases, tmp_path):
    """The int16 kernel on the MicroPython unix port, the state carried across the runs."""
    some = int16_cases[:4]
    results = run_models(tmp_path, [(bst, ins) for ins, _want, bst in some], heap="1m",
                         core=mpy.core_for_unix_port(), variant="plain")
    for (_ins, want, _bst), result in zip(some, results):
        assert [np.asarray(o[0]).reshape(-1).tolist() for o in result.outputs] == \
            [w.tolist() for w in want]


def test_float_lstm_matches_tflm_over_consecutive_inferences(float_cases):
    for ins, want, bst in float_cases:
        plain = burn.load(bst, variant="plain")
        assert [s["op"] for s in plain.info()["ops"]] == ["lstm"]
        flex = use_flex(burn.load(bst))
        assert flex.flex_ops == 1
        for model in (plain, flex):
            for got, w in zip(_run_steps(model, ins), want):
                assert np.abs(got.astype(np.float32) - w).max() <= \
                    1e-5 * max(1.0, float(np.abs(w).max()))


def test_reset_restores_the_float_state_of_a_fresh_load(float_cases):
    ins, _want, bst = float_cases[5]
    for model in (burn.load(bst, variant="plain"), use_flex(burn.load(bst))):
        first = _run_steps(model, ins[:1])[0]
        assert _run_steps(model, ins[:1])[0].tolist() != first.tolist()  # the state moved on
        model.reset()
        assert _run_steps(model, ins[:1])[0].tolist() == first.tolist()


DIMS = (2, 3, 4, 5)  # batch, steps, input_size, units


@pytest.mark.parametrize("kwargs,match", [
    ({"variable": False}, "the hidden state must be a variable tensor"),
    ({"drop": (1, 5, 12)}, r"no input gate \(CIFG\)"),
    ({"add": (9,)}, "peephole"),
    ({"add": (16,)}, "projection"),
    ({"add": (20,)}, "layer normalization"),
    ({"drop": (14,)}, "input 14 is missing"),
    ({"act": 1}, "cell gate activation 1"),
    ({"act": 6}, "cell gate activation 6"),
    ({"types": {"h": "int8"}}, "input, hidden state and output must have one type"),
    ({"types": {"w": "int8"}}, "burn runs float32, int8"),
])
def test_what_tflm_refuses_is_refused_at_import(kwargs, match):
    with pytest.raises(TFLiteImportError, match=match):
        import_tflite(lstm_model(DIMS, **kwargs), tests=0)


@pytest.mark.parametrize("kwargs,match", [
    ({"types": {"c": "int8"}}, "int16 cell state"),
    ({"types": {"b": "int64"}}, "int32 biases"),
    ({"q": {"x": (0.05, 3), "w": [0.01, [0.01, 0.02] * 2 + [0.01], 0.01, 0.01], "r": [0.01] * 4,
            "b": [0.0005] * 4, "h": (1 / 128, 0), "c": 2.0 ** -11}},
     "weights 2 needs one scale"),
    ({"q": {"x": (0.05, 3), "w": [0.01] * 4, "r": [0.01] * 4, "b": [0.0005] * 4,
            "h": (1 / 128, 0), "c": 2.0 ** 9}}, "cell state scale 2\\*\\*9"),
])
def test_what_int8_cannot_run_is_refused_at_import(kwargs, match):
    with pytest.raises(TFLiteImportError, match=match):
        import_tflite(lstm_model(DIMS, "int8", **kwargs), tests=0)


_Q16 = {"x": (2 ** -12, 0), "w": [0.01] * 4, "r": [0.01] * 4, "b": [0.01 * 2 ** -12] * 4,
        "h": (2 ** -15, 0), "c": 2.0 ** -11}


@pytest.mark.parametrize("kwargs,match", [
    ({"types": {"b": "int32"}}, "TFLM reads them as int64"),
    ({"q": dict(_Q16, h=(2 ** -15, 3))}, "need zero point 0"),
    ({"q": dict(_Q16, w=[0.01, 0.01, 2000.0, 0.01])}, "takes at most 7"),
])
def test_what_int16_cannot_run_is_refused_at_import(kwargs, match):
    with pytest.raises(TFLiteImportError, match=match):
        import_tflite(lstm_model(DIMS, "int16", **kwargs), tests=0)


def _hostile(params=None, shapes=None, w_shape=(20, 4), int8=False, gate_q=(1 << 30, 0) * 8,
             int16=False):
    batch, steps, n_in, units = DIMS
    xs, ys = shapes or ((batch, steps, n_in), (batch, steps, units))
    if int8 or int16:
        dt = "int16" if int16 else "int8"
        tensors = [GraphTensor("x", xs, dt, 0.05, 0), GraphTensor("y", ys, dt, 0.01, 0)]
        consts = {"w": np.ones(w_shape, np.int8), "r": np.ones((20, units), np.int8),
                  "bias": np.zeros(20, np.int32), "gate_q": np.array(gate_q, np.int32),
                  "table": sigmoid_table()}
        base = {"batch": batch, "steps": steps, "time_major": 0, "cell_clip": -1,
                "in_zp": 0, "out_zp": 0, "cell_power": -11, "fc_mult": 1 << 30,
                "fc_shift": -14, "ic_mult": 1 << 30, "ic_shift": -18, "hid_mult": 1 << 30,
                "hid_shift": -22}
    else:
        tensors = [GraphTensor("x", xs, "float32"), GraphTensor("y", ys, "float32")]
        consts = {"w": np.ones(w_shape, np.float32), "r": np.ones((20, units), np.float32),
                  "bias": np.zeros(20, np.float32)}
        base = {"batch": batch, "steps": steps, "time_major": 0, "cell_clip": 0.0}
    base.update(params or {})
    return encode_bst(Graph(tensors, [GraphOp("lstm", [0], [1], consts=consts, params=base)],
                            [(0, xs)], [(1, ys)]))


@pytest.mark.parametrize("kwargs,match", [
    ({"params": {"batch": 3}}, "input and output sizes"),
    ({"params": {"steps": 0}}, "steps"),
    ({"params": {"time_major": 2}}, "time_major"),
    ({"w_shape": (16, 5)}, "not four gates of 5 units"),
    ({"shapes": ((2, 3, 5), (2, 3, 5))}, "input and output sizes"),
])
def test_hostile_lstm_parameters_are_refused_by_the_reader(kwargs, match):
    with pytest.raises(ValueError, match=match):
        burn.load(_hostile(**kwargs))


@pytest.mark.parametrize("kwargs,match", [
    ({"params": {"cell_power": 3}}, "cell_power"),
    ({"params": {"cell_clip": -2}}, "cell_clip"),
    ({"params": {"in_zp": 128}}, "in_zp"),
    ({"params": {"hid_shift": 32}}, "hid_shift"),
    ({"params": {"fc_mult": -1}}, "fc_mult"),
    ({"gate_q": (1 << 30, 40) + (1 << 30, 0) * 7}, r"gate_q\[1\] = 40"),
    ({"gate_q": (-5, 0) * 8}, r"gate_q\[0\] = -5"),
    ({"gate_q": (1 << 30, 0) * 7}, "constant gate_q"),
])
def test_hostile_int8_lstm_parameters_are_refused_by_the_reader(kwargs, match):
    with pytest.raises(ValueError, match=match):
        burn.load(_hostile(int8=True, **kwargs))


@pytest.mark.parametrize("kwargs,match", [
    ({"params": {"in_zp": 1}}, "in_zp"),
    ({"params": {"out_zp": -1}}, "out_zp"),
    ({"gate_q": (1 << 30, 8) + (1 << 30, 0) * 7}, r"gate_q\[1\] = 8: .* within -31..7"),
])
def test_hostile_int16_lstm_parameters_are_refused_by_the_reader(kwargs, match):
    burn.load(_hostile(int16=True))
    with pytest.raises(ValueError, match=match):
        burn.load(_hostile(int16=True, **kwargs))


def test_left_shifts_wrap_in_int32_on_every_runtime():
    """Positive shifts (valid, if no TFLite model's) overflow int32 in C: the plain kernel
    wraps as the C kernels do."""
    bst = _hostile(int8=True, params={"hid_shift": 3, "ic_shift": 2, "fc_shift": 1},
                   gate_q=(1 << 30, 6) * 8)
    ins = [np.random.default_rng(k).integers(-128, 128, 24, dtype=np.int8) for k in range(3)]
    plain, flex = burn.load(bst, variant="plain"), use_flex(burn.load(bst))
    assert [g.tolist() for g in _run_steps(plain, ins)] == \
        [g.tolist() for g in _run_steps(flex, ins)]


def test_a_state_beyond_the_memory_cap_is_refused():
    bst = _hostile()
    burn.load(bst)
    with pytest.raises(ValueError, match="state of 160 bytes"):
        burn.load(bst, max_arena=300)


def _s16_args(shift=-8, in_zp=0, out_zp=0):
    """A valid lstm_s16 call of DIMS but for the given gate shift and zero points."""
    from array import array

    batch, steps, n_in, units = DIMS
    return (array("h", [0] * batch * steps * n_in), bytes(4 * units * n_in),
            bytes(4 * units * units), array("i", [0] * 4 * units),
            array("h", [0] * (2 * batch + 4) * units), array("h", [0] * batch * steps * units),
            batch, steps, n_in, units, 0, array("i", [1 << 30, shift] * 8), sigmoid_table(),
            in_zp, out_zp, -1, -11, 1 << 30, -14, 1 << 30, -18, 1 << 30, -22)


@pytest.mark.parametrize("change", [{"shift": 8}, {"in_zp": 1}, {"out_zp": -1}])
def test_the_int16_c_kernel_refuses_what_the_reader_refuses(change):
    """Gate shifts above 7 (TFLM's int64 multiply) and zero points."""
    kernels = GraphKernels()
    kernels.lstm_s16(*_s16_args(shift=7))
    with pytest.raises(ValueError, match="flex_s16_lstm: parameter out of range"):
        kernels.lstm_s16(*_s16_args(**change))
