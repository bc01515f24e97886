"""burnflex's plan runner on the MicroPython unix port (x64 burnflex.mpy): a model whose ops
all run in burnflex runs, from its second inference on, as one burnflex.run_plan call with
TFLM's bits; plan() records pad, concat and copies (their data and pointer tables rebased
after earlier steps); misuse gives ValueErrors and leaves the kernels working."""

import ast
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from test_burnflex import build, micropython

from burn.host.bst_writer import encode_bst
from burn.host.importers.tflite import import_tflite
from burn.host.mpy import unix as mp_unix

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mlp_model import AD_SIZES, TINY_SIZES, mlp
from tflite_builder import run_tflm, run_tflm_sequence
from tflite_models import svdf_model

_MODEL = """
import burn
from array import array
m = burn.load(open(%(path)r, 'rb').read())
outs = []
for k in range(3):
    x = array('b', [((i * (37 + k)) %% 256) - 128 for i in range(%(n)d)])
    outs.append(list(m.run(x)))
print(repr((m.backend, bool(m._plan), outs)))
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    path = tmp_path_factory.mktemp("plan")
    shutil.copy(build("x64"), path / "burnflex.mpy")
    return mp_unix.link_core(path)


def _run(folder, code):
    proc = mp_unix.run_code(code, paths=[str(folder)], heap="2m", binary=micropython())
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return ast.literal_eval(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("sizes", [AD_SIZES, TINY_SIZES], ids=["ad", "tiny"])
def test_dense_stack_runs_as_a_plan_with_tflm_bits(folder, tmp_path, sizes):
    data = mlp(sizes, seed=4)
    path = tmp_path / "mlp.bst"
    path.write_bytes(encode_bst(import_tflite(data, tests=0)))
    backend, planned, outs = _run(folder, _MODEL % {"path": str(path), "n": sizes[0]})
    assert backend.startswith("flex") and planned
    for k, out in enumerate(outs):
        x = np.array([((i * (37 + k)) % 256) - 128 for i in range(sizes[0])], np.int8)
        assert out == run_tflm(data, [x.reshape(1, -1)])[0].reshape(-1).tolist(), k



def test_a_model_with_state_runs_each_op_once_per_inference(folder, tmp_path):
    """svdf keeps a state: burnflex.plan, which runs every kernel while it records, must not
    run it, so that each inference shifts the state once, as TFLM does."""
    data = svdf_model((1, 5, 3, 2, 4), q={"x": (0.05, 3), "wf": (0.01, 0), "wt": (0.001, 0),
                                          "s": (0.005, 0), "y": (0.05, -2)},
                      data=(np.arange(-15, 15).reshape(6, 5) * 8, np.arange(24).reshape(6, 4)
                            * 300 - 3000, np.arange(3) * 1000))
    path = tmp_path / "svdf.bst"
    path.write_bytes(encode_bst(import_tflite(data, tests=0)))
    backend, planned, outs = _run(folder, _MODEL % {"path": str(path), "n": 5})
    assert backend == "flex" and not planned
    xs = [np.array([((i * (37 + k)) % 256) - 128 for i in range(5)], np.int8).reshape(1, 5)
          for k in range(3)]
    assert outs == [o.reshape(-1).tolist() for o in run_tflm_sequence(data, xs)]


_STREAM = """
import burn
from array import array
m = burn.load(open(%(path)r, 'rb').read())
outs = []
for k in range(%(runs)d):
    if k == %(runs)d - 2:
        m.reset(init=True)  # then the first two inputs again
    x = array('b', [((i * (37 + k %% (%(runs)d - 2))) %% 256) - 128 for i in range(120)])
    outs.append(list(m.run(x)))
print(repr((m.backend, bool(m._plan), outs)))
"""


def test_a_streaming_model_with_variables_runs_as_a_plan(folder, tmp_path):
    """The converter's streaming wake-word model (int8 ring buffers in resource variables,
    CALL_ONCE first; tests/tflite_tf_models.py) runs as one plan: its variable reads and
    writes and its slices of the last frames are byte copies, CALL_ONCE runs before the
    plan is recorded. TFLM's bits over consecutive inferences, and after reset(init=True)
    the first inferences again."""
    import tflite_tf_models

    made = tflite_tf_models.models()
    if made is None:
        pytest.skip("TensorFlow is not installed (the tensorflow-cpu of the dev extra)")
    data = made["wakeword_stream"]
    path = tmp_path / "wakeword.bst"
    path.write_bytes(encode_bst(import_tflite(data, tests=0)))
    runs = 6
    backend, planned, outs = _run(folder, _STREAM % {"path": str(path), "runs": runs})
    assert backend.startswith("flex") and planned
    xs = [np.array([((i * (37 + k)) % 256) - 128 for i in range(120)], np.int8)
          .reshape(1, 3, 40) for k in range(runs - 2)]
    want = [o.reshape(-1).tolist() for o in run_tflm_sequence(data, xs)]
    assert outs == want + want[:2]


_LAYOUT = """
import burnflex
from array import array
src = bytearray(range(8))
mid = bytearray(8)
x = bytearray(b'\\x01\\x02\\x03\\x04')
padded = bytearray(16)
a = bytearray(b'\\x05\\x06')
cat = bytearray(6)
sizes = array('i', [1, 2])
steps = [(None, (src, mid, 8)),
         (burnflex.pad_s8, (x, padded, 1, 2, 2, 1, 0, 1, 0, 0, 0, 0, 1, 0, -7)),
         (burnflex.concat_s8, ([a, x], sizes, cat, 2))]
plan = burnflex.plan(steps)
first = (bytes(mid), bytes(padded), bytes(cat))
for b in (src, mid, padded, cat):
    b[:] = bytes(len(b))
src[:] = bytes(range(10, 18))
x[:] = b'\\x09\\x08\\x07\\x06'
a[:] = b'\\x0b\\x0c'
burnflex.run_plan(*plan)
again = (bytes(mid), bytes(padded), bytes(cat))
for b in (padded, cat):
    b[:] = bytes(len(b))
burnflex.pad_s8(x, padded, 1, 2, 2, 1, 0, 1, 0, 0, 0, 0, 1, 0, -7)
burnflex.concat_s8([a, x], sizes, cat, 2)
print(repr((first, again, (bytes(src), bytes(padded), bytes(cat)))))
"""


def test_plan_records_pad_concat_and_copies(folder):
    first, again, direct = _run(folder, _LAYOUT)
    assert first[0] == bytes(range(8))
    assert again == direct  # the plan read the buffers' new contents through its pointers
    assert again[0] == bytes(range(10, 18)) and first[1] != again[1]


_MISUSE = """
import burnflex
from array import array
said = []
def attempt(fn, *args):
    try:
        fn(*args)
        said.append(None)
    except (ValueError, TypeError) as e:
        said.append(str(e))
x, y = bytearray(4), bytearray(4)
f = array('f', [1.0, 2.0, 3.0, 4.0])
attempt(burnflex.plan, [(burnflex.quantize_s8, (f, y, 4, 0.5, 0))])
attempt(burnflex.plan, [(burnflex.requantize_s8, (x, y, 5, 0, 0, 1 << 30, 0))])
attempt(burnflex.plan, [(None, (x, y, 5))])
attempt(burnflex.plan, [(lambda *a: None, (x, y))])
attempt(burnflex.run_plan, bytearray(3), bytearray(0))
x[:] = b'\\x10\\x20\\x30\\x40'
burnflex.requantize_s8(x, y, 4, 0, 0, 1 << 30, 0)
said.append(bytes(y))
words, ptrs = burnflex.plan([(burnflex.requantize_s8, (x, y, 4, 0, 0, 1 << 30, 0))])
w = array('i', words)
w[1 + 3 + 3] = 99
attempt(burnflex.run_plan, w, ptrs)
words, ptrs = burnflex.plan([(burnflex.requantize_s8, (x, y, 4, 0, 0, 1 << 30, 0))])
arena = bytearray(64)
attempt(burnflex.run_plan, words, ptrs, 2, None, None, arena, array('i', [0, 64, 60, 5]))
attempt(burnflex.run_plan, words, ptrs, 2, None, None, arena, array('i', [-1, 4]))
attempt(burnflex.run_plan, words, ptrs, 2, None, None, arena, array('i', [0, 4, 8]))
attempt(burnflex.run_plan, words, ptrs, 2, None, None, arena, array('i', [0, 64, 0, 0]))
bound = burnflex.bind_plan(words, ptrs, 1)
x[:] = b'\\x02\\x04\\x06\\x08'
attempt(burnflex.run_plan, bound)
said.append(bytes(y))
said.append(burnflex.run_plan(bound))
attempt(burnflex.run_plan, bytearray(len(bound)))
attempt(burnflex.bind_plan, bytearray(3), bytearray(0))
print(repr(said))
"""


def test_misuse_is_a_value_error_and_kernels_keep_running(folder):
    said = _run(folder, _MISUSE)
    (no_step, bad_kernel, short_copy, python_fn, not_a_plan, direct, bad_shift, past_end,
     negative, odd, inside, bound_ran, bound_out, bound_us, not_bound, bind_not_a_plan) = said
    assert no_step == "plan: a kernel without a plan step"  # quantize_s8 has none
    assert bad_kernel == "requantize_s8: buffer length does not match shape"
    assert short_copy == "plan: buffer length does not match shape"
    assert python_fn == "plan: a step is (burnflex kernel, args)"
    assert not_a_plan == "run_plan: not a plan"
    assert direct == bytes([8, 16, 24, 32])  # the kernel runs after a failed plan()
    assert bad_shift == "run_plan step 0: parameter out of range"
    # the arena's free regions, one (offset, length) pair per step, must lie in the arena
    assert past_end == negative == odd == \
        "run_plan: free regions: pairs of offset and length in the arena"
    assert inside is None
    # a plan bound once (bind_plan) runs on the buffers' current contents
    assert bound_ran is None and bound_out == bytes([1, 2, 3, 4])
    assert isinstance(bound_us, int) and 0 <= bound_us < 1000000  # the run's microseconds
    assert not_bound == "run_plan: not a plan"  # a bytearray that bind_plan did not make
    assert bind_not_a_plan == "run_plan: not a plan"
