"""Seeded mutation fuzz of `burn import` (tests/importer_fuzz.py), in a child process so a
crash cannot take pytest down: every mutated file ends with a .bst that burn.load accepts
or one clean error line, never a traceback, a hang or a crash."""

from importer_fuzz import fuzz, fuzz_model
from tflite_models import small_cnn


def _check(model, cases, seed, tflm_every):
    counts, bad = fuzz(model, cases, seed=seed, tflm_every=tflm_every, case_timeout=60)
    assert bad == [], bad
    assert counts["bst"] + counts["error"] == cases
    assert counts["bst"] > 0 and counts["error"] > 0  # the mutations reach both ends
    return counts


def test_mutated_reference_model_imports_cleanly(tmp_path):
    # The KWS reference model when present, else a builder-made CNN: it never skips.
    _check(fuzz_model(tmp_path), 200, seed=14, tflm_every=25)


def test_mutated_builder_model_imports_cleanly(tmp_path):
    path = tmp_path / "small_cnn.tflite"
    path.write_bytes(small_cnn())
    _check(path, 60, seed=15, tflm_every=30)
