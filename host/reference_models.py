"""Where the MLPerf Tiny reference models are, for the tests, the benchmarks and `burn
doctor`: `$BURN_MODELS_DIR`, by default `../shared/models` beside a source checkout. They
are not part of burn; docs/reference-models.md says where to get them."""

import os
from pathlib import Path

from burn.host import project_files

NAMES = ("kws_ref_model.tflite", "kws_ref_model_float32.tflite",
         "pretrainedResnet_quant.tflite", "pretrainedResnet.tflite")

ORIGIN = ("they are the trained models of the MLPerf Tiny benchmark, "
          "https://github.com/mlcommons/tiny (benchmark/training/keyword_spotting/"
          "trained_models and benchmark/training/image_classification/trained_models); "
          "put them in one folder and set BURN_MODELS_DIR to it (docs/reference-models.md)")


def models_dir():
    """The folder of the models: $BURN_MODELS_DIR, else ../shared/models beside the
    checkout; None for an installed burn without $BURN_MODELS_DIR."""
    chosen = os.environ.get("BURN_MODELS_DIR")
    if chosen:
        return Path(chosen)
    root = project_files.checkout_root()
    return root.parent / "shared" / "models" if root is not None else None


def missing(names, folder=None):
    """A sentence saying which of `names` are not in `folder` (default models_dir()) and
    how to get them, or '' when all are there."""
    folder = folder or models_dir()
    absent = [n for n in names if folder is None or not (folder / n).is_file()]
    if not absent:
        return ""
    where = folder if folder is not None else "any folder ($BURN_MODELS_DIR is not set)"
    return "reference model%s %s not found in %s: %s" % (
        "s" if len(absent) > 1 else "", ", ".join(absent), where, ORIGIN)
