"""burnflex on both cores of the emulated RP2040 (burn's rp2 firmware): a model that runs as
one flex plan splits its large ops between core 0 and core 1 with TFLM's bits, falls back to
core 0 when core 1 runs a _thread or is asked not to be used, survives Ctrl-C, and reports a
core 1 that stops answering (halted as a debugger would) with a clear error, running on core
0 alone afterwards."""

import ast
import re

import pytest
from emulator_support import emulator_or_skip, firmware_or_skip
from reference_models import model_path

from burn.host import board_programs as bp
from burn.host.bst_writer import encode_bst
from burn.host.deploy.report import cores_lines
from burn.host.emulator import EmulatedBoard
from burn.host.importers.tflite import import_tflite
from burn.host.link import LinkTimeout, connect
from burn.host.romfs import write as romfs_write

LOAD = """
import burn, burnflex, gc, time
with open('/kws.bst', 'rb') as f:
    data = f.read()
def timed(m):
    best = 1 << 30
    for _ in range(2):
        t = time.ticks_us()
        m.invoke()
        best = min(best, time.ticks_diff(time.ticks_us(), t))
    return best
"""


@pytest.fixture(scope="module")
def kws_bst():
    with open(model_path("kws_ref_model.tflite"), "rb") as f:
        return encode_bst(import_tflite(f.read(), tests=2))


@pytest.fixture(scope="module")
def kws(tmp_path_factory, kws_bst):
    """(board, link): the emulated RP2040 with /kws.bst in `data`, the tests' one board."""
    emulator_or_skip()
    firmware = firmware_or_skip()
    image = tmp_path_factory.mktemp("dual") / "flash.img"
    with EmulatedBoard("rp2040", firmware=firmware, flash_image=image) as board:
        with connect(board.port) as link:
            link.put_file(kws_bst, "/kws.bst")
            link.soft_reset()
            link.exec(LOAD, timeout=60)
            yield board, link


def test_kws_splits_across_both_cores_with_tflm_bits(kws):
    link = kws[1]
    got = link.exec_literal("""
one = burn.load(data, cores=1)
both = burn.load(data)
r = {'tests': (one.self_test(), both.self_test()), 'us': (timed(one), timed(both))}
x = bytes((i * 37) % 256 for i in range(490))
outs = []
for m in (one, both):
    m.input_buffer()[:] = memoryview(x).cast('b') if hasattr(memoryview, 'cast') else x
    m.invoke()
    outs.append(list(m.outputs()))
r['same'] = outs[0] == outs[1]
r['alloc'] = [0, 0]
for k in range(4):  # the first pass of a loop allocates its own bookkeeping
    m = (one, both)[k % 2]
    gc.collect()
    a = gc.mem_alloc()
    m.invoke()
    r['alloc'][k % 2] = gc.mem_alloc() - a
i = both.info()
r['cores'] = (i['cores'], one.info()['cores'])
r['splits'] = [op['split'] for op in i['ops']]
r['state'] = burnflex.cores()
print(repr(r))
""", timeout=300)
    assert got["tests"] == (2, 2)  # both match the file's TFLM reference vectors
    assert got["same"]
    assert got["alloc"] == [0, 0]
    both_cores, one_core = got["cores"]
    assert both_cores["used"] == 2 and both_cores["why"] is None
    assert one_core["used"] == 1 and "cores=1" in one_core["why"]
    split = [s for s in got["splits"] if not s.startswith("one core")]
    assert len(split) == 9, got["splits"]  # every convolution of the DS-CNN
    assert any("aside" in s for s in split)
    one_us, both_us = got["us"]
    assert one_us > 1.5 * both_us, got["us"]
    assert 0 < got["state"][4] < 4096  # core 1's stack stayed inside its bank


def test_a_thread_on_core1_keeps_flex_on_core0(kws):
    link = kws[1]
    got = link.exec_literal("""
import _thread
flag = {'stop': False, 'done': False}
def spin(flag):
    while not flag['stop']:
        pass
    flag['done'] = True
_thread.start_new_thread(spin, (flag,))
time.sleep_ms(20)
m = burn.load(data)
n = m.self_test()
during = (burnflex.cores(), m.info()['cores'])
flag['stop'] = True
while not flag['done']:
    time.sleep_ms(5)
time.sleep_ms(20)
n2 = m.self_test()
print(repr((n, during, n2, m.info()['cores']['used'])))
""", timeout=300)
    n, (state, during), n2, used_after = got
    assert n == 2 and n2 == 2
    assert state[1] == 1 and "_thread" in state[2]
    assert during["used"] == 1
    assert used_after == 2  # core 1 is borrowed again once the thread has ended


def test_ctrl_c_during_inferences_leaves_both_cores_working(kws):
    link = kws[1]
    with pytest.raises(LinkTimeout):
        link.exec("m = burn.load(data)\nwhile True:\n    m.invoke()\n", timeout=3)
    got = link.exec_literal("m = burn.load(data)\nprint(repr((m.self_test(), "
                            "m.info()['cores']['used'])))", timeout=120)
    assert got == (2, 2)


def test_burn_flash_report_gives_the_cores_and_each_ops_split(kws, kws_bst):
    link = kws[1]
    # the models the tests before left in the board's globals go: the measure loads its own
    link.exec("one = both = m = None\nimport gc\ngc.collect()")
    assert romfs_write.deploy(link, {"kws.bst": kws_bst})  # read in place: one flex plan
    text = link.exec(bp.once("measure", "_measure", "/rom/kws.bst", 3, 100), timeout=120)
    measured = ast.literal_eval(text.strip().splitlines()[-1])
    lines = cores_lines(measured)
    assert lines and lines[0].startswith("cores       2: 9 of 12 ops split"), measured
    rows = [re.search(r"rows 0-(\d+) \| (\d+)-24", line) for line in lines
            if "depthwise_conv2d" in line]
    assert rows and all(r and int(r.group(1)) + 1 == int(r.group(2)) for r in rows), lines
    assert any("fully_connected" in line and "one core: small" in line for line in lines)


def test_core1_that_stops_answering_is_reported_then_core0_runs_alone(kws):
    # last: core 1 stays halted on this board from here on
    board, link = kws
    link.exec("m = burn.load(data)\nm.self_test()", timeout=120)
    board.stall_core1(200000)  # within the first convolution's half
    got = link.exec_literal("""
try:
    m.invoke()
    r = 'no error'
except RuntimeError as e:
    r = str(e)
print(repr((r, burnflex.cores(), m.self_test(), m.info()['cores'])))
""", timeout=300)
    error, state, tests, cores = got
    assert "core 1 did not finish" in error
    assert state[1] == 1 and "did not finish" in state[2]
    assert tests == 2  # the next inferences run on core 0 alone, with TFLM's bits
    assert cores["used"] == 1 and "did not finish" in cores["why"]
