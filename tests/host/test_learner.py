"""The Learner end to end: accuracy on digits, checkpoints that survive SIGKILL, resume
that repeats an uninterrupted run bit for bit (Dropout and shuffling included), the NaN
guard, early stopping, the dashboard in a pseudo-terminal, and `burn plot`."""

import fcntl
import os
import pty
import random
import select
import signal
import struct
import subprocess
import sys
import termios
import time

import numpy as np

import burn
from burn.host.autodiff import autodiff_device
from burn.host.data import DataLoader, load_digits, random_split
from burn.host.train import checkpoint, log
from burn.host.train.learner import Learner, predict
from burn.host.train.optim import Adam

SCRIPT = os.path.join(os.path.dirname(__file__), "scripts", "train_digits.py")
sys.path.insert(0, os.path.dirname(SCRIPT))
from train_digits import build  # noqa: E402


def _run(args, timeout=120):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                          timeout=timeout)


def test_digits_cnn_reaches_97_percent(tmp_path):
    t0 = time.monotonic()
    dev = autodiff_device("numpy")
    burn.seed(0)
    model = build("cnn").to(dev)
    train, valid = random_split(load_digits(), [0.8, 0.2])
    learner = Learner(model, Adam(model.parameters(), lr=3e-3), run_dir=str(tmp_path),
                      dashboard="plain", monitor="valid_accuracy", mode="max")
    result = learner.fit(DataLoader(train, 32, shuffle=True, device=dev),
                         DataLoader(valid, 512, device=dev), epochs=6)
    assert result.stop_reason == "completed"
    assert result.best("valid_accuracy")["valid_accuracy"] >= 0.97
    assert time.monotonic() - t0 < 60
    # best.ckpt holds the best epoch and reloads into a fresh model with the same outputs
    fresh = build("cnn").to(dev)
    checkpoint.load_model_state(fresh, checkpoint.CheckpointDir(str(tmp_path)).best()["model"])
    loader = DataLoader(valid, 512, device=dev)
    acc = float((predict(fresh, loader) == valid.batch(np.arange(len(valid)))[1]).mean())
    assert acc == result.best("valid_accuracy")["valid_accuracy"]
    assert [r["epoch"] for r in log.read(str(tmp_path))] == [1, 2, 3, 4, 5, 6]


def test_sigkill_at_random_moments_then_resume(tmp_path):
    run_dir = str(tmp_path / "run")
    rng = random.Random(7)
    for _ in range(3):
        proc = subprocess.Popen([sys.executable, SCRIPT, run_dir, "40", "plain"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(2.0, 5.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        store = checkpoint.CheckpointDir(run_dir)
        payload = store.latest()
        if payload is not None:
            checkpoint.load_model_state(build("mlp"), payload["model"])
            assert [r["epoch"] for r in log.read(run_dir)] == \
                list(range(1, len(log.read(run_dir)) + 1))
    done = _run([run_dir, "40", "plain"], timeout=300)
    assert done.returncode == 0, done.stderr
    assert "RESULT completed" in done.stdout
    rows = log.read(run_dir)
    assert [r["epoch"] for r in rows] == list(range(1, 41))
    assert not [f for f in os.listdir(run_dir) if f.endswith(".tmp")]
    assert len(checkpoint.CheckpointDir(run_dir).epochs()) == 3


def _metrics(run_dir):
    return [{k: v for k, v in row.items() if k != "time"} for row in log.read(run_dir)]


def _same_values(a, b):
    """Whether two checkpoint payload parts are equal, arrays bit for bit with their dtype."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and \
            all(_same_values(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and \
            all(map(_same_values, a, b))
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and \
            a.tobytes() == b.tobytes() and a.shape == b.shape
    return a == b and type(a) is type(b)


def test_sigkill_after_an_epoch_then_resume_repeats_the_uninterrupted_run(tmp_path):
    """Dropout masks come from burn's stream, the inputs' noise from numpy's, the order
    from the loader's shuffle: all three continue where the killed run was."""
    epochs, kill_after = 5, 2
    whole, cut = str(tmp_path / "whole"), str(tmp_path / "cut")
    args = [str(epochs), "plain", "--model", "dropout", "--noise"]
    assert _run([whole, *args]).returncode == 0
    proc = subprocess.Popen([sys.executable, "-u", SCRIPT, cut, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    for line in proc.stdout:  # the epoch line comes after that epoch's checkpoint
        if line.startswith("epoch %d/%d  lr" % (kill_after, epochs)):
            proc.send_signal(signal.SIGKILL)
            break
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    resumed = _run([cut, *args])
    assert resumed.returncode == 0, resumed.stderr
    start = int(resumed.stdout.split("resumed from epoch ")[1].split()[0])
    assert kill_after <= start < epochs
    assert _metrics(cut) == _metrics(whole) and len(_metrics(whole)) == epochs
    final = [checkpoint.CheckpointDir(run).latest() for run in (whole, cut)]
    assert final[0]["epoch"] == final[1]["epoch"] == epochs
    for part in ("model", "optimizer", "rng", "best_score"):
        assert _same_values(final[0][part], final[1][part]), part


def test_nan_guard_keeps_last_good_checkpoint(tmp_path):
    out = _run([str(tmp_path), "5", "plain", "--lr", "1e9", "--sgd"])
    assert out.returncode == 0, out.stderr
    assert "training stopped: the loss became" in out.stdout
    assert "RESULT diverged" in out.stdout
    store = checkpoint.CheckpointDir(str(tmp_path))
    for epoch in store.epochs():
        state = store.latest()["model"]
        assert all(np.isfinite(v).all() for v in state.values()), epoch


def test_early_stopping(tmp_path):
    out = _run([str(tmp_path), "30", "plain", "--lr", "1e-7", "--patience", "2", "--sgd"])
    assert out.returncode == 0, out.stderr
    assert "early stopping" in out.stdout
    assert int(out.stdout.split("RESULT early_stopping ")[1].split()[0]) < 30


def _read_until(fd, needle, timeout):
    buf = b""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            buf += chunk
            if needle in buf:
                return buf
    raise AssertionError("did not see %r; got tail %r" % (needle, buf[-800:]))


def test_dashboard_in_a_pseudo_terminal(tmp_path):
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(sys.executable, [sys.executable, SCRIPT, str(tmp_path), "200", "live"])
    try:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 120, 0, 0))
        screen = _read_until(fd, "valid_accuracy".encode(), 90)
        screen += _read_until(fd, "loss  (metric 1/2".encode(), 30)
        assert any(0x2801 <= ord(c) <= 0x28FF for c in screen.decode("utf-8", "replace"))
        os.write(fd, b"\x1b[C")
        _read_until(fd, "accuracy  (metric 2/2".encode(), 30)
        os.write(fd, b"q")
        _read_until(fd, b"checkpoint written", 60)
        _, status = os.waitpid(pid, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(fd)
    store = checkpoint.CheckpointDir(str(tmp_path))
    assert store.epochs(), "a checkpoint was written before stopping"
    assert len(log.read(str(tmp_path))) < 200


def test_burn_plot_writes_pngs(tmp_path):
    out = _run([str(tmp_path), "2", "plain"])
    assert out.returncode == 0, out.stderr
    from burn.host.cli import main

    assert main(["plot", str(tmp_path), "-o", str(tmp_path / "png")]) == 0
    for name in ("loss.png", "accuracy.png"):
        data = (tmp_path / "png" / name).read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 2000
    assert main(["plot", str(tmp_path / "missing")]) == 1
