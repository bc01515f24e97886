"""The emulated RP2040 as a newcomer meets it: `burn repl --emulated` fed from a pipe and on a
terminal, the docs' `burn.load('model.bst')` with the model in ROMFS, one board per flash
image, and a killed burn-flash that takes its emulator with it."""

import ast
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from emulator_support import emulator_or_skip, firmware_or_skip
from processes import children, gone_within
from terminal import repl_on_terminal, until_board_prompt

import burn
from burn.host.emulator import EmulatedBoard, EmulatorError

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "host"))
import flash_models

BURN = [sys.executable, "-c", "import sys; from burn.host.cli import main; sys.exit(main())"]
BURN_FLASH = [sys.executable, "-c",
              "import sys; from burn.host.cli.flash_main import main; sys.exit(main())"]


@pytest.fixture(scope="module")
def firmware():
    emulator_or_skip()
    return str(firmware_or_skip())


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("models")
    return {"small": flash_models.small(folder / "small.bst"),
            "one_weight": flash_models.small(folder / "one.bst", "one-weight")}


def test_piped_input_runs_on_the_emulated_board(firmware):
    proc = subprocess.run(BURN + ["repl", "--emulated", "--firmware", firmware],
                          input="import sys\nprint(1+1, sys.platform)\n", capture_output=True,
                          text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "2 rp2\n" and "Traceback" not in proc.stderr


def test_the_prompt_shows_at_once_on_a_terminal(firmware):
    with repl_on_terminal(BURN + ["repl", "--emulated", "--firmware", firmware]) as (_, master):
        _, shell = until_board_prompt(master, timeout=180)
        assert b"with RP2040" in shell and shell.endswith(b">>> ")


def test_the_docs_model_name_loads_from_romfs(firmware, models, tmp_path):
    image = str(tmp_path / "pico.img")
    # An earlier flash onto the filesystem leaves /model.bst, another model.
    first = subprocess.run(BURN_FLASH + ["--emulated", "--firmware", firmware, "--flash-image",
                                         image, "--storage", "fs", "--no-self-test",
                                         models["one_weight"]],
                           capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stdout + first.stderr
    sample = _telling_apart(burn.load(models["small"]), burn.load(models["one_weight"]))
    code = ("import burn, os; m = burn.load('model.bst'); "
            "(m.self_test(), 'model.bst' in os.listdir('/'), "
            "m(burn.tensor(%r, dtype=burn.int8).reshape((1, 8, 8, 1))).tolist())"
            % sample.reshape(-1).tolist())
    proc = subprocess.run(BURN + ["repl", "--emulated", "--flash-image", image,
                                  models["small"], "-c", code],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    tests, shadow_left, out = ast.literal_eval(proc.stdout.strip())
    assert tests == 3 and not shadow_left
    assert out == burn.load(models["small"])(sample).tolist()  # the new model, not the old


def _telling_apart(one, other):
    """A seeded int8 input on which the two models' outputs differ."""
    rng = np.random.default_rng(0)
    for _ in range(100):
        sample = rng.integers(-128, 128, (1, 8, 8, 1), dtype=np.int8)
        if one(sample).tolist() != other(sample).tolist():
            return sample
    raise AssertionError("the two models agree on 100 random inputs")


def test_a_second_board_on_a_locked_flash_image_is_refused(firmware, models, tmp_path):
    image = tmp_path / "pico.img"
    with EmulatedBoard("rp2040", firmware=firmware, flash_image=image):
        with pytest.raises(EmulatorError, match="PID %d" % os.getpid()):
            EmulatedBoard("rp2040", flash_image=image).start()
        proc = subprocess.run(BURN_FLASH + ["--emulated", "--flash-image", str(image),
                                            models["small"]],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2
        assert proc.stderr == ("burn-flash: emulated rp2040: the flash image %s is in use by "
                               "another board (PID %d); stop that board or give another "
                               "--flash-image\n" % (image, os.getpid()))
    with EmulatedBoard("rp2040", flash_image=image) as again:  # free once it has stopped
        assert again.running


def test_killed_burn_flash_takes_its_emulator_with_it(firmware, models, tmp_path):
    image = tmp_path / "pico.img"
    proc = subprocess.Popen(BURN_FLASH + ["--emulated", "--firmware", firmware,
                                          "--flash-image", str(image), models["small"]],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:  # the emulator has booted and burn-flash talks to it
        if line.startswith("board: emulated"):
            break
    node = children(proc.pid)
    assert node
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    assert gone_within(node, 5), "the emulator outlived burn-flash"
    with EmulatedBoard("rp2040", flash_image=image) as again:  # the image is free, and boots
        assert again.running
