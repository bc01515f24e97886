"""The emulated board: a real MicroPython RP2040 firmware on rp2040js, reached through its pty
by burn's link, pyserial and mpremote as a real board would be."""

import os
import signal
import subprocess
import sys
import time

import pytest
import serial
from emulator_support import emulator_or_skip, firmware_or_skip
from processes import alive, children, gone_within

from burn.host.boards import load_board
from burn.host.emulator import EmulatedBoard
from burn.host.link import connect


@pytest.fixture(scope="module")
def firmware():
    emulator_or_skip()
    return firmware_or_skip()


@pytest.fixture(scope="module")
def board(firmware, tmp_path_factory):
    image = tmp_path_factory.mktemp("emulated") / "flash.img"
    with EmulatedBoard("rp2040", firmware=firmware, flash_image=image) as emulated:
        yield emulated


@pytest.fixture
def link(board):
    with connect(board.port) as opened:
        yield opened


def _read_until(conn, marker, seconds=5.0):
    data = b""
    end = time.monotonic() + seconds
    while time.monotonic() < end and marker not in data:
        data += conn.read(conn.in_waiting or 1)
    return data


def test_the_friendly_repl_answers_on_the_pty(board):
    with serial.Serial(board.port, timeout=0.1) as conn:
        conn.write(b"1+1\r")
        reply = _read_until(conn, b">>> ")
    assert reply == b"1+1\r\n2\r\n>>> "


def test_the_link_runs_code_on_the_rp2_firmware(link):
    info = link.info()
    assert info["platform"] == "rp2"
    assert info["version"].startswith("3.")
    assert "RP2040" in info["machine"]
    assert link.exec("print(1 + 1)") == "2\n"
    assert link.eval("[i * i for i in range(5)]") == [0, 1, 4, 9, 16]


def test_files_round_trip_through_the_raw_repl(link):
    data = bytes(range(256)) * 20
    link.put_file(data, "/blob.bin")
    assert link.get_file("/blob.bin") == data
    total, free = link.fs_info()
    # littlefs formatted at first boot over the filesystem area: burn's firmware keeps the
    # size of boards/rp2040.json (the rest is ROMFS), stock MicroPython 1408 KiB
    assert total in (load_board("rp2040").fs_bytes, 352 * 4096)
    assert free < total


def test_mpremote_works_unchanged(board):
    proc = subprocess.run([sys.executable, "-m", "mpremote", "connect", board.port, "exec",
                           "print(6 * 7)"], capture_output=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == b"42"


def test_cycles_grow_with_the_work_the_board_does(board, link):
    before = board.cycles()
    took_us = link.eval("(lambda t, s: (sum(range(3000)), __import__('time').ticks_diff("
                        "__import__('time').ticks_us(), t))[1])(__import__('time').ticks_us(), "
                        "0)")
    after = board.cycles()
    busy = took_us * 125  # rp2040js: 125 MHz
    assert busy > 1_000_000
    assert busy <= after - before <= busy + 2_000_000  # the rest is USB and the raw REPL


def test_a_file_survives_power_off_with_the_same_flash_image(firmware, tmp_path):
    image = tmp_path / "flash.img"
    with EmulatedBoard("rp2040", firmware=firmware, flash_image=image) as first:
        with connect(first.port) as link:
            link.put_file(b"kept across power cycles", "/kept.txt")
    assert first.final["cycles"] > 0
    with EmulatedBoard("rp2040", flash_image=image) as second:  # no firmware: the image's
        with connect(second.port) as link:
            assert link.get_file("/kept.txt") == b"kept across power cycles"


def test_close_leaves_no_emulator_process(firmware):
    board = EmulatedBoard("rp2040", firmware=firmware).start()
    pid = board.proc.pid
    assert alive(pid)
    board.close()
    assert not alive(pid)
    assert not board.link.exists()


def _cli(firmware, image):
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from burn.host.cli import main; sys.exit(main())",
         "board", "emulate", "--firmware", str(firmware), "--flash-image", str(image)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines = []
    for line in proc.stdout:
        lines.append(line.decode())
        if line.startswith(b"Ctrl-C"):
            break
    port = next(line for line in lines if line.startswith("connect to: ")).split()[2]
    return proc, port


def test_ctrl_c_stops_burn_board_emulate_and_its_emulator(firmware, tmp_path):
    proc, port = _cli(firmware, tmp_path / "flash.img")
    node = children(proc.pid)
    assert len(node) == 1 and alive(node[0])
    with connect(port) as link:
        assert link.exec("print('up')") == "up\n"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=15)
    assert proc.returncode == 0, err
    assert b"powered off after" in out
    assert not alive(node[0])


def test_a_killed_parent_takes_its_emulator_with_it(firmware, tmp_path):
    proc, _ = _cli(firmware, tmp_path / "flash.img")
    node = children(proc.pid)
    proc.kill()
    proc.wait()
    assert gone_within(node, 5)


def test_the_stable_link_names_the_port(board):
    assert os.path.realpath(board.link) == board.port
