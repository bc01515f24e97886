"""The MLPerf Tiny int8 models, imported to .bst, give TFLM's outputs bit for bit.

On CPython the model runs from bytes; on the real MicroPython unix port (heap capped at
192 KB, the core precompiled to .mpy as on a board) it runs from an open file, one layer's
weights at a time, and a second inference must allocate nothing. The models come from
$BURN_MODELS_DIR (default ../shared/models beside the repository).
"""

import subprocess

import numpy as np
import pytest
from reference_models import model_path

import burn
from burn.host import mpy
from burn.host.boards import load_board
from burn.host.bst_writer import encode_bst
from burn.host.importers.tflite import import_tflite
from burn.host.mpy import unix as mp_unix

NAMES = ("kws_ref_model.tflite", "pretrainedResnet_quant.tflite")
N_INPUTS = 20

_SCRIPT = """
import gc, sys
sys.path.insert(0, %(core)r)
import burn
m = burn.load(open(%(model)r, 'rb'))
x = m.input_buffer()
y = m.outputs()
def infer():
    gc.collect()
    before = gc.mem_alloc()
    m.invoke()
    return gc.mem_alloc() - before
with open(%(inputs)r, 'rb') as f:
    for i in range(%(count)d):
        f.readinto(x)
        grew = infer()
        print('OUT', ' '.join([str(v) for v in y]))
        if i:
            print('ALLOC', grew)
"""


def _tflm_outputs(data, inputs):
    from tflite_micro.python.tflite_micro import runtime
    interp = runtime.Interpreter.from_bytes(data)
    outs = []
    for x in inputs:
        interp.set_input(x, 0)
        interp.invoke()
        outs.append(np.array(interp.get_output(0)).reshape(-1))
    return outs


def _random_inputs(graph, seed):
    shape = graph.inputs[0][1]
    rng = np.random.default_rng(seed)
    return [rng.integers(-128, 128, size=shape, dtype=np.int8) for _ in range(N_INPUTS)]


@pytest.fixture(scope="module", params=NAMES)
def case(request):
    data = model_path(request.param).read_bytes()
    graph = import_tflite(data, tests=0)
    inputs = _random_inputs(graph, seed=len(request.param))
    return request.param, encode_bst(graph), inputs, _tflm_outputs(data, inputs)


# The plain Python kernels on CPython take seconds per ResNet-8 inference: two inputs here
# (every op's plain kernel is also checked against TFLM one op at a time); the MicroPython
# run below checks all N_INPUTS with the same kernels' viper twins.
CPYTHON_INPUTS = 2


def test_cpython_matches_tflm(case):
    name, bst, inputs, expected = case
    model = burn.load(bst)
    for i, (x, want) in enumerate(zip(inputs[:CPYTHON_INPUTS], expected)):
        got = np.array(model.run(x), dtype=np.int8)
        assert np.array_equal(got, want), "%s input %d: %s != %s" % (name, i, got, want)


def test_micropython_matches_tflm_and_allocates_nothing(case, tmp_path):
    binary = mp_unix.find_micropython()
    if binary is None:
        pytest.skip("micropython (the MicroPython unix port) not found")
    name, bst, inputs, expected = case
    _version, _mpy, arch = mp_unix.port_info(binary)
    core = mpy.compile_core(arch or "host")
    model = tmp_path / "model.bst"
    model.write_bytes(bst)
    data = tmp_path / "inputs.bin"
    data.write_bytes(b"".join(x.tobytes() for x in inputs))
    script = _SCRIPT % {"core": str(core.root), "model": str(model), "inputs": str(data),
                        "count": len(inputs)}
    heap = load_board("rp2040").heap_bytes  # the RP2040 firmware's heap, measured
    proc = subprocess.run([binary, *mp_unix.heap_args(str(heap)), "-c", script],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    outs = [line.split()[1:] for line in proc.stdout.splitlines() if line.startswith("OUT")]
    assert len(outs) == len(inputs), proc.stdout[-2000:]
    for i, (got, want) in enumerate(zip(outs, expected)):
        assert [int(v) for v in got] == want.tolist(), "%s input %d" % (name, i)
    grown = [int(line.split()[1]) for line in proc.stdout.splitlines()
             if line.startswith("ALLOC")]
    assert grown and all(g == 0 for g in grown), "%s: inference allocated %s bytes" % (
        name, grown)
