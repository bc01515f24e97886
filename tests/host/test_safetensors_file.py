"""burn.nn state dicts in the safetensors format, against the real `safetensors` package: a
file the package writes loads into a model, a file burn writes reads back with the package
bit for bit, and a damaged file is a clear error."""

import os
import sys

import numpy as np
import pytest

import burn
from burn.host.convert import to_numpy, to_tensor
from burn.host.importers import safetensors_file

st_numpy = pytest.importorskip("safetensors.numpy", reason="pip install safetensors")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "scripts"))
import imported_models  # noqa: E402


def _outputs(model):
    x = np.random.default_rng(1).standard_normal((2, 1, 8, 8)).astype(np.float32)
    return to_numpy(model.eval()(to_tensor(x)))


def test_burn_writes_what_the_package_reads_bit_for_bit(tmp_path):
    burn.seed(3)
    model = imported_models.burn_cnn()
    path = tmp_path / "cnn.safetensors"
    n = safetensors_file.save(model, path, metadata={"source": "test"})
    assert n == path.stat().st_size
    read = st_numpy.load_file(str(path))
    assert sorted(read) == sorted(model.state_dict())
    for key, value in model.state_dict().items():
        np.testing.assert_array_equal(read[key], to_numpy(value))
    assert read["1.num_batches_tracked"].dtype == np.int32
    assert safetensors_file.read(path)[1] == {"source": "test"}


def test_a_file_the_package_wrote_loads_and_computes_the_same(tmp_path):
    burn.seed(4)
    source = imported_models.burn_cnn()
    state = {k: to_numpy(v) for k, v in source.state_dict().items()}
    state["1.running_var"] = np.linspace(0.5, 2, 4, dtype=np.float32)
    state["1.num_batches_tracked"] = np.array(7, dtype=np.int64)
    st_numpy.save_file(state, str(tmp_path / "w.safetensors"))
    source.load_state_dict({k: to_tensor(v) for k, v in state.items()})
    target = imported_models.burn_cnn()
    report = safetensors_file.load(target, tmp_path / "w.safetensors", strict=True)
    assert report.missing == [] and report.unexpected == [] and len(report.applied) == 11
    assert ("1.num_batches_tracked", "int64 -> int32") in report.adapted
    np.testing.assert_array_equal(_outputs(target), _outputs(source))


@pytest.mark.parametrize("damage", [lambda d: d[:len(d) // 2], lambda d: b"\xff" * 8 + d[8:],
                                    lambda d: d[:8] + b"[" + d[9:]])
def test_a_damaged_file_is_a_clear_error(tmp_path, damage):
    path = tmp_path / "m.safetensors"
    safetensors_file.save(imported_models.burn_mlp(), path)
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(safetensors_file.SafetensorsFileError, match="not a readable"):
        safetensors_file.load(imported_models.burn_mlp(), path)


def test_metadata_must_be_strings(tmp_path):
    with pytest.raises(ValueError, match="strings to strings"):
        safetensors_file.save(imported_models.burn_mlp(), tmp_path / "m.st", {"epoch": 3})
    assert not (tmp_path / "m.st").exists()
