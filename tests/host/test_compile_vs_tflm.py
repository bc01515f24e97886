"""benchmarks/compile_vs_tflm.py without its peer: no TFLM checkout, or one without the
third-party folders its sources include, stops it with status 2 and a line saying what is
missing (the measurement itself needs the checkouts and runs as a benchmark)."""

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "benchmarks" / "compile_vs_tflm.py"


def _run(args, env):
    env = {k: v for k, v in {**os.environ, **env}.items() if v is not None}
    return subprocess.run([sys.executable, str(SCRIPT)] + args, env=env, capture_output=True,
                          text=True, timeout=120, check=False)


def test_without_tflm_it_says_where_to_get_it():
    proc = _run([], {"BURN_TFLM": None})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stdout == ""
    assert "github.com/tensorflow/tflite-micro" in proc.stderr and "BURN_TFLM" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_checkout_without_its_downloads_is_refused(tmp_path):
    (tmp_path / "tensorflow" / "lite" / "micro").mkdir(parents=True)
    (tmp_path / "tensorflow" / "lite" / "micro" / "micro_interpreter.h").write_text("")
    proc = _run(["--tflm", str(tmp_path)], {})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "downloads/flatbuffers" in proc.stderr and "Traceback" not in proc.stderr
