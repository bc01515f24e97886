"""Run a bare-metal RP2040 program (a UF2 without MicroPython, such as a pico-sdk program) on
the emulated dual-core chip until it ends, and collect what it printed on UART0.

    run = run_program("multicore_check.uf2")
    print(run.output, run.reason, run.cycles, run.core1_cycles)

The program boots as on the emulated board (boot2 from flash on core 0, core 1 in the
bootrom), as fast as the host allows; see run_program.mjs for how a run ends.
"""

import json
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from burn.host import vendor
from burn.host.boards import load_board
from burn.host.emulator import flash_image
from burn.host.emulator.runtime import EmulatorError, ensure_rp2040js, find_node

RUNNER = Path(__file__).with_name("run_program.mjs")
DEFAULT_MAX_CYCLES = 2_000_000_000  # 16 s of emulated time at 125 MHz


@dataclass(frozen=True)
class ProgramRun:
    """How a run ended: `output` (UART0, decoded as UTF-8), `reason` ('breakpoint', 'asleep'
    with nothing left to wake either core, or 'limit'), the breakpoint's `code` and `core`
    (None otherwise), `cycles` (core 0's), `core1_cycles` and `us` of emulated time."""

    output: str
    reason: str
    code: int | None
    core: int | None
    cycles: int
    core1_cycles: int
    us: float


def run_program(firmware, max_cycles=DEFAULT_MAX_CYCLES, timeout=120.0, bootrom=None):
    """Run UF2 file `firmware` on an emulated RP2040 until it hits a breakpoint, both cores
    sleep for good, or `max_cycles` pass; EmulatorError when it cannot start, the emulator
    fails, or the run takes more than `timeout` seconds of wall time."""
    with tempfile.TemporaryDirectory(prefix="burn-program-") as folder:
        image = flash_image.prepare(Path(folder, "flash.img"), load_board("rp2040"), firmware)
        try:
            rom = vendor.bootrom(bootrom)
        except vendor.VendorError as exc:
            raise EmulatorError(str(exc)) from None
        node = find_node()
        index = ensure_rp2040js()
        argv = [node, str(RUNNER), str(index), str(rom), str(image), str(int(max_cycles))]
        try:
            proc = subprocess.run(argv, capture_output=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            raise EmulatorError("%s ran for more than %g s of wall time" % (firmware, timeout)) \
                from None
    said = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    try:
        result = json.loads(said[-1]) if said else {}
    except ValueError:
        result = {}
    if proc.returncode != 0 or result.get("event") != "exit":
        raise EmulatorError("the emulator failed running %s (exit status %d): %s"
                            % (firmware, proc.returncode, "\n".join(said[-20:]) or "no output"))
    return ProgramRun(proc.stdout.decode("utf-8", "replace"), result["reason"],
                      result.get("code"), result.get("core"), result["cycles"],
                      result["core1_cycles"], result["us"])
