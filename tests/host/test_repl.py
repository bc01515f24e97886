"""`burn repl`: inference at the REPL of a virtual board, with -c, with input from a pipe and
through a terminal."""

import ast
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from terminal import read_until, repl_on_terminal, until_board_prompt

import burn
from burn.host.cli.cmd_repl import with_printed_value

sys.path.insert(0, os.path.dirname(__file__))
import flash_models

BURN = [sys.executable, "-c", "import sys; from burn.host.cli import main; sys.exit(main())"]


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return flash_models.small(tmp_path_factory.mktemp("repl") / "model.bst")


def test_final_expression_is_printed():
    assert with_printed_value("x = 1; x + 1") == \
        "x = 1; _ = (x + 1)\nif _ is not None:\n    print(repr(_))\n"
    assert with_printed_value("x = 1") == "x = 1"
    assert with_printed_value("for i in (") == "for i in ("


def test_inference_at_the_board_repl(model):
    x = [((i * 37) % 256) - 128 for i in range(64)]
    code = ("import burn; m = burn.load('model.bst'); "
            "m(burn.tensor(%r, dtype=burn.int8).reshape((1, 8, 8, 1))).tolist()" % x)
    proc = subprocess.run(BURN + ["repl", "--virtual", model, "-c", code],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    on_board = ast.literal_eval(proc.stdout.strip())
    on_host = burn.load(model)(np.array(x, np.int8).reshape(1, 8, 8, 1)).tolist()
    assert on_board == on_host


def test_error_on_the_board_is_shown(model):
    proc = subprocess.run(BURN + ["repl", "--virtual", "-c", "import burn; burn.load('no.bst')"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "OSError" in proc.stderr and "Traceback" in proc.stderr


def test_piped_input_runs_and_exits(model):
    proc = subprocess.run(BURN + ["repl", "--virtual"], input="print(1+1)\n",
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "2\n" and "Traceback" not in proc.stderr
    program = "import burn\nm = burn.load('model.bst')\nfor i in range(2):\n    print(i)\n" \
              "m.self_test()\n"
    proc = subprocess.run(BURN + ["repl", "--virtual", model], input=program,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "0\n1\n3\n"


def test_piped_input_that_is_no_text_is_a_clear_error():
    proc = subprocess.run(BURN + ["repl", "--virtual"], input=b"print(1)\xff\n",
                          capture_output=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr == b"burn repl: the program on stdin is not UTF-8 text (byte 8)\n"


def test_interactive_session_through_a_terminal(model):
    with repl_on_terminal(BURN + ["repl", "--virtual", model]) as (_, master):
        # The board's banner and prompt come at once, without a key pressed.
        banner, shell = until_board_prompt(master)
        assert b"Raspberry Pi Pico" in shell and shell.endswith(b">>> ")
        os.write(master, b'import burn; m = burn.load("model.bst"); print(m.self_test())\r')
        answer = read_until(master, b">>> ")
        assert b"\r\n3\r\n" in answer
        # The line the banner offers runs as it is: x is defined, the output printed.
        offered = re.search(rb"\n>>> (import burn; [^\r\n]+)", banner)
        assert offered, banner
        line = offered.group(1)
        assert b"x = burn.zeros((1, 8, 8, 1), dtype=burn.int8)" in line
        os.write(master, line + b"\r")
        answer = read_until(master, b">>> ").decode()
        assert "Error" not in answer, answer
        zeros = np.zeros((1, 8, 8, 1), np.int8)
        assert str(burn.load(model)(zeros).tolist()) in answer
