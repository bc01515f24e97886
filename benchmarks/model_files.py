"""Where the MLPerf Tiny reference models are, for the benchmarks that measure them:
burn.host.reference_models finds them (`$BURN_MODELS_DIR`, by default `../shared/models`
beside the repository). See docs/reference-models.md for where to get them."""

import os
import sys

from burn.host.reference_models import missing, models_dir

MODELS_DIR = models_dir()

__all__ = ["MODELS_DIR", "missing", "require"]


def require(names):
    """The paths of reference models `names`; when any is absent the benchmark has nothing
    (or only part) to measure: say so on stderr and exit with status 2."""
    problem = missing(names, MODELS_DIR)
    if problem:
        print("%s: %s" % (os.path.basename(sys.argv[0]), problem), file=sys.stderr)
        sys.exit(2)
    return [MODELS_DIR / n for n in names]
