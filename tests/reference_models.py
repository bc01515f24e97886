"""The MLPerf Tiny reference models for tests: found as the benchmarks and `burn doctor`
find them (burn.host.reference_models: $BURN_MODELS_DIR, by default ../shared/models beside
the repository). A test that needs one is skipped when it is absent, with the reason and
where to get it."""

import pytest

from burn.host.reference_models import missing, models_dir

MODELS = models_dir()


def model_path(name):
    """Path of reference model `name`, or skip the calling test with the reason."""
    problem = missing([name], MODELS)
    if problem:
        pytest.skip(problem)
    return MODELS / name
