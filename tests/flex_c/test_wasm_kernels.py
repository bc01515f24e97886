"""flex_c's wasm32 build executed in Node.js (burn.host.flex.wasm_lib): every int8 kernel's
output equal to the host build's and to TFLM's on random shapes and data, and whole models'
self-tests, as a web page would run them."""

import numpy as np
import pytest
from reference_models import model_path
from s8_cases import make_cases

import burn
from burn.host.bst_writer import encode_bst
from burn.host.emulator.runtime import EmulatorError, find_node
from burn.host.flex.graph_kernels import GraphKernels
from burn.host.flex.runtime import use_flex
from burn.host.importers.tflite import import_tflite


@pytest.fixture(scope="module")
def wasm():
    from burn.host.flex.wasm_lib import WasmLib

    try:
        find_node()
    except EmulatorError as exc:
        pytest.skip(str(exc))
    lib = WasmLib()
    yield lib
    lib.close()


def test_wasm_int8_kernels_equal_host_and_tflm(wasm):
    host, ours = GraphKernels(), GraphKernels(wasm)
    failures, count = [], 0
    for case in make_cases(seed=7, count=4):
        got, theirs = case.run(ours), case.run(host)
        count += 1
        if not (np.array_equal(got, theirs) and np.array_equal(got, case.want)):
            failures.append("%s: wasm %s, host %s, tflm %s" % (
                case.name, got[:8], theirs[:8], case.want[:8]))
    assert count > 50 and not failures, "\n".join(failures)


@pytest.mark.parametrize("name", ["kws_ref_model.tflite", "kws_ref_model_float32.tflite"])
def test_a_whole_model_passes_its_self_test_on_wasm(wasm, name):
    data = encode_bst(import_tflite(model_path(name).read_bytes(), tests=3))
    model = use_flex(burn.load(data), wasm)
    assert model.flex_ops == len(model._steps) - sum(
        1 for s in model._steps if type(s.k).__name__ == "_BufferCopy")
    assert model.self_test() == 3
    x = np.random.default_rng(0).integers(-128, 128, 490, dtype=np.int8)
    if name == "kws_ref_model.tflite":
        assert list(model.run(x)) == list(burn.load(data).run(x))


def test_a_missing_function_is_a_clear_error(wasm):
    from burn.host.flex.wasm_lib import WasmError

    with pytest.raises(WasmError, match="has no function flex_no_such_kernel"):
        wasm.call("flex_no_such_kernel", [1, 2])
    assert wasm.call("flex_s8_requantize", [0, None, 0, 1 << 30, 0, 0, None]) != 0


def test_wasm_simd_requantization_and_add_equal_host_at_the_extremes(wasm):
    """The wasm32 SIMD128 paths of their own (the convolution's requantization with
    per-channel shifts as multiplies, ADD four elements a step) against the host build, with
    what realistic scales rarely give: full-range biases, left shifts, the saturating
    multiplier INT32_MIN, any zero points and clamps."""
    host, ours = GraphKernels(), GraphKernels(wasm)
    rng = np.random.default_rng(3)

    def mult(size):
        m = rng.integers(1 << 30, (1 << 31) - 1, size, dtype=np.int64).astype(np.int32)
        m[rng.random(size) < 0.1] = -(1 << 31)
        return m

    for _ in range(12):  # 1x1 convolutions over 3x3 pixels, 1..36 output channels
        ic, oc = (int(v) for v in rng.integers(1, 37, 2))
        x = rng.integers(-128, 128, 9 * ic).astype(np.int8)
        w = rng.choice(np.array([-127, 127, -1, 0, 5], np.int8), (oc, 1, 1, ic))
        bias = rng.integers(-(1 << 31), (1 << 31) - 1, oc, dtype=np.int64).astype(np.int32)
        shift = rng.integers(-31, 8, oc).astype(np.int32)
        m = mult(oc)
        got, want = (np.zeros(9 * oc, np.int8) for _ in range(2))
        for k, out in ((ours, got), (host, want)):
            k.conv_s8(x, w, bias, m, shift, out, 1, 3, 3, ic, 3, 3, oc, 1, 1, 1, 1, 1, 1, 1,
                      0, 0, -3, 5, -128, 127)
        assert np.array_equal(got, want), (ic, oc, shift)
    for _ in range(24):  # ADDs of 1..69 elements
        n = int(rng.integers(1, 70))
        a, b = (rng.integers(-128, 128, n).astype(np.int8) for _ in range(2))
        zps = [int(v) for v in rng.integers(-128, 128, 3)]
        (am, bm, om), shifts = mult(3).tolist(), rng.integers(-31, 3, 3).tolist()
        lo, hi = sorted(int(v) for v in rng.integers(-128, 128, 2))
        left = int(rng.integers(0, 21))
        got, want = (np.zeros(n, np.int8) for _ in range(2))
        for k, out in ((ours, got), (host, want)):
            k.add_s8(a, b, out, n, n, zps[0], am, shifts[0], zps[1], bm, shifts[1], zps[2], om,
                     shifts[2], left, lo, hi)
        assert np.array_equal(got, want), (n, shifts, left)
