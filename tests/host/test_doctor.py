"""`burn doctor` reports what is installed, finds the real tools, and never fails."""

import platform
import subprocess
import sys
from pathlib import Path

import numpy
from serial.tools import list_ports

import burn
from burn.host import mp_unix, mpy
from burn.host.cli import main


def doctor_rows(capsys):
    """Run `burn doctor` in-process; return (exit status, {label: value text})."""
    status = main(["doctor"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "burn doctor"
    rows, label = {}, None
    value_column = lines[1].index(lines[1].split()[1])
    for line in lines[1:]:
        if line[2] != " ":
            label = line[2:value_column].strip()
            rows[label] = line[value_column:]
        else:
            rows[label] += "\n" + line[value_column:]
    return status, rows


def test_reports_the_tools_found(capsys):
    status, rows = doctor_rows(capsys)
    assert status == 0
    assert rows["Python"].startswith(platform.python_version() + " ")
    assert rows["burn"].startswith(burn.__version__ + " ")
    assert rows["numpy"] == numpy.__version__
    micropython = mp_unix.find_micropython()
    version = subprocess.run(
        [micropython, "-c", "import sys; print('%d.%d.%d' % sys.implementation.version[:3])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    assert rows["MicroPython unix"].startswith(version)
    assert rows["MicroPython unix"].endswith(f"({micropython})")
    cross = mpy.find_mpy_cross()
    cross_version = subprocess.run([cross, "--version"], capture_output=True, text=True,
                                   check=True).stdout.splitlines()[0]
    assert rows["mpy-cross"] == f"{cross_version} ({cross})"
    for port in list_ports.comports():
        assert port.device in rows["serial ports"]
    assert set(rows) >= {"zig", "torch", "cffi", "burn._flex", "CUDA GPU"}


def test_missing_tools_are_reported_not_raised(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("MICROPYTHON", str(tmp_path / "no-micropython"))
    monkeypatch.setenv("MPY_CROSS", str(tmp_path / "no-mpy-cross"))
    status, rows = doctor_rows(capsys)
    assert status == 0
    assert rows["MicroPython unix"].startswith("not found")
    assert rows["mpy-cross"].startswith("not found")


def test_console_command_runs(tmp_path):
    command = Path(sys.executable).parent / "burn"  # the console script pip installed
    proc = subprocess.run([str(command), "doctor"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("burn doctor\n")
    assert "MicroPython unix" in proc.stdout
