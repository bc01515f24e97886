"""The `.bst` runtime on the MicroPython unix port picks the burnflex module when it can be
imported, else viper, and says which (`m.backend`); the outputs are the same bits. A
burnflex.mpy built for another architecture is named, with the board's, and skipped."""

import ast
import shutil
import sys
from pathlib import Path

import pytest
from test_burnflex import build, micropython

from burn.host.mpy import unix as mp_unix

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host"))
import flash_models

_RUN = """
import burn
from array import array
m = burn.load(%(model)r%(variant)s)
x = array('b', [((i * 37) %% 256) - 128 for i in range(%(n)d)])
print(repr((m.backend, list(m.run(x)), m.self_test())))
"""


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """A small int8 CNN exported by burn's quantizer (conv, pool, fully connected)."""
    return flash_models.small(tmp_path_factory.mktemp("model") / "small.bst")


def _run(folder, model, variant=None):
    code = _RUN % {"model": model, "n": 64,
                   "variant": "" if variant is None else ", variant=%r" % variant}
    proc = mp_unix.run_code(code, paths=[folder], heap="1m", binary=micropython())
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    lines = proc.stdout.strip().splitlines()
    return lines[:-1], ast.literal_eval(lines[-1])


def test_flex_then_viper_with_the_same_bits(tmp_path, model):
    with_flex = tmp_path / "flex"
    with_flex.mkdir()
    shutil.copy(build("x64"), with_flex / "burnflex.mpy")
    mp_unix.link_core(with_flex)
    without = tmp_path / "viper"
    without.mkdir()
    mp_unix.link_core(without)
    _said, (backend, flex_out, tests) = _run(with_flex, model)
    assert backend == "flex" and tests == 3
    _said, (backend, viper_out, _tests) = _run(without, model)
    assert backend == "viper"
    _said, (backend, plain_out, _tests) = _run(without, model, "plain")
    assert backend == "plain"
    assert flex_out == viper_out == plain_out


def test_a_module_for_another_architecture_is_named_and_skipped(tmp_path, model):
    mp_unix.link_core(tmp_path)
    shutil.copy(build("armv6m"), tmp_path / "burnflex.mpy")
    said, (backend, _out, tests) = _run(tmp_path, model)
    assert backend == "viper" and tests == 3
    assert said == ["burn: burnflex not used: burnflex.mpy is built for armv6m .mpy v6.3, "
                    "this board runs x64 .mpy v6.3"]
