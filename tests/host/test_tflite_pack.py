"""TFLite PACK imports as a concat along the new axis: bit for bit with TFLM on the plain
kernels, the flex C kernels (host, and built for the Cortex-M0+ run in unicorn) and the
viper kernels (MicroPython unix port)."""


import numpy as np
import pytest
from mp_models import run_models
from tflite_builder import ModelBuilder, run_tflm

import burn
from burn.host import boards, mpy
from burn.host.bst_writer import encode_bst
from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.runtime import use_flex
from burn.host.importers.errors import TFLiteImportError
from burn.host.importers.tflite import import_tflite

CASES = 40

HEAP = str(boards.load_board("rp2040").heap_bytes)  # the board's heap


def _pack_model(shape, count, axis, dtype="int8", scale=0.07, zp=-5, out_scale=None):
    """A one-op PACK model of `count` inputs of `shape` along `axis` (may be negative)."""
    mb = ModelBuilder()
    q = {} if dtype == "float32" else {"scale": scale, "zero_point": zp}
    xs = [mb.tensor("x%d" % i, shape, dtype, **q) for i in range(count)]
    out = list(shape)
    out.insert(axis % (len(shape) + 1), count)
    if out_scale is not None:
        q["scale"] = out_scale
    y = mb.tensor("y", tuple(out), dtype, **q)
    mb.op("PACK", xs, [y], "PackOptions", ValuesCount=count, Axis=axis)
    return mb.finish(xs, [y])


def _cases():
    rng = np.random.default_rng(15)
    cases = []
    for _ in range(CASES):
        shape = tuple(int(d) for d in rng.integers(1, 5, size=int(rng.integers(1, 4))))
        count = int(rng.integers(1, 5))
        axis = int(rng.integers(-len(shape) - 1, len(shape) + 1))
        data = _pack_model(shape, count, axis)
        xs = [rng.integers(-128, 128, size=shape, dtype=np.int8) for _ in range(count)]
        cases.append((data, xs))
    return cases


@pytest.fixture(scope="module")
def cases():
    """(model bytes, inputs, TFLM's output, .bst bytes) of each random case."""
    out = []
    for data, xs in _cases():
        want = run_tflm(data, xs)[0].reshape(-1)
        out.append((data, xs, want, encode_bst(import_tflite(data, tests=0))))
    return out


def test_pack_is_a_concat_matching_tflm_on_plain_and_flex(cases):
    m0 = EmulatedLib("cortex-m0plus")
    for _data, xs, want, bst in cases:
        plain = burn.load(bst, variant="plain")
        assert [s["op"] for s in plain.info()["ops"]] == ["concat"]
        flex = use_flex(burn.load(bst))
        emulated = use_flex(burn.load(bst), m0)
        assert flex.flex_ops == emulated.flex_ops == 1
        for model in (plain, flex, emulated):
            flat = [x.reshape(-1) for x in xs]
            got = model.run(flat[0] if len(flat) == 1 else flat)
            assert np.array(got).reshape(-1).tolist() == want.tolist()


def test_pack_matches_tflm_on_viper(cases, tmp_path):
    results = run_models(tmp_path, [(bst, [xs]) for _data, xs, _want, bst in cases],
                         heap=HEAP, core=mpy.core_for_unix_port())
    for (_data, _xs, want, _bst), result in zip(cases, results):
        assert result.runtimes == ["viper"], result.runtimes
        assert result.outputs[0][0] == want.tolist()


def test_float_pack_matches_tflm():
    xs = [np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3) * (i + 1) for i in range(3)]
    data = _pack_model((2, 3), 3, 1, "float32")
    model = burn.load(encode_bst(import_tflite(data, tests=0)))
    got = np.array(model.run(xs)).reshape(-1)
    assert got.tolist() == run_tflm(data, xs)[0].reshape(-1).tolist()


def test_pack_with_another_scale_is_refused():
    data = _pack_model((2, 2), 2, 0, out_scale=0.5)
    with pytest.raises(TFLiteImportError, match="share the output's scale"):
        import_tflite(data, tests=0)
