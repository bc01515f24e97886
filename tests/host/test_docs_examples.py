"""Every example of README.md and docs/*.md runs: the Python and shell blocks of a page run
in page order in a fresh folder (tests/host/docs_blocks.py says how blocks are marked), so
a documented example cannot rot. Blocks that need a board, the network or a long build
carry a visible `<!-- not run: REASON -->` marker instead."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from docs_blocks import REPO, RUN, SHOWN, blocks, pages
from docs_commands import check, commands

RUNNABLE = [p for p in pages() if any(b.runs for b in blocks(p))]


@pytest.fixture(scope="module")
def your_model(tmp_path_factory):
    """model.bst and x.npy: the files the pages call "your model" and its input."""
    import numpy as np

    import burn
    from burn import nn
    from burn.host.export import export_bst

    folder = tmp_path_factory.mktemp("your_model")
    burn.seed(0)
    samples = np.random.default_rng(0).standard_normal((32, 4)).astype(np.float32)
    export_bst(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)),
               str(folder / "model.bst"), calibration=samples)
    spec = burn.load(str(folder / "model.bst")).info()["inputs"][0]
    np.save(folder / "x.npy", np.zeros(spec["shape"], np.int8))
    return folder


def test_every_block_says_what_it_is():
    problems = []
    for page in pages():
        for block in blocks(page):
            if block.lang not in RUN and block.lang not in SHOWN:
                problems.append("%s: fence language %r: use python or sh for an example, "
                                "text/console/pycon/json for what is shown"
                                % (block.where, block.lang))
            elif block.mark and block.mark != "file" and block.lang not in RUN:
                problems.append("%s: a %r marker on a block that is not run"
                                % (block.where, block.mark))
            elif block.mark in ("not run", "file") and not block.arg:
                problems.append("%s: the %r marker needs a reason or a name"
                                % (block.where, block.mark))
            elif block.mark == "run in" and block.arg != "checkout":
                problems.append("%s: 'run in' knows only 'checkout'" % block.where)
    assert not problems, "\n".join(problems)


def test_every_documented_command_is_accepted():
    """Run or not, each command of a shell or console block is one the product accepts:
    `burn` commands pass its parser and option checks, scripts and test paths exist and
    have the options used (docs_commands.py)."""
    problems, checked = [], 0
    for page in pages():
        for block in blocks(page):
            for argv in commands(block):
                checked += 1
                why = check(argv)
                if why:
                    problems.append("%s: %s\n    %s" % (block.where, " ".join(argv), why))
    assert checked > 100  # the blocks' commands were found at all
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page", RUNNABLE)
def test_page_examples_run(page, tmp_path, your_model):
    home = tmp_path / "home"
    home.mkdir()
    for name in ("model.bst", "x.npy"):
        shutil.copy(your_model / name, tmp_path / name)
    cache = os.environ.get("BURN_CACHE_DIR") or str(Path.home() / ".cache" / "burn")
    env = {**os.environ, "HOME": str(home), "BURN_CACHE_DIR": cache,
           "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"],
           "MPLBACKEND": "Agg"}
    proc = subprocess.run([sys.executable, str(REPO / "tests" / "host" / "docs_blocks.py"),
                           page], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=240, check=False)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-6000:]
