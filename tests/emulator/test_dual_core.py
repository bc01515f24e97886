"""The emulated RP2040's second core, checked with a pico-sdk program built here from
tests/emulator/multicore_check (see its source for what each line checks): both cores run it
at once, and it must print what a real RP2040 prints."""

from pathlib import Path

import pytest
from emulator_support import emulator_or_skip

from burn.host.emulator import EmulatorError
from burn.host.emulator.program import run_program
from burn.host.firmware import FirmwareError
from burn.host.firmware.sdk_program import build_sdk_program

PROGRAM = Path(__file__).with_name("multicore_check")
# The program's constants (multicore_check.c).
PINGPONG_ROUNDS = 100
INCREMENTS = 5000
INTERP_POPS = 1000
FIFO_DEPTH = 8
IRQ_WORDS = 20
# FIFO_ST bits: VLD (RX holds data), RDY (TX has room), WOF (written full), ROE (read empty).
VLD, RDY, WOF, ROE = 1, 2, 4, 8


@pytest.fixture(scope="module")
def program():
    """The UF2 of multicore_check, built here (or taken from the cache), or skip."""
    emulator_or_skip()
    try:
        return build_sdk_program(PROGRAM)
    except FirmwareError as exc:
        pytest.skip("the pico-sdk program cannot be built: %s" % exc)


@pytest.fixture(scope="module")
def program_run(program):
    return run_program(program, timeout=120)


@pytest.fixture(scope="module")
def report(program_run):
    """{check name: its printed values} of the run."""
    lines = program_run.output.replace("\r\n", "\n").splitlines()
    assert lines[0] == "start" and lines[-1] == "done", program_run.output
    return {line.split()[0]: line.split()[1:] for line in lines[1:-1]}


def test_the_program_runs_to_its_end_on_core_0(program_run):
    assert (program_run.reason, program_run.code, program_run.core) == ("breakpoint", 0, 0)


def test_multicore_launch_core1_starts_core_1_which_reads_cpuid_1(report):
    assert report["launch"] == ["0", "1"]


def test_fifo_ping_pong_in_both_directions(report):
    assert report["pingpong"] == [str(PINGPONG_ROUNDS)]


def test_a_spinlock_keeps_both_cores_increments(report):
    assert report["counter"] == [str(2 * INCREMENTS)]


def test_each_core_has_its_own_divider_and_interpolators(report):
    assert report["divider"] == ["0", "0"]
    assert report["interp"] == [str(3 * INTERP_POPS), str(5 * INTERP_POPS)]


def test_fifo_status_flags(report):
    idle, empty_read, cleared, full, overflow = (int(v, 16) for v in report["fifo_st"])
    assert idle == RDY
    assert empty_read == RDY | ROE
    assert cleared == RDY
    assert full == 0  # eight words unread: no room, nothing to read
    assert overflow == WOF
    assert not (overflow & VLD)


def test_sev_wakes_core_1_from_wfe_and_a_write_on_full_is_dropped(report):
    assert report["wfe"] == [str(sum(100 + i for i in range(FIFO_DEPTH)))]


def test_the_fifo_interrupt_reaches_core_1s_handler(report):
    sent = sum(i * i for i in range(1, IRQ_WORDS + 1))
    assert report["irq"] == [str(sent), str(sent), str(IRQ_WORDS), "1"]


def test_both_cores_ran_on_one_clock(program_run):
    assert program_run.core1_cycles > 100_000
    # neither core runs ahead of the clock by more than an instruction
    assert program_run.core1_cycles <= program_run.us * 125 + 4
    # core 0 ran all along, so the emulated time is its cycles (less the divider's extra
    # eight per division, which rp2040js counts without advancing the clock)
    assert program_run.cycles * 0.85 < program_run.us * 125 <= program_run.cycles


def test_a_missing_program_folder_is_named(tmp_path):
    with pytest.raises(FirmwareError, match=r"no CMakeLists\.txt") as caught:
        build_sdk_program(tmp_path)
    assert str(tmp_path) in str(caught.value)


def test_a_firmware_that_is_no_uf2_is_refused_before_anything_runs(tmp_path):
    bad = tmp_path / "other.uf2"
    bad.write_bytes(b"\0" * 512)
    with pytest.raises(EmulatorError, match=r"other\.uf2"):
        run_program(bad)


def test_a_run_stops_at_its_cycle_limit(program):
    run = run_program(program, max_cycles=200_000)
    assert run.reason == "limit" and run.code is None
    assert 200_000 <= run.us * 125 < 200_100  # stopped within an instruction of it
    assert "done" not in run.output
