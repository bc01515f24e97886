"""Atomic writes give files the mode a plain open() would: 0666 minus the umask for a new
file, the old mode for a replaced one (a temporary file from mkstemp alone is 0600); the
temporary file of a writer killed mid-write is removed when its folder is used again."""

import os
import signal
import stat
import subprocess
import sys

import numpy as np
import pytest

from burn import nn
from burn.host.atomic import remove_stale_temporaries, write_bytes_atomic, write_text_atomic
from burn.host.export import export_bst
from burn.host.train.checkpoint import CheckpointDir


@pytest.fixture
def umask_027():
    old = os.umask(0o027)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_new_file_gets_0666_minus_umask(tmp_path, umask_027):
    path = tmp_path / "a.bin"
    write_bytes_atomic(str(path), b"x")
    assert _mode(path) == 0o640
    os.umask(0o022)
    write_text_atomic(str(tmp_path / "b.txt"), "y")
    assert _mode(tmp_path / "b.txt") == 0o644


def test_replaced_file_keeps_its_mode(tmp_path, umask_027):
    path = tmp_path / "a.bin"
    path.write_bytes(b"old")
    os.chmod(path, 0o604)
    write_bytes_atomic(str(path), b"new")
    assert path.read_bytes() == b"new" and _mode(path) == 0o604


def test_exported_bst_is_world_readable_under_umask_022(tmp_path):
    old = os.umask(0o022)
    try:
        model = nn.Sequential(nn.Linear(4, 3))
        path = tmp_path / "m.bst"
        export_bst(model, str(path), calibration=np.zeros((2, 4), np.float32),
                   dtype="float32", tests=0)
    finally:
        os.umask(old)
    assert _mode(path) == 0o644
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_stale_temporaries_of_ended_writers_are_removed_and_live_ones_kept(tmp_path):
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    stale = tmp_path / (".burn-%d-abc.tmp" % ended.pid)
    live = tmp_path / (".burn-%d-def.tmp" % os.getpid())
    other = tmp_path / ".burn-notes.tmp"
    for path in (stale, live, other):
        path.write_bytes(b"partial")
    CheckpointDir(str(tmp_path))  # a resumed run's checkpoint folder
    assert not stale.exists() and live.exists() and other.exists()
    assert remove_stale_temporaries(str(tmp_path)) == []


def test_a_killed_write_leaves_a_temporary_that_names_its_writer(tmp_path):
    child = subprocess.run([sys.executable, "-c", (
        "import os, signal\n"
        "from burn.host import atomic\n"
        "os.fsync = lambda fd: os.kill(os.getpid(), signal.SIGKILL)\n"
        "atomic.write_bytes_atomic(%r, b'data')\n") % str(tmp_path / "model.bst")])
    assert child.returncode == -signal.SIGKILL
    left = os.listdir(tmp_path)
    assert len(left) == 1 and left[0].startswith(".burn-") and left[0].endswith(".tmp")
    assert remove_stale_temporaries(str(tmp_path)) == left
    assert os.listdir(tmp_path) == []
