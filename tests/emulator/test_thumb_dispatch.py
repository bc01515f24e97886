"""The emulator's instruction table (host/emulator/thumb_dispatch.mjs) against rp2040js's own
step: every 16-bit opcode it runs itself, from random states, on two chips in Node.js."""

import json
import subprocess
from pathlib import Path

import pytest
from emulator_support import emulator_or_skip

import burn.host.emulator
from burn.host.emulator.runtime import ensure_rp2040js, find_node

HERE = Path(__file__).parent
DISPATCH = Path(burn.host.emulator.__file__).parent / "thumb_dispatch.mjs"


@pytest.mark.parametrize("seed", [7, 1234])
def test_every_opcode_it_runs_matches_rp2040js(seed):
    emulator_or_skip()
    proc = subprocess.run(
        [find_node(), str(HERE / "thumb_dispatch_check.mjs"), str(ensure_rp2040js()),
         str(DISPATCH), "3", str(seed)],
        capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["mismatches"] == []
    # The common instructions (all but system ones, hints and the rarer shifts) are its own.
    assert result["opcodes"] > 55000
    assert result["steps"] == 3 * result["opcodes"]
