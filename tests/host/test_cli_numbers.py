"""Counts, sizes, rates and seconds given to `burn` commands are checked where argparse reads
them: a bad value is one usage line naming the option, exit status 2, and nothing runs."""

import subprocess
import sys
from pathlib import Path

import pytest

from burn.host.cli import build_parser, flash_main, parse_args

# (argv, option, value): one wrong value per kind of number, across the subcommands.
BAD = [
    (["demo", "--epochs", "0"], "--epochs", "0"),
    (["demo", "--epochs", "-1"], "--epochs", "-1"),
    (["demo", "--epochs", "2.5"], "--epochs", "'2.5'"),
    (["train", "ds_cnn", "--epochs", "0"], "--epochs", "0"),
    (["train", "resnet8", "--batch", "0"], "--batch", "0"),
    (["train", "resnet8", "--lr", "0"], "--lr", "0"),
    (["train", "resnet8", "--lr", "nan"], "--lr", "'nan'"),
    (["train", "resnet8", "--width", "-0.25"], "--width", "-0.25"),
    (["train", "resnet8", "--limit", "0"], "--limit", "0"),
    (["train", "resnet8", "--seed", "-3"], "--seed", "-3"),
    (["train", "resnet8", "--samples", "0"], "--samples", "0"),
    (["export", "run", "--model", "m:f", "-o", "m.bst", "--samples", "0"], "--samples", "0"),
    (["export", "run", "--model", "m:f", "-o", "m.bst", "--percentile", "50"],
     "--percentile", "50"),
    (["export", "run", "--model", "m:f", "-o", "m.bst", "--qat-epochs", "0"],
     "--qat-epochs", "0"),
    (["import", "m.tflite", "--tests", "-1"], "--tests", "-1"),
    (["board", "emulate", "--timeout", "inf"], "--timeout", "'inf'"),
    (["flash", "m.bst", "--wait", "-1"], "--wait", "-1"),
]


@pytest.mark.parametrize("argv,option,value", BAD, ids=[" ".join(b[0]) for b in BAD])
def test_a_bad_number_is_one_usage_line(argv, option, value, capsys):
    with pytest.raises(SystemExit) as stop:
        parse_args(build_parser(), argv)
    assert stop.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("burn %s: error: argument %s: %s is not " % (
        " ".join(argv[:2] if argv[0] == "board" else argv[:1]), option, value)), last
    assert "Traceback" not in last and "LR" not in last


def test_good_numbers_arrive_as_numbers():
    args = parse_args(build_parser(), ["train", "resnet8", "--epochs", "3", "--lr", "1e-3",
                                       "--width", "0.25", "--seed", "0"])
    assert (args.epochs, args.lr, args.width, args.seed) == (3, 1e-3, 0.25, 0)
    assert parse_args(build_parser(), ["demo"]).epochs is None  # the demo's own default
    assert parse_args(build_parser(), ["import", "m.tflite", "--tests", "0"]).tests == 0
    assert parse_args(flash_main.build_parser(), ["m.bst", "--wait", "0"]).wait == 0.0


def test_burn_flash_checks_its_numbers_too(capsys):
    with pytest.raises(SystemExit) as stop:
        flash_main.main(["m.bst", "--wait", "soon"])
    assert stop.value.code == 2
    assert "burn-flash: error: argument --wait: 'soon' is not a number" in capsys.readouterr().err


def test_an_export_without_calibration_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        parse_args(build_parser(), ["export", "runs/digits", "--model", "pkg.mod:build",
                                    "-o", "model.bst"])
    assert stop.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "burn export: error: an int8 export needs --calibration (digits or FILE.npy)")


def test_the_console_command_refuses_zero_epochs(tmp_path):
    command = Path(sys.executable).parent / "burn"  # the console script pip installed
    proc = subprocess.run([str(command), "demo", "--epochs", "0"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines()[-1] == (
        "burn demo: error: argument --epochs: 0 is not a positive integer")
