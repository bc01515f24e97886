"""burn-flash as a new user runs it: the docs' relative --flash-dir, a --flash-dir that is
no folder, a dry run without a board, and the host self-test's runtime and progress."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import serial.tools.list_ports

from burn.host import bst_runtime
from burn.host.cli import flash_main
from burn.host.deploy.fit import model_facts
from burn.host.virtual_board import VirtualBoard, VirtualBoardError
from burn.host.virtual_board.supervisor import flash_folder

sys.path.insert(0, os.path.dirname(__file__))
import flash_models

BURN_FLASH = [sys.executable, "-c",
              "import sys; from burn.host.cli.flash_main import main; sys.exit(main())"]


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return flash_models.small(tmp_path_factory.mktemp("flash_cli") / "small.bst")


@pytest.fixture
def no_board(monkeypatch):
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: [])


def test_relative_flash_dir_of_the_docs(model, tmp_path):
    # docs/flashing.md: burn-flash --virtual --flash-dir ./pico-flash model.bst
    proc = subprocess.run(BURN_FLASH + ["--virtual", "--flash-dir", "./pico-flash", model],
                          cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "3 reference vectors passed" in proc.stdout
    image = tmp_path / "pico-flash" / "flash.img"
    assert image.is_file() and b"model.bst" in image.read_bytes()
    assert "flash in %s" % (tmp_path / "pico-flash") in proc.stdout


def test_flash_folder_is_made_absolute(tmp_path, monkeypatch):
    # `burn board virtual --flash-dir DIR` hands DIR to the supervisor, which runs the
    # firmware in that folder: a relative path must not be taken from there.
    monkeypatch.chdir(tmp_path)
    folder = flash_folder("pico-flash")
    assert folder == tmp_path / "pico-flash" and folder.is_dir()


def _folders_that_cannot_hold_flash(tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    cases = [(a_file, "is a file, not a folder"),
             (a_file / "below", "cannot create the flash folder")]
    if os.geteuid() != 0:  # root writes into read-only folders
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o555)
        cases.append((locked, "is not writable"))
    return cases


def test_flash_dir_that_is_no_folder_is_a_clear_error(model, tmp_path, capsys):
    for folder, reason in _folders_that_cannot_hold_flash(tmp_path):
        assert flash_main.main(["--virtual", "--flash-dir", str(folder), model]) == 2
        err = capsys.readouterr().err
        assert err.startswith("burn-flash: cannot start a virtual rp2040: ") and reason in err
        assert str(folder) in err and "Traceback" not in err
        with pytest.raises(VirtualBoardError, match=reason):
            VirtualBoard("rp2040", folder)


def test_dry_run_needs_no_board(model, no_board, capsys):
    assert flash_main.main(["--dry-run", model]) == 0
    out = capsys.readouterr().out
    assert "no board attached: planned for a rp2040" in out
    assert "dry run: nothing was sent" in out
    sent = [line.split()[1] for line in out.splitlines() if line.startswith("  send ")]
    assert "/model.bst" in sent and "/lib/burn/__init__.mpy" in sent
    assert "0 unchanged on the board" in out


def test_dry_run_without_a_board_checks_the_fit(tmp_path, no_board, capsys):
    huge = flash_models.huge(tmp_path / "huge.bst")
    assert flash_main.main(["--dry-run", huge]) == 1
    assert "does not fit the rp2040's flash" in capsys.readouterr().err


def test_a_named_port_is_still_needed(model, no_board, capsys):
    assert flash_main.main(["--dry-run", "--port", "/dev/no-such-port", model]) == 2
    assert "/dev/no-such-port" in capsys.readouterr().err


def test_host_self_test_runs_on_the_fastest_runtime_and_says_so(model):
    said = []
    facts = model_facts(model, said.append)
    assert facts.host_self_test_error is None and facts.tests == 3
    runtime = "flex" if bst_runtime.flex_available() else "pure"
    assert said[0] == "host self-test: 3 reference vectors on the %s kernels%s" % (
        runtime, "" if runtime == "flex" else " (burn._flex is not built: slow)")
    assert said[1].startswith("  passed in ")
    if not bst_runtime.flex_available():
        pytest.skip("burn._flex is not built: `pip install -e .` builds it")
    assert bst_runtime.runtime_of(bst_runtime.load(Path(model).read_bytes())) == "flex"


def test_host_self_test_failure_is_reported(tmp_path):
    bad = flash_models.small(tmp_path / "bad.bst", "bad-reference")
    said = []
    facts = model_facts(bad, said.append)
    assert facts.host_self_test_error and said[1].startswith("  failed: self-test 0")


def test_dry_run_with_firmware_copies_nothing(model, tmp_path, no_board, capsys):
    uf2 = tmp_path / "firmware.uf2"
    uf2.write_bytes(b"\0" * 512)
    assert flash_main.main(["--dry-run", "--firmware", str(uf2), model]) == 0
    out = capsys.readouterr().out
    assert "the firmware %s would be copied" % uf2 in out and "/model.bst" in out
    assert flash_main.main(["--dry-run", "--firmware", str(tmp_path / "none.uf2")]) == 2
    assert "no firmware file" in capsys.readouterr().err
