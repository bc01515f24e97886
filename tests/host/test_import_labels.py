"""`burn import --labels` follows `burn export`'s rule (host/cli/labels_arg.py): a list with
commas, else a UTF-8 file of at most 1 MiB; anything else is a one-line error, no file."""

import pytest
from mlp_model import TINY_SIZES, mlp

import burn
from burn.host.cli import main as burn_main


@pytest.fixture
def model(tmp_path, monkeypatch):
    """A small int8 .tflite in tmp_path, the cwd."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.tflite").write_bytes(mlp(TINY_SIZES))
    return tmp_path


def _import(labels):
    return burn_main(["import", "m.tflite", "--tests", "0", "--labels", labels])


def test_a_file_and_a_list_give_the_same_names(model):
    (model / "labels.txt").write_text("yes\n\nno\n")
    assert _import("labels.txt") == 0
    assert burn.load("m.bst").info()["labels"] == ["yes", "no"]
    assert _import("yes, no") == 0
    assert burn.load("m.bst").info()["labels"] == ["yes", "no"]


@pytest.mark.parametrize("value, message", [
    ("missing.txt", "'missing.txt': no such file"),
    ("big.txt", "larger than 1 MiB"),
    ("latin1.txt", "not UTF-8"),
    ("a,,b", "an empty name"),
])
def test_bad_labels_are_one_line_errors_and_write_nothing(model, capsys, value, message):
    (model / "big.txt").write_bytes(b"x\n" * (1 << 19) + b"y")
    (model / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    capsys.readouterr()
    assert _import(value) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.splitlines()) == 1
    assert not (model / "m.bst").exists()
