"""Without the MLPerf Tiny reference models, the benchmarks that measure them exit with
status 2 and say where the models come from (instead of an empty table and status 0), and
the tests that need them skip with that same reason."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BENCHMARKS = ["flex_cortex_m.py", "bst_models.py", "flex_host.py", "rp2040_models.py"]


@pytest.mark.parametrize("script", BENCHMARKS)
def test_benchmark_without_models_fails_and_says_where_to_get_them(tmp_path, script):
    env = {**os.environ, "BURN_MODELS_DIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, str(REPO / "benchmarks" / script)], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stdout == ""
    assert "kws_ref_model.tflite" in proc.stderr and str(tmp_path) in proc.stderr
    assert "github.com/mlcommons/tiny" in proc.stderr and "BURN_MODELS_DIR" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_test_needing_a_model_skips_with_the_reason(tmp_path, monkeypatch):
    monkeypatch.setenv("BURN_MODELS_DIR", str(tmp_path))
    spec = importlib.util.spec_from_file_location("reference_models_probe",
                                                  REPO / "tests" / "reference_models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.MODELS == tmp_path
    with pytest.raises(pytest.skip.Exception) as skipped:
        module.model_path("kws_ref_model.tflite")
    reason = str(skipped.value)
    assert "kws_ref_model.tflite not found in %s" % tmp_path in reason
    assert "github.com/mlcommons/tiny" in reason
    (tmp_path / "kws_ref_model.tflite").write_bytes(b"x")
    assert module.model_path("kws_ref_model.tflite") == tmp_path / "kws_ref_model.tflite"
