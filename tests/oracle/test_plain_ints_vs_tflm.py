"""int64, uint8 and uint32 data (plain integers) against the tflite-micro interpreter, bit
for bit: one-op models (tests/plain_int_cases.py: the moves, SHAPE, int64 MAXIMUM, MINIMUM,
comparisons and ZEROS_LIKE; import_only_cases.cast_case: the CASTs to and from uint32)
imported by burn's TFLite importer and run on the plain kernels, with flex on the host and
on the MicroPython unix port. Their ops stay in Python on every runtime (flex_c's kernels
take the signed types of 1, 2 and 4 bytes; a Cortex-M0+ build has nothing more for them),
which the flex run checks. The control ops on those types are tests/host/
test_tflite_control.py's (models made by the TensorFlow Lite converter)."""

import numpy as np
import pytest
from import_only_cases import cast_case
from mp_models import run_models
from one_op_runtimes import check, check_on_micropython
from plain_int_cases import PLAIN_INT_MAKERS
from s16_cases import make_cases
from tflite_builder import run_tflm

import burn
from burn.host import mpy
from burn.host.bst_writer import encode_bst
from burn.host.flex.runtime import use_flex
from burn.host.importers.tflite import import_tflite

COUNT = 4  # cases per (op, types)
# the CASTs of uint32 that TFLM runs (BOOL is int8 0/1 in burn)
CASTS = [("uint32", t) for t in ("float32", "int8", "int16", "int32", "uint32")] + \
    [(t, "uint32") for t in ("float32", "int8", "int16", "int32", "bool")]


@pytest.fixture(scope="module")
def cases():
    """{op and types: [(name, input, TFLM's flat output, .bst bytes)]}, COUNT of each."""
    out = {op: [(c.name, c.inputs(), c.want, encode_bst(import_tflite(c.data, tests=0)))
                for c in items]
           for op, items in make_cases(7, COUNT, PLAIN_INT_MAKERS).items()}
    rng = np.random.default_rng(32)
    for src, dst in CASTS:
        out["CAST %s %s" % (src, dst)] = found = []
        for i in range(COUNT):
            data, x, tflm_x = cast_case(rng, src, dst)
            want = run_tflm(data, [tflm_x])[0].reshape(-1)
            found.append(("cast %s %s %d" % (src, dst, i), x.reshape(-1), want,
                          encode_bst(import_tflite(data, tests=0))))
    return out


def _all(cases):
    return [case for items in cases.values() for case in items]


def test_every_op_and_type_has_its_cases(cases):
    """Each maker's and cast's cases, of their types, with values beyond int32 (int64),
    beyond int8 (uint8) and beyond int32 (uint32)."""
    assert len(cases) == len(PLAIN_INT_MAKERS) + len(CASTS)
    for key, items in cases.items():
        first = [x if isinstance(x, np.ndarray) else x[0] for _n, x, _w, _b in items]
        dtype = key.split()[1].replace("bool", "int8")
        assert len(items) == COUNT and all(x.dtype == dtype for x in first), key
    values = {t: np.concatenate([np.ravel(x if isinstance(x, np.ndarray) else x[0])
                                 for key, items in cases.items() if key.split()[1] == t
                                 for _n, x, _w, _b in items]) for t in ("int64", "uint32")}
    assert abs(values["int64"]).max() > 1 << 40 and values["uint32"].max() > 1 << 31


def test_plain_runtime_and_flex_match_tflm(cases):
    for name, x, want, bst in _all(cases):
        flex = use_flex(burn.load(bst))
        assert flex.flex_ops == 0 and all(s.runtime == "plain" for s in flex._steps), name
        for model in (burn.load(bst, variant="plain"), flex):
            got = np.asarray(model.run(x)).reshape(-1)
            assert got.dtype == want.dtype, (name, got.dtype)
            check(name, got, want)


def test_micropython_matches_tflm(cases, tmp_path):
    """The models of one op or more on the plain kernels, and those that fold to no op
    (RESHAPE, SQUEEZE, SHAPE, identity moves: the input copied out, or a constant)."""
    ops = [burn.load(bst).info()["ops"] for _n, _x, _w, bst in _all(cases)]
    some = [case for case, o in zip(_all(cases), ops) if o]
    none = [case for case, o in zip(_all(cases), ops) if not o]
    assert some and none
    check_on_micropython(some, tmp_path, int8_runtime="plain")
    (tmp_path / "none").mkdir()
    results = run_models(tmp_path / "none", [(bst, [x]) for _n, x, _w, bst in none],
                         heap="1m", core=mpy.core_for_unix_port())
    for (name, _x, want, _bst), result in zip(none, results):
        check(name, result.outputs[0][0], want)


def test_compiling_to_c_is_refused_clearly():
    """`burn compile` (C over flex_c) refuses models of these types clearly: their ops, or
    their inputs and outputs, have no C form (a model with a reference test each)."""
    from burn.host.compile.trace import CompileError, trace

    rng = np.random.default_rng(5)
    for key in ("RESHAPE int64", "CONCATENATION int64", "LESS int64", "QUANTIZE uint8 int8"):
        case = PLAIN_INT_MAKERS[key](rng)
        with pytest.raises(CompileError, match="C"):
            trace(encode_bst(import_tflite(case.data, tests=1)))
    data, _x, _tflm_x = cast_case(rng, "uint32", "float32")
    with pytest.raises(CompileError, match="no C kernel"):
        trace(encode_bst(import_tflite(data, tests=1)))
