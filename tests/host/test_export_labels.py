"""`burn export --labels`: a value with a comma is the list of names, one without is a file
of names; a missing file, an empty name and a value that is both are errors, not labels."""

import pytest

import burn
from burn import nn
from burn.host.cli import main as burn_main
from burn.host.train import checkpoint as ckpt

FACTORY = """from burn import nn

def mlp():
    return nn.Sequential(nn.Linear(4, 3))
"""


@pytest.fixture
def trained(tmp_path, monkeypatch):
    """A checkpoint of a 4->3 Linear and its factory, with tmp_path as the cwd."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mymodels.py").write_text(FACTORY)
    ckpt.write_atomic(str(tmp_path / "best.ckpt"),
                      {"model": ckpt.model_state(nn.Sequential(nn.Linear(4, 3)))})
    return tmp_path


def _export(labels):
    return burn_main(["export", "best.ckpt", "--model", "mymodels.py:mlp", "-o", "m.bst",
                      "--float", "--input-shape", "4", "--labels", labels])


def test_a_comma_separated_list(trained):
    assert _export("cat, dog,bird") == 0
    assert burn.load("m.bst").info()["labels"] == ["cat", "dog", "bird"]


def test_a_file_of_names(trained):
    (trained / "labels.txt").write_text("cat\n\ndog\nbird\n")
    assert _export("labels.txt") == 0
    assert burn.load("m.bst").info()["labels"] == ["cat", "dog", "bird"]


@pytest.mark.parametrize("value, message", [
    ("missing.txt", "'missing.txt': no such file (a list of names needs commas"),
    ("cat,,dog", "an empty name"),
    ("a,b.txt", "both a comma-separated list and an existing file"),
    ("empty.txt", "holds no names"),
    ("latin1.txt", "not UTF-8"),
])
def test_bad_labels_are_one_line_errors_and_write_nothing(trained, capsys, value, message):
    (trained / "a,b.txt").write_text("x\n")
    (trained / "empty.txt").write_text("\n\n")
    (trained / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    capsys.readouterr()
    assert _export(value) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (trained / "m.bst").exists()


def test_help_explains_the_two_forms(capsys):
    with pytest.raises(SystemExit):
        burn_main(["export", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "comma-separated list" in out and "one name per line" in out
