"""int64, uint8 and uint32 data (plain integers) against the tflite-micro interpreter, bit
for bit: one-op models (tests/plain_int_cases.py) imported by burn's TFLite importer and run
on the plain kernels, and with flex on the host, where their moves stay in Python (flex_c's
layout kernels move 1, 2 and 4-byte elements of the types they know; a Cortex-M0+ build
has nothing more for them). The control ops on those types are tests/host/
test_tflite_control.py's (models made by the TensorFlow Lite converter)."""

import numpy as np
import pytest
from plain_int_cases import PLAIN_INT_MAKERS
from s16_cases import make_cases

import burn
from burn.host.bst_writer import encode_bst
from burn.host.flex.runtime import use_flex
from burn.host.importers.tflite import import_tflite

COUNT = 4  # cases per (op, type)


@pytest.fixture(scope="module")
def cases():
    """[(op and type, case, .bst bytes)], COUNT cases of each."""
    return [(op, c, encode_bst(import_tflite(c.data, tests=0)))
            for op, items in make_cases(7, COUNT, PLAIN_INT_MAKERS).items() for c in items]


def _compare(cases, load):
    failures = []
    for op, case, data in cases:
        got = np.asarray(load(data).run(case.inputs())).reshape(-1)
        if got.dtype != case.want.dtype or not np.array_equal(got, case.want):
            failures.append("%s: %s: got %s %s" % (op, case.name, got.dtype, got[:6]))
    assert not failures, "\n".join(failures[:20])


def test_every_op_and_type_has_its_cases(cases):
    """Each maker's cases, of its type, with values beyond int32 (int64) and int8 (uint8)."""
    for op in PLAIN_INT_MAKERS:
        mine = [c for o, c, _d in cases if o == op]
        dtype = op.split()[1]
        assert len(mine) == COUNT and all(np.asarray(c.x if not isinstance(c.x, list)
                                                     else c.x[0]).dtype == dtype
                                          for c in mine), op
    values = np.concatenate([np.ravel(c.x if not isinstance(c.x, list) else c.x[0])
                             for o, c, _d in cases if o.endswith("int64")])
    assert abs(values).max() > 1 << 40


def test_plain_runtime_matches_tflm(cases):
    _compare(cases, lambda data: burn.load(data, variant="plain"))


def test_flex_on_the_host_matches_tflm_with_the_moves_in_python(cases):
    def load(data):
        model = use_flex(burn.load(data))
        assert model.flex_ops == 0 and all(s.runtime == "plain" for s in model._steps)
        return model
    _compare(cases, load)
