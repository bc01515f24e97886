"""Where the MLPerf Tiny reference models are: $BURN_MODELS_DIR, by default ../shared/models
beside the repository. Tests that need one skip with the reason when it is absent."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
MODELS = Path(os.environ.get("BURN_MODELS_DIR", REPO.parent / "shared" / "models"))


def model_path(name):
    """Path of reference model `name`, or skip the calling test with a clear reason."""
    path = MODELS / name
    if not path.is_file():
        pytest.skip("reference model %s not found (set BURN_MODELS_DIR)" % path)
    return path
