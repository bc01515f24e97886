"""Checkpoints are data only: a pickled checkpoint that would run a command is refused by
`burn export` and by `Learner.fit(resume=True)`, and nothing runs; a checkpoint round trips
every kind of value the Learner stores; an old pickle converts through a loader that runs
nothing but numpy arrays and plain data."""

import collections
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

from burn.host.train import checkpoint

FACTORY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scripts", "train_digits.py")


class _Evil:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, ("touch %s" % self.marker,))


def _evil_checkpoint(folder, marker):
    path = folder / "best.ckpt"
    path.write_bytes(pickle.dumps({"model": _Evil(str(marker))}))
    return path


def test_export_refuses_a_pickle_and_runs_nothing(tmp_path):
    marker = tmp_path / "pwned"
    _evil_checkpoint(tmp_path, marker)
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from burn.host.cli import main; sys.exit(main())",
         "export", str(tmp_path), "--model", "%s:build" % FACTORY, "-o",
         str(tmp_path / "m.bst"), "--calibration", "digits"],
        capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "pickle" in proc.stderr and "--trust" in proc.stderr
    assert not marker.exists()


def test_resume_refuses_a_pickle_and_runs_nothing(tmp_path):
    marker = tmp_path / "pwned"
    path = _evil_checkpoint(tmp_path, marker)
    os.replace(path, checkpoint.CheckpointDir(str(tmp_path)).path(1))
    assert checkpoint.CheckpointDir(str(tmp_path)).latest() is None  # skipped as unreadable
    with pytest.raises(ValueError, match="pickle"):
        checkpoint.read(checkpoint.CheckpointDir(str(tmp_path)).path(1))
    assert not marker.exists()


def test_round_trip_keeps_every_value():
    payload = {"model": {"0.weight": np.arange(6, dtype=np.float32).reshape(2, 3),
                         "1.num_batches_tracked": np.array(7)},
               "optimizer": {"lr": 0.1, "options": {"betas": (0.9, 0.999)}, "steps": 3,
                             "state": {0: {"m": np.ones(2), "t": np.float32(2.5)}}},
               "history": [{"loss": float("nan"), "acc": 1.0}], "best_score": None}
    back = checkpoint.decode(checkpoint.encode(payload))
    assert back["model"]["0.weight"].dtype == np.float32
    assert back["model"]["1.num_batches_tracked"].shape == ()
    assert back["optimizer"]["state"][0]["t"] == 2.5 and 0 in back["optimizer"]["state"]
    assert back["optimizer"]["options"]["betas"] == [0.9, 0.999]
    assert np.isnan(back["history"][0]["loss"]) and back["best_score"] is None


def test_a_trusted_pickle_converts(tmp_path):
    old = tmp_path / "old.ckpt"
    old.write_bytes(pickle.dumps({"model": {"w": np.ones(3)}, "epoch": 2}))
    assert checkpoint.main(["--trust", str(old)]) == 0
    assert checkpoint.read(str(old))["epoch"] == 2
    assert checkpoint.main([str(old)]) == 2  # without --trust: usage, nothing loaded


@pytest.mark.parametrize("protocol", [2, 4])
def test_old_pickles_convert_with_arrays_scalars_and_ordered_dicts(tmp_path, protocol):
    old = tmp_path / "old.ckpt"
    weights = np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    payload = {"model": collections.OrderedDict(w=weights), "steps": np.int64(7),
               "lr": np.float32(0.5), "history": [{"loss": 1.5}]}
    old.write_bytes(pickle.dumps(payload, protocol=protocol))
    assert checkpoint.main(["--trust", str(old)]) == 0
    back = checkpoint.read(str(old))
    assert np.array_equal(back["model"]["w"], weights) and back["model"]["w"].dtype == np.float32
    assert back["steps"] == 7 and back["lr"] == 0.5 and back["history"] == [{"loss": 1.5}]


@pytest.mark.parametrize("hostile", ["command", "object array"])
def test_converting_a_hostile_pickle_runs_nothing(tmp_path, capsys, hostile):
    marker = tmp_path / "ran"
    old = _evil_checkpoint(tmp_path, marker)
    if hostile == "object array":
        old.write_bytes(pickle.dumps({"model": np.array([1, "x"], dtype=object)}))
    assert checkpoint.main(["--trust", str(old)]) == 1
    assert "refused" in capsys.readouterr().err
    assert not marker.exists()
    assert old.read_bytes()[:1] == b"\x80"  # left as it was


@pytest.mark.parametrize("seed", range(3))
def test_mangled_checkpoints_give_value_errors(tmp_path, seed):
    data = bytearray(checkpoint.encode({"model": {"w": np.ones(50)}}))
    rng = np.random.default_rng(seed)
    for _ in range(60):
        copy = bytearray(data)
        copy[int(rng.integers(len(copy)))] ^= 1 << int(rng.integers(8))
        cut = bytes(copy[:int(rng.integers(1, len(copy) + 1))])
        for blob in (bytes(copy), cut):
            try:
                checkpoint.decode(blob)
            except ValueError:
                pass
