"""Why a fit ended, and resuming from a run folder whose checkpoints cannot be read: the
Learner says "completed" when every epoch ran, and refuses (rather than silently
restarting and duplicating epochs in metrics.jsonl) when no checkpoint is readable; a
checkpoint of an older burn, without random-number state, resumes with a warning."""

import os

import numpy as np
import pytest

import burn
from burn import nn
from burn.host.autodiff import autodiff_device
from burn.host.data import DataLoader, Subset, load_digits
from burn.host.train import checkpoint, log
from burn.host.train.learner import Learner
from burn.host.train.optim import SGD

DEV = autodiff_device("numpy")


def _fit(run_dir, epochs, patience=None, resume=False, lr=1e-12):
    """A tiny MLP on 64 digits; an lr of 1e-12 changes no float32 weight, so patience
    counts every epoch."""
    burn.seed(0)
    model = nn.Sequential(nn.Flatten(), nn.Linear(64, 10)).to(DEV)
    data = Subset(load_digits(), list(range(64)))
    learner = Learner(model, SGD(model.parameters(), lr=lr), run_dir=run_dir,
                      dashboard="plain", patience=patience)
    loader = DataLoader(data, 32, device=DEV)
    return learner.fit(loader, loader, epochs=epochs, resume=resume)


def test_patience_reached_in_the_last_epoch_is_completion(capsys):
    result = _fit(None, epochs=2, patience=1)
    out = capsys.readouterr().out
    assert result.stop_reason == "completed" and len(result.history) == 2
    assert "early stopping" not in out and "completed: all 2 epochs ran" in out


def test_patience_reached_earlier_is_early_stopping(capsys):
    result = _fit(None, epochs=4, patience=1)
    assert result.stop_reason == "early_stopping" and len(result.history) == 2
    assert "early stopping: valid_loss did not improve for 1 epochs" in capsys.readouterr().out


def test_resume_refuses_when_every_checkpoint_is_unreadable(tmp_path):
    run = str(tmp_path)
    _fit(run, epochs=2)
    for name in ("epoch-0001.ckpt", "epoch-0002.ckpt"):
        (tmp_path / name).write_bytes(b"not a checkpoint")
    before = (tmp_path / log.JSONL).read_bytes()
    with pytest.raises(ValueError) as err:
        _fit(run, epochs=4, resume=True)
    message = str(err.value)
    assert "cannot resume" in message and "resume=False" in message
    assert "epoch-0001.ckpt" in message and "epoch-0002.ckpt" in message
    assert (tmp_path / log.JSONL).read_bytes() == before  # nothing changed
    result = _fit(run, epochs=3)  # the documented way to start again
    assert [r["epoch"] for r in log.read(run)] == [1, 2, 3] == \
        [r["epoch"] for r in result.history]


def test_resume_skips_an_unreadable_newest_checkpoint(tmp_path, capsys):
    run = str(tmp_path)
    _fit(run, epochs=2)
    (tmp_path / "epoch-0002.ckpt").write_bytes(b"garbage")
    _fit(run, epochs=3, resume=True)
    out = capsys.readouterr().out
    assert "skipped" in out and "epoch-0002.ckpt" in out and "resumed from epoch 1" in out
    assert [r["epoch"] for r in log.read(run)] == [1, 2, 3]


def test_resume_without_checkpoints_starts_afresh_without_duplicates(tmp_path):
    run = str(tmp_path)
    _fit(run, epochs=2)
    for name in os.listdir(run):
        if name.endswith(".ckpt"):
            os.unlink(os.path.join(run, name))
    _fit(run, epochs=2, resume=True)
    assert [r["epoch"] for r in log.read(run)] == [1, 2]


def _rewrite_newest(run, change):
    """Rewrite the newest checkpoint of `run` with `change(payload)` applied."""
    store = checkpoint.CheckpointDir(run)
    path = store.path(store.epochs()[-1])
    payload = checkpoint.read(path)
    change(payload)
    checkpoint.write_atomic(path, payload)


def test_a_checkpoint_without_random_state_resumes_with_a_warning(tmp_path, capsys):
    run = str(tmp_path)
    _fit(run, epochs=2)
    assert checkpoint.CheckpointDir(run).latest()["rng"]["burn"] == burn.random.get_state()
    _rewrite_newest(run, lambda payload: payload.pop("rng"))  # as an older burn wrote it
    capsys.readouterr()
    result = _fit(run, epochs=3, resume=True)
    out = capsys.readouterr().out
    assert "warning: the checkpoint of epoch 2 holds no random-number state" in out
    assert "resumed from epoch 2" in out and result.stop_reason == "completed"
    assert [r["epoch"] for r in log.read(run)] == [1, 2, 3]


def test_a_damaged_random_state_is_refused_by_name(tmp_path):
    run = str(tmp_path)
    _fit(run, epochs=1)
    _rewrite_newest(run, lambda p: p["rng"].update(burn=0))
    with pytest.raises(ValueError, match="set_state: expected a state from get_state"):
        _fit(run, epochs=2, resume=True)
    _rewrite_newest(run, lambda p: p["rng"]["numpy"]["state"].update(key=np.zeros(3)))
    with pytest.raises(ValueError, match="numpy random state is not one"):
        _fit(run, epochs=2, resume=True)
