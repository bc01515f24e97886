"""Where the MLPerf Tiny reference models are, for the benchmarks and the tests that need
them: `$BURN_MODELS_DIR`, by default `../shared/models` beside the repository. See
docs/reference-models.md for where to get them."""

import os
import sys
from pathlib import Path

MODELS_DIR = Path(os.environ.get("BURN_MODELS_DIR")
                  or Path(__file__).resolve().parents[2] / "shared" / "models")

ORIGIN = ("they are the trained models of the MLPerf Tiny benchmark, "
          "https://github.com/mlcommons/tiny (benchmark/training/keyword_spotting/"
          "trained_models and benchmark/training/image_classification/trained_models); "
          "put them in one folder and set BURN_MODELS_DIR to it (docs/reference-models.md)")


def missing(names):
    """A sentence saying which of `names` are not in MODELS_DIR and how to get them, or ''
    when all are there."""
    absent = [n for n in names if not (MODELS_DIR / n).is_file()]
    if not absent:
        return ""
    return "reference model%s %s not found in %s: %s" % (
        "s" if len(absent) > 1 else "", ", ".join(absent), MODELS_DIR, ORIGIN)


def require(names):
    """The paths of reference models `names`; when any is absent the benchmark has nothing
    (or only part) to measure: say so on stderr and exit with status 2."""
    problem = missing(names)
    if problem:
        print("%s: %s" % (os.path.basename(sys.argv[0]), problem), file=sys.stderr)
        sys.exit(2)
    return [MODELS_DIR / n for n in names]
