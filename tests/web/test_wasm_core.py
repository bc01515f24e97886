"""burn's core on MicroPython's WebAssembly port (the one a web page loads), run under Node.js
by burn.host.mpy.webassembly: every core module imports there, the viper twins (which that
port cannot compile) left out, and `.bst` models pass their self-tests bit for bit on the
plain kernels: a small CNN exported by burn's quantizer, and the MLPerf Tiny KWS model
imported from TFLite with TFLM's reference vectors (when the reference models are here).

The port is the pinned npm package, installed into burn's cache on first use; without
Node.js or npm the tests are skipped with the reason and the install line."""

import ast
import time
from array import array

import numpy as np
import pytest
from reference_models import model_path

import burn
from burn import nn
from burn.host import project_files
from burn.host.bst_writer import encode_bst
from burn.host.export import quantize
from burn.host.importers.tflite import import_tflite
from burn.host.mpy import webassembly
from burn.host.mpy.unix import core_dir

# Loads a model, checks that every step runs a plain kernel and that the self-test passes
# (Model.self_test raises ValueError at the first output that differs by one bit), then
# prints (backend, tests run, outputs of one inference, ms per inference) on the last line.
_SELF_TEST = """
import time
from array import array
import burn
m = burn.load(%(path)r)
assert [s.runtime for s in m._steps] == ["plain"] * len(m._steps), [s.runtime for s in m._steps]
ran = m.self_test()
x = array("b", %(x)r)
t = time.ticks_ms()
out = list(m.run(x))
ms = time.ticks_diff(time.ticks_ms(), t)
print(repr((m.backend, ran, out, ms)))
"""


@pytest.fixture(scope="module")
def port():
    """The port's micropython.mjs (installed into the cache now if needed), or skip with the
    reason and the install line."""
    try:
        webassembly.find_node()
        found = webassembly.installed() or webassembly.ensure_port(log=lambda text: None)
    except webassembly.WebAssemblyError as exc:
        pytest.skip("%s (install the port with: %s)" % (exc, webassembly.install_line()))
    return found


def _run(port, code, files=()):
    proc = webassembly.run_code(code, files, port=port, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return proc.stdout


def _core_modules():
    """The dotted names of the core's modules, as `burn.x.y`."""
    names = []
    for rel in project_files.core_files(core_dir()):
        parts = rel[:-len(".py")].split("/")
        names.append(".".join(["burn"] + parts[:-1 if parts[-1] == "__init__" else None]))
    return names


def test_every_core_module_imports_and_the_kernels_are_the_plain_ones(port):
    modules = _core_modules()
    code = """
import sys
failed = {}
for name in %r:
    try:
        __import__(name)
    except Exception as e:
        failed[name] = "%%s: %%s" %% (type(e).__name__, e)
fast = {n + "." + a: getattr(sys.modules[n], a) is not None for n in sys.modules
        if n.startswith(("burn.graph.", "burn.kernels.")) for a in dir(sys.modules[n])
        if a.endswith("_fast")}
from burn.kernels import conv, matmul, pool
plain = [conv.conv2d is conv.conv2d_plain, matmul.matmul is matmul.matmul_plain,
         pool.pool2d is pool.pool2d_plain]
print(repr((sys.implementation._mpy, failed, fast, plain)))
""" % (modules,)
    mpy, failed, fast, plain = ast.literal_eval(_run(port, code).strip().splitlines()[-1])
    assert mpy >> 10 == 0  # the port compiles no native code
    twins = [m for m in modules if m.endswith("_viper")]
    assert len(twins) >= 20
    # the twins fail to compile, as they should there, and nothing else fails
    assert failed == {m: "SyntaxError: invalid micropython decorator" for m in twins}
    # every viper twin name of burn.graph is there, and None: the plain kernels run
    assert len(fast) >= 30 and not any(fast.values())
    assert plain == [True, True, True]


def _small_cnn():
    """A small int8 CNN (conv, max pool, depthwise conv, average pool, fully connected,
    softmax) exported by burn's quantizer with three reference vectors."""
    burn.seed(0)
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(8, 8, 3, padding=1, groups=8), nn.ReLU(),
                          nn.AvgPool2d(2), nn.Flatten(), nn.Linear(8 * 2 * 2, 10),
                          nn.Softmax(dim=1))
    samples = np.random.default_rng(0).random((8, 1, 8, 8), dtype=np.float32)
    return encode_bst(quantize(model, samples, tests=3))


def _self_test(port, tmp_path, data):
    """(backend, tests run, outputs, ms per inference) of `data` on the port, and the
    outputs CPython's core gives for the same input."""
    path = tmp_path / "model.bst"
    path.write_bytes(data)
    here = burn.load(data, variant="plain")
    size = len(here._inputs[0][0])
    x = [((i * 37) % 256) - 128 for i in range(size)]
    want = list(here.run(array("b", x)))
    got = ast.literal_eval(_run(port, _SELF_TEST % {"path": "/model.bst", "x": x},
                                [(path, "/model.bst")]).strip().splitlines()[-1])
    return got, want


def test_small_cnn_passes_its_self_test(port, tmp_path):
    (backend, ran, out, _ms), want = _self_test(port, tmp_path, _small_cnn())
    assert backend == "plain" and ran == 3
    assert out == want


def test_kws_passes_tflm_reference_vectors(port, tmp_path):
    # one vector: each takes seconds on the plain kernels there (the page's tests run KWS's
    # vectors on flex-wasm)
    data = encode_bst(import_tflite(model_path("kws_ref_model.tflite").read_bytes(), tests=1))
    started = time.monotonic()
    (backend, ran, out, ms), want = _self_test(port, tmp_path, data)
    took = time.monotonic() - started
    assert backend == "plain" and ran == 1
    assert out == want
    print("KWS on MicroPython's WebAssembly port: %d ms per inference (plain kernels), "
          "%.1f s for the whole run" % (ms, took))
