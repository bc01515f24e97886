"""MicroPython's _thread on the emulated RP2040's second core, with burn's rp2 firmware: the
rp2 port runs the new thread on core 1 (multicore_launch_core1), while core 0 keeps the REPL.
"""

import time

import pytest
from emulator_support import emulator_or_skip, firmware_or_skip

from burn.host.emulator import EmulatedBoard
from burn.host.link import connect

SIO_CPUID = 0xD0000000
SQUARES_OF = 3000

# Started on core 1: records where it runs, computes, then counts until told to stop. It
# reads only its arguments and locals: with the rp2 port's threads (no GIL) a lookup in the
# globals dict could meet core 0 growing it (put_file defines names), as on a real chip.
WORKER = """
import _thread, machine
shared = {'core': None, 'ident': None, 'squares': None, 'count': 0, 'stop': False,
          'done': False}
def work(shared, mem32, get_ident, n):
    shared['core'] = mem32[%d]
    shared['ident'] = get_ident()
    total = 0
    i = 0
    while i < n:
        total += i * i
        i += 1
    shared['squares'] = total
    while not shared['stop']:
        shared['count'] += 1
    shared['done'] = True
_thread.start_new_thread(work, (shared, machine.mem32, _thread.get_ident, %d))
""" % (SIO_CPUID, SQUARES_OF)


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    emulator_or_skip()
    firmware = firmware_or_skip()
    image = tmp_path_factory.mktemp("thread") / "flash.img"
    with EmulatedBoard("rp2040", firmware=firmware, flash_image=image) as emulated:
        yield emulated


@pytest.fixture
def link(board):
    with connect(board.port) as opened:
        opened.soft_reset()  # core 1 back in the bootrom, whatever ran before
        yield opened


def _wait_for(link, expression, seconds=30.0):
    """The value of `expression` on the board once it is truthy (polled over the REPL)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        value = link.eval(expression)
        if value:
            return value
    raise AssertionError("%s stayed false for %g s" % (expression, seconds))


def test_core_1_sleeps_in_the_bootrom_until_a_thread_starts(board, link):
    before = board.cycles(core=1)
    assert link.eval("sum(range(20000))") == sum(range(20000))
    # core 0 ran millions of cycles; core 1 only woke for the SEVs of core 0's locks
    assert board.cycles() > 1_000_000
    assert board.cycles(core=1) - before < 20_000


def test_a_thread_runs_on_core_1_while_core_0_answers_the_repl(board, link):
    assert link.exec("import machine\nprint(machine.mem32[%d])" % SIO_CPUID) == "0\n"
    core1_before = board.cycles(core=1)
    link.exec(WORKER)
    assert _wait_for(link, "shared['squares']") == sum(i * i for i in range(SQUARES_OF))
    assert link.eval("(shared['core'], shared['ident'], _thread.get_ident())") == (1, 2, 1)
    # core 1 counts on while core 0 runs these REPL lines
    first = link.eval("shared['count']")
    assert link.eval("[i * 3 for i in range(4)]") == [0, 3, 6, 9]
    second = link.eval("shared['count']")
    assert second > first > 0
    link.exec("shared['stop'] = True")
    assert _wait_for(link, "shared['done']") is True
    assert board.cycles(core=1) - core1_before > 1_000_000


def test_flash_writes_lock_core_1_out_and_let_it_go_on(board, link):
    # rp2's flash writes pause core 1 through its FIFO interrupt (multicore_lockout)
    link.exec(WORKER)
    _wait_for(link, "shared['count'] > 0")
    data = bytes(range(256)) * 32
    link.put_file(data, "/while_core1_runs.bin")
    assert link.get_file("/while_core1_runs.bin") == data
    first = link.eval("shared['count']")
    assert _wait_for(link, "shared['count'] > %d" % first) is True
    link.exec("shared['stop'] = True")
    assert _wait_for(link, "shared['done']") is True


def test_a_soft_reset_stops_core_1_and_a_new_thread_starts_again(board, link):
    link.exec(WORKER)
    _wait_for(link, "shared['count'] > 0")
    link.soft_reset()  # resets core 1 through the PSM; it answers from the bootrom
    after_reset = board.cycles(core=1)
    assert link.eval("1 + 2") == 3
    assert board.cycles(core=1) - after_reset < 20_000  # the old thread is gone
    link.exec(WORKER)
    assert _wait_for(link, "shared['squares']") == sum(i * i for i in range(SQUARES_OF))
    link.exec("shared['stop'] = True")
    assert _wait_for(link, "shared['done']") is True


def test_cycles_of_a_core_the_chip_lacks_are_refused(tmp_path):
    board = EmulatedBoard("rp2040", firmware=tmp_path / "unused.uf2")
    with pytest.raises(ValueError, match="cores 0 and 1, not 2"):
        board.cycles(core=2)
