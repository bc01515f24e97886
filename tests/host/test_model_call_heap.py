"""`m(x)` at a board's heap: calling the KWS model, which returns a Tensor and so imports the
Tensor backend on its first call, works wherever `m.run(x)` does. Run on the real
MicroPython unix port with the RP2040's heap (boards/rp2040.json) and the core as the `.mpy`
files a board is sent, as the virtual board runs it."""

import ast
from array import array

import pytest
from reference_models import model_path

from burn.host import mpy
from burn.host.boards import load_board
from burn.host.bst_writer import encode_bst
from burn.host.importers.tflite import import_tflite
from burn.host.mpy import unix as mp_unix

CALL = """
import gc
from array import array
import burn
m = burn.load(%(path)r)
x = array('b', [(i * 37) %% 256 - 128 for i in range(len(m.input_buffer()))])
raw = list(m.run(x))
gc.collect()
y = m(x)
print(repr((raw, y.reshape((-1,)).tolist(), y.shape)))
"""


@pytest.fixture(scope="module")
def port():
    """(micropython binary, the core's .mpy build for its architecture)."""
    binary = mp_unix.find_micropython()
    if binary is None:
        pytest.skip("micropython (the MicroPython unix port) not found")
    return binary, mpy.compile_core(mp_unix.port_info(binary)[2]).root


@pytest.fixture(scope="module")
def kws(tmp_path_factory):
    path = tmp_path_factory.mktemp("models") / "kws.bst"
    data = model_path("kws_ref_model.tflite").read_bytes()
    path.write_bytes(encode_bst(import_tflite(data, tests=4)))
    return path


def _call(port, path, heap):
    binary, core = port
    done = mp_unix.run_code(CALL % {"path": str(path)}, [core], heap=heap, binary=binary,
                            timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return ast.literal_eval(done.stdout.strip().splitlines()[-1])


def test_calling_kws_works_at_the_boards_heap(port, kws):
    import burn

    raw, called, shape = _call(port, kws, load_board("rp2040").heap_bytes)
    assert called == raw and shape == (1, 12)
    x = array("b", [(i * 37) % 256 - 128 for i in range(490)])
    assert raw == list(burn.load(str(kws)).run(x))


def test_calling_kws_works_at_192k(port, kws):
    # The heap that gave MemoryError in m(x) once the model was loaded, while m.run(x) ran.
    raw, called, _shape = _call(port, kws, 192 * 1024)
    assert called == raw


GARBAGE = """
import gc
import burn
with open(%(path)r, "rb") as f:
    data = f.read()
m = burn.load(data)  # the modules a load imports, imported now
m = None
gc.collect()
while gc.mem_free() > %(target)d:
    junk = bytearray(64)
junk = None
print("free before loading", gc.mem_free(), "arena", %(arena)d)
m = burn.load(data)
print("loaded", len(m.input_buffer()))
"""


def test_a_heap_full_of_garbage_still_loads_a_model(port, kws):
    # The default arena limit is the free heap; garbage awaiting a collection must not
    # count against it (a board refused a model it had room for).
    import struct

    from burn.bst import HEADER_STRUCT

    binary, core = port
    head = struct.unpack_from(HEADER_STRUCT, kws.read_bytes())
    arena = head[8] + head[9]  # the int8 and float32 arenas the header asks for
    done = mp_unix.run_code(GARBAGE % {"path": str(kws), "arena": arena, "target": arena // 2},
                            [core], heap=load_board("rp2040").heap_bytes, binary=binary,
                            timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    free = int(done.stdout.split("free before loading ")[1].split()[0])
    assert free < arena, done.stdout  # the garbage took the room the arena needs
    assert "loaded 490" in done.stdout
