"""`burn run`: the runtimes to choose from (bst_runtime's, shared with burn-flash's host
self-test) and inputs of the wrong shape, dtype or file."""

import ast
import os
import sys

import numpy as np
import pytest

import burn
from burn.host import bst_runtime
from burn.host.cli import main as burn_main

sys.path.insert(0, os.path.dirname(__file__))
import flash_models


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return flash_models.small(tmp_path_factory.mktemp("run") / "small.bst")


@pytest.fixture(scope="module")
def x(tmp_path_factory):
    values = np.array([((i * 37) % 256) - 128 for i in range(64)], np.int8).reshape(1, 8, 8, 1)
    path = tmp_path_factory.mktemp("inputs") / "x.npy"
    np.save(path, values)
    return values, str(path)


def _outputs(capsys):
    return ast.literal_eval(capsys.readouterr().out.splitlines()[0])


def test_every_runtime_gives_the_same_output(model, x, capsys):
    values, path = x
    expected = burn.load(model, variant="plain")(values).tolist()
    for runtime in bst_runtime.RUNTIMES:
        if runtime == "flex" and not bst_runtime.flex_available():
            assert burn_main(["run", model, "--input", path, "--backend", "flex"]) == 1
            assert "burn._flex" in capsys.readouterr().err
            continue
        assert burn_main(["run", model, "--input", path, "--backend", runtime,
                          "--self-test"]) == 0
        out = capsys.readouterr().out
        assert "self-test: 3 reference tests passed" in out
        assert ast.literal_eval(out.splitlines()[1]) == expected, runtime


def test_backend_choices_are_the_runtimes(capsys):
    with pytest.raises(SystemExit):
        burn_main(["run", "m.bst", "--backend", "viper"])
    err = capsys.readouterr().err
    assert "choose from %s" % ", ".join("'%s'" % r for r in bst_runtime.RUNTIMES) in err


def test_flex_is_the_default_where_it_is_built(model):
    loaded = bst_runtime.load(model)
    assert bst_runtime.runtime_of(loaded) == ("flex" if bst_runtime.flex_available()
                                              else "pure")
    assert bst_runtime.runtime_of(bst_runtime.load(model, "pure")) == "pure"


@pytest.mark.parametrize("array, reason", [
    (np.zeros((1, 64), np.int8), "has shape (1, 64); the model takes (1, 8, 8, 1)"),
    (np.zeros((1, 8, 1, 8), np.int8), "has shape (1, 8, 1, 8); the model takes (1, 8, 8, 1)"),
    (np.zeros((1, 8, 8, 1), np.float32), "is float32; the model takes int8"),
])
def test_a_wrong_input_is_refused(model, tmp_path, capsys, array, reason):
    path = tmp_path / "wrong.npy"
    np.save(path, array)
    assert burn_main(["run", model, "--input", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("burn run: ") and reason in err and "Traceback" not in err


def test_an_input_that_is_no_array_is_refused(model, tmp_path, capsys):
    path = tmp_path / "text.npy"
    path.write_text("not an array")
    assert burn_main(["run", model, "--input", str(path)]) == 1
    assert "cannot read the input" in capsys.readouterr().err
