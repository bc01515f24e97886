"""burn's viper int8 kernels as the RP2040 firmware freezes them (armv6m machine code run from
flash), ON the emulated board: tests/core's plain == viper tests (seeded random cases of
conv, depthwise, fully connected, add, mul, pools, mean, requantize, softmax, logistic and
tanh, the Q31 multiplier on edge values, no allocation) run there by mp_runner.py, and the
MLPerf Tiny KWS model's self-test with variant "fast". Frozen Cortex-M0+ code that is not
word aligned reads its 32-bit constants wrongly and fails these (see
burn.host.firmware.native_align). One emulator serves the module."""

import sys
from pathlib import Path

import pytest
from emulator_support import emulator_or_skip, firmware_or_skip

from burn.host.bst_writer import encode_bst
from burn.host.emulator import EmulatedBoard
from burn.host.importers.tflite import import_tflite
from burn.host.link import connect
from burn.host.link.errors import DeviceError

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
from reference_models import model_path  # noqa: E402  (a module of tests/)

CORE_TESTS = TESTS / "core"
# not frozen (no kernel imports it); the kernel tests compute their parameters with it
QUANT_PARAMS = TESTS.parent / "core" / "graph" / "quant_params.py"
MARK = "@@burn-mp@@"  # mp_runner.py's protocol lines
VIPER_TESTS = ("test_viper_multiplier_matches_plain_on_edges", "test_viper_twins_match_plain",
               "test_viper_softmax_logistic_tanh_match_plain",
               "test_int8_kernels_allocate_nothing")
KWS_FAST = """
import burn
m = burn.load('/kws.bst', variant='fast')
ran = m.self_test()
print('kws|%d|%d|%s' % (ran, m.info()['latency']['us'], m.backend))
"""


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    """{'tests': {name: 'PASS' or the board's traceback}, 'kws': 'kws|tests run|microseconds
    of one inference|backend', or the board's error}."""
    emulator_or_skip()
    firmware = firmware_or_skip()
    folder = tmp_path_factory.mktemp("frozen-viper")
    kws = folder / "kws.bst"
    kws.write_bytes(encode_bst(import_tflite(model_path("kws_ref_model.tflite").read_bytes(),
                                             tests=1)))
    with EmulatedBoard("rp2040", firmware=firmware, flash_image=folder / "flash.img") as emu:
        with connect(emu.port) as link:
            for path in (CORE_TESTS / "mp_runner.py", CORE_TESTS / "test_graph_kernels.py",
                         CORE_TESTS / "checks.py", QUANT_PARAMS):
                link.put_file(str(path), "/" + path.name)
            link.put_file(str(kws), "/kws.bst")
            out = link.exec("import mp_runner\nmp_runner.main(['', '/', 'test_graph_kernels', "
                            "%s])" % ", ".join(repr(t) for t in VIPER_TESTS), timeout=300)
            try:
                kws_out = link.exec(KWS_FAST, timeout=300)
            except DeviceError as e:  # a failed self-test: reported by its own test
                kws_out = str(e)
    found = {}
    for line in out.splitlines():
        fields = line.split(" ", 3)
        if fields[0] == MARK and fields[1] in ("PASS", "FAIL"):
            found[fields[2]] = "PASS" if fields[1] == "PASS" else fields[3]
    assert MARK + " DONE" in out, out[-2000:]
    return {"tests": found, "kws": kws_out.strip()}


@pytest.mark.parametrize("name", VIPER_TESTS)
def test_frozen_viper_kernels_equal_plain_on_the_board(board, name):
    assert board["tests"].get(name) == "PASS", board["tests"].get(name, "not run")


def test_kws_self_test_passes_with_the_frozen_viper_kernels(board):
    assert board["kws"].startswith("kws|"), board["kws"][-2000:]
    ran, micros, runtime = board["kws"].split("|")[1:]
    assert ran == "1" and "viper" in runtime and "flex" not in runtime
    assert int(micros) > 0
