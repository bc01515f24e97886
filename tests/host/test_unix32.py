"""The int8 runtime where small ints hold 31 bits, as on a board: a 32-bit build of the
MicroPython unix port (burn.host.mpy.unix32, built once into the cache), beside the 64-bit
port. The kernel checks of tests/core/test_narrow_ints.py run on both, and an inference of a
KWS-like model (and of the real KWS model when present) allocates nothing on the viper
runtime; on the plain runtime every op but softmax allocates nothing."""

from pathlib import Path

import pytest
from reference_models import model_path
from test_tflite_import import small_cnn

from burn.host.bst_writer import encode_bst
from burn.host.importers.tflite import import_tflite
from burn.host.mpy import unix as mp_unix
from burn.host.mpy import unix32 as mp_unix32

CORE_TESTS = Path(__file__).resolve().parent.parent / "core"

# One inference after a first one, measured as a whole and op by op (the runtime's steps
# are its bound kernels and their argument tuples). Globals are bound before measuring.
ALLOC_CODE = """
import gc
from array import array
import burn

def allocated(fn, args):
    gc.collect()
    before = gc.mem_alloc()
    fn(*args)
    return gc.mem_alloc() - before

m = burn.load(open(%r, 'rb').read(), variant=%r)
x = array('b', bytes(len(m._inputs[0][0])))
m.run(x)
print('total', allocated(m.run, (x,)))
for s in m._steps:
    print('op', s.kind, s.runtime, allocated(s.k, s.a))
"""


@pytest.fixture(scope="session")
def unix32():
    """Path of the 32-bit unix port, built once; skips with the install line without a
    32-bit C toolchain."""
    reason = mp_unix32.missing()
    if reason:
        pytest.skip(reason)
    return str(mp_unix32.build(progress=lambda line: None))


@pytest.fixture(scope="module", params=["unix64", "unix32"])
def port(request, tmp_path_factory):
    """(micropython binary, folder where it finds `burn`, port name) of each port."""
    if request.param == "unix32":
        binary = request.getfixturevalue("unix32")
    else:
        binary = mp_unix.find_micropython()
        if binary is None:
            pytest.skip("micropython (the MicroPython unix port) not found")
    return binary, mp_unix.link_core(tmp_path_factory.mktemp("core")), request.param


def _run(port, code, timeout=300):
    binary, folder = port[:2]
    done = mp_unix.run_code(code, paths=[folder, CORE_TESTS], heap="1m", binary=binary,
                            timeout=timeout)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_port_word_size(port):
    is_32 = port[2] == "unix32"
    out = _run(port, "import sys\nfrom burn.graph import fixedpoint\n"
                     "print(sys.maxsize < (1 << 32), fixedpoint.NARROW)\n")
    assert out.split() == [str(is_32)] * 2


def test_narrow_kernels_on_port(port):
    names = ("test_limb_requantization_matches_exact", "test_requantize_channel_reads_offsets",
             "test_lookup_twins_match_plain", "test_lookup_twins_allocate_nothing")
    code = "import test_narrow_ints as t\n" + "".join(
        "t.%s()\nprint(%r)\n" % (n, n) for n in names)
    assert _run(port, code).split() == list(names)


def _allocations(port, path, variant):
    total, ops = None, []
    for line in _run(port, ALLOC_CODE % (str(path), variant)).splitlines():
        words = line.split()
        if words[0] == "total":
            total = int(words[1])
        elif words[0] == "op":
            ops.append((words[1], words[2], int(words[3])))
    return total, ops


@pytest.fixture(scope="module")
def cnn_bst(tmp_path_factory):
    """A KWS-like int8 model: conv, depthwise, add, average pool, fully connected, softmax."""
    path = tmp_path_factory.mktemp("models") / "cnn.bst"
    path.write_bytes(encode_bst(import_tflite(small_cnn(), tests=0)))
    return path


@pytest.fixture(scope="module")
def kws_bst(tmp_path_factory):
    path = tmp_path_factory.mktemp("models") / "kws.bst"
    data = model_path("kws_ref_model.tflite").read_bytes()
    path.write_bytes(encode_bst(import_tflite(data, tests=0)))
    return path


def test_viper_inference_allocates_nothing(port, cnn_bst):
    total, ops = _allocations(port, cnn_bst, "fast")
    assert [o[1] for o in ops] == ["viper"] * len(ops)
    assert "softmax" in [o[0] for o in ops]
    assert total == 0, ops


def test_viper_kws_inference_allocates_nothing(port, kws_bst):
    total, ops = _allocations(port, kws_bst, "fast")
    assert total == 0, ops


def test_plain_inference_allocations(port, cnn_bst):
    total, ops = _allocations(port, cnn_bst, "plain")
    kinds = {o[0] for o in ops}
    assert {"conv2d", "depthwise_conv2d", "fully_connected", "avg_pool2d"} <= kinds
    if port[2] != "unix32":
        assert total == 0, ops
        return
    # 32-bit: softmax's gemmlowp values (Q0.31, often >= 2**30, so big ints) allocate; the
    # other ops allocate nothing.
    assert [o for o in ops if o[2] and o[0] != "softmax"] == []
    assert [o[2] > 0 for o in ops if o[0] == "softmax"] == [True]
