"""burnflex's int8 kernels, as the RP2040 firmware compiles them (arm-none-eabi-gcc, Cortex-M0+
kernels), run ON the emulated board against burn's plain Python kernels on the same board:
the cases of board_kernel_cases.board_cases (convolutions with a layer's channel counts,
depthwise, fully connected, ADD, pools, softmax), each with separate buffers and with its
output over its input as the .bst arena plans it, compared by
tests/micropython/mp_compare.py in one board session. The firmware build's UF2 holds
burnflex as a C module and burn as frozen modules."""

import json
import sys
from pathlib import Path

import pytest
from emulator_support import emulator_or_skip, firmware_or_skip

from burn.host.emulator import EmulatedBoard
from burn.host.link import connect

MP_TESTS = Path(__file__).resolve().parents[1] / "micropython"
sys.path.insert(0, str(MP_TESTS))
import board_kernel_cases  # noqa: E402  (a module of tests/micropython)

MARK = "@@burnflex@@"
SEED = 2027


def _out(args):
    return next(i for i, a in enumerate(args) if isinstance(a, dict) and "out" in a)


def _results(board_output):
    found = {}
    for line in board_output.splitlines():
        if line.startswith(MARK):
            fields = json.loads(line[len(MARK):])
            found.setdefault(fields.pop("kernel", "done"), {}).update(fields)
    return found


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """{kernel: mp_compare fields} from one run of every board case on the firmware."""
    emulator_or_skip()
    firmware = firmware_or_skip()
    folder = tmp_path_factory.mktemp("burnflex-board")
    cases = board_kernel_cases.board_cases(SEED)
    with open(folder / "cases.jsonl", "w") as f:
        for case in cases:
            f.write(json.dumps(case, separators=(",", ":")) + "\n")
    with EmulatedBoard("rp2040", firmware=firmware, flash_image=folder / "flash.img") as board:
        with connect(board.port) as link:
            link.put_file(str(MP_TESTS / "mp_compare.py"), "/mp_compare.py")
            link.put_file(str(folder / "cases.jsonl"), "/cases.jsonl")
            where = link.exec("import burnflex\nprint(getattr(burnflex, '__file__', 'built in'))")
            out = link.exec("import mp_compare\nmp_compare.main('/cases.jsonl', '/')",
                            timeout=600)
    found = _results(out)
    assert "done" in found, out[-2000:]
    found["module"] = where.strip()
    found["counts"] = {k: sum(1 + ("below" in c[3][_out(c[3])]) for c in cases if c[0] == k)
                       for k in board_kernel_cases.OP_KINDS}
    return found


def test_burnflex_is_the_firmware_c_module(results):
    assert results["module"] == "built in"


@pytest.mark.parametrize("kernel", sorted(board_kernel_cases.OP_KINDS))
def test_board_kernel_equals_plain_in_place_and_not(results, kernel):
    r = results[kernel]
    assert r["cases"] == results["counts"][kernel]
    assert r["exact"] == r["cases"], r["first"]


@pytest.mark.parametrize("kernel", sorted(board_kernel_cases.OP_KINDS))
def test_board_kernel_allocates_nothing(results, kernel):
    assert results[kernel]["alloc"] == 0


def test_cases_cover_in_place_channel_blocks():
    """What the board cases must hold to catch a kernel that breaks the in-place plan:
    convolutions with more output channels than a Cortex-M0+ channel block, in place."""
    cases = board_kernel_cases.board_cases(SEED)
    wide = [c for c in cases if c[0] == "conv_s8" and c[3][12] > 32 and
            "below" in c[3][5]]
    assert len(wide) >= 3
    assert all("below" in c[3][_out(c[3])] for c in cases)
