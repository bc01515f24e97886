"""The MLPerf Tiny reference models for tests: found as the benchmarks find them
(benchmarks/model_files.py: $BURN_MODELS_DIR, by default ../shared/models beside the
repository). A test that needs one is skipped when it is absent, with the reason and where
to get it."""

import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("burn_bench_model_files",
                                               REPO / "benchmarks" / "model_files.py")
_files = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_files)
MODELS = _files.MODELS_DIR


def model_path(name):
    """Path of reference model `name`, or skip the calling test with the reason."""
    problem = _files.missing([name])
    if problem:
        pytest.skip(problem)
    return MODELS / name
