"""`burn demo`, the README's first command, trains, flashes and evaluates on a virtual board;
examples/demo.py runs and its two interpreters agree."""

import importlib.util
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

import burn
from burn.host import mpy
from burn.host.cache import cache_dir
from burn.host.data import load_digits, random_split
from burn.host.deploy.board_software import REMOTE_NATMOD, BoardSoftware
from burn.host.export import nhwc, quantize_input

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo.py"


def load_demo():
    spec = importlib.util.spec_from_file_location("demo", DEMO)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_demo_outputs_agree():
    proc = subprocess.run([sys.executable, str(DEMO)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "the outputs agree" in proc.stdout
    rows = {}
    for line in proc.stdout.splitlines():
        found = re.match(r"(CPython|MicroPython) .*\[(.*)\]$", line)
        if found:
            rows[found.group(1)] = [float(v) for v in found.group(2).split(",")]
    expected = load_demo().run_model()[0]
    assert math.isclose(sum(expected), 1.0, rel_tol=1e-5)
    for name in ("CPython", "MicroPython"):
        assert len(rows[name]) == len(expected) == 3
        assert all(abs(a - b) <= 1e-6 for a, b in zip(rows[name], expected))


def test_burn_demo_device_matches_host(tmp_path):
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from burn.host.cli import main; sys.exit(main())",
         "demo", "--epochs", "2", "--virtual"],
        capture_output=True, text=True, timeout=300, check=False, cwd=cwd)
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    # without --out nothing lands in the current folder: the model goes to the cache
    assert list(cwd.iterdir()) == []
    model_path = Path(re.search(r"model file (.+\.bst):$", out, re.M).group(1))
    assert model_path == cache_dir("demo") / "digits.bst"
    # the steps in the order they happen, and one latency figure
    steps = ("epoch 2/2", "sending 100%", "running the self-test",
             "on the board: 359/359 images", "results on")
    assert all(step in out for step in steps)
    assert [out.index(step) for step in steps] == sorted(out.index(step) for step in steps)
    assert out.count("ms per inference") == 1
    table = dict(re.findall(r"^  (host float32 accuracy|host int8 accuracy|device accuracy)"
                            r" +([\d.]+)%$", out, re.M))
    assert table["device accuracy"] == table["host int8 accuracy"]
    assert "359/359 outputs bit-identical, 359/359 same class" in out
    assert re.search(r"latency on the device +\d+\.\d+ ms per inference, mean over the 359 "
                     r"images \(fastest \d+\.\d+ ms; \w+ kernels\)", out)
    assert re.search(r"heap during inference +[\d,]+ bytes of [\d,]+ in use", out)
    # The flash row says what is on the board: the flex module only where one was sent.
    flex = re.search(r"^flex: (.*)$", out, re.M).group(1)
    used = re.search(r"^  flash used +(.*)$", out, re.M).group(1)
    if flex.startswith("native module burnflex.mpy"):
        assert re.fullmatch(r"model [\d,]+ bytes \+ core [\d,]+ bytes \+ flex module "
                            r"[\d,]+ bytes", used), used
    else:
        assert re.fullmatch(r"model [\d,]+ bytes \+ core [\d,]+ bytes, no flex module",
                            used), used
        assert "viper kernels)" in out

    # The printed int8 accuracy is the model file's own on the validation split.
    model = burn.load(str(model_path))
    spec = model.info()["inputs"][0]
    _, valid = random_split(load_digits(), [0.8, 0.2], seed=0)
    x, y = valid.batch(np.arange(len(valid)))
    q = quantize_input(nhwc(x), spec["scale"], spec["zero_point"])
    predicted = [int(np.argmax(model.run(sample.reshape(-1)))) for sample in q]
    accuracy = 100.0 * float(np.mean(np.array(predicted) == y))
    assert abs(accuracy - float(table["host int8 accuracy"])) < 0.01
    assert float(table["host float32 accuracy"]) > 80.0


def test_flash_words_name_only_what_the_board_has():
    core = mpy.compile_core("x64")
    sent = "core {:,} bytes".format(core.total_size)
    cases = [(BoardSoftware(), "core in the firmware, no flex module"),
             (BoardSoftware(flex="firmware"),
              "core in the firmware + flex module in the firmware"),
             (BoardSoftware(core=core), sent + ", no flex module"),
             (BoardSoftware({REMOTE_NATMOD: bytes(1234)}, core, flex="module"),
              sent + " + flex module 1,234 bytes")]
    for software, words in cases:
        assert software.flash_words() == words
