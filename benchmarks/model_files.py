"""Where the MLPerf Tiny reference models are, for the benchmarks that measure them:
burn.host.reference_models finds them (`$BURN_MODELS_DIR`, by default `../shared/models`
beside the repository). See docs/reference-models.md for where to get them. TFLM's own
example models come from its checkout, `$BURN_TFLM` (tflm_model)."""

import os
import sys
from pathlib import Path

from burn.host.reference_models import missing, models_dir

MODELS_DIR = models_dir()

PERSON_DETECT = "tensorflow/lite/micro/models/person_detect.tflite"

__all__ = ["MODELS_DIR", "PERSON_DETECT", "missing", "require", "tflm_model"]


def require(names):
    """The paths of reference models `names`; when any is absent the benchmark has nothing
    (or only part) to measure: say so on stderr and exit with status 2."""
    problem = missing(names, MODELS_DIR)
    if problem:
        print("%s: %s" % (os.path.basename(sys.argv[0]), problem), file=sys.stderr)
        sys.exit(2)
    return [MODELS_DIR / n for n in names]


def tflm_model(relative):
    """(path, "") of the model file at `relative` inside the TFLM checkout named by
    $BURN_TFLM, or (None, why it is not there)."""
    root = os.environ.get("BURN_TFLM")
    if not root:
        return None, "$BURN_TFLM is not set (a tflite-micro checkout holds %s)" % relative
    path = Path(root) / relative
    if not path.is_file():
        return None, "%s is not in $BURN_TFLM (%s)" % (relative, root)
    return path, ""
