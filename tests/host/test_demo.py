"""examples/demo.py, the README's first command, runs and its two interpreters agree."""

import importlib.util
import math
import re
import subprocess
import sys
from pathlib import Path

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo.py"


def load_demo():
    spec = importlib.util.spec_from_file_location("demo", DEMO)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_demo_outputs_agree():
    proc = subprocess.run([sys.executable, str(DEMO)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "the outputs agree" in proc.stdout
    rows = {}
    for line in proc.stdout.splitlines():
        found = re.match(r"(CPython|MicroPython) .*\[(.*)\]$", line)
        if found:
            rows[found.group(1)] = [float(v) for v in found.group(2).split(",")]
    expected = load_demo().run_model()[0]
    assert math.isclose(sum(expected), 1.0, rel_tol=1e-5)
    for name in ("CPython", "MicroPython"):
        assert len(rows[name]) == len(expected) == 3
        assert all(abs(a - b) <= 1e-6 for a, b in zip(rows[name], expected))
