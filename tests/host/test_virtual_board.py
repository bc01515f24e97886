"""The virtual board: real MicroPython unix port on a real pty, spoken to at the byte level,
by mpremote unchanged, and by burn's link."""

import subprocess
import sys
import time

import pytest
import serial

from burn.host.boards import load_board
from burn.host.link import BoardResetError, DeviceError, connect
from burn.host.virtual_board import VirtualBoard


@pytest.fixture(scope="module")
def board():
    with VirtualBoard("rp2040") as vb:
        yield vb


@pytest.fixture
def own_board():
    """A board of its own, for a test that may leave it in any state."""
    with VirtualBoard("rp2040") as vb:
        yield vb


def _mpremote(port, *args):
    return subprocess.run(
        [sys.executable, "-m", "mpremote", "connect", port, *args],
        capture_output=True, timeout=60, check=False,
    )


def _read_for(conn, seconds, until=None):
    data = b""
    end = time.monotonic() + seconds
    while time.monotonic() < end and not (until and data.endswith(until)):
        data += conn.read(conn.in_waiting or 1)
    return data


def test_mpremote_exec_runs_on_the_virtual_board(board):
    proc = _mpremote(board.port, "exec", "print(6 * 7)")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == b"42"


def test_mpremote_reports_the_board_traceback(board):
    proc = _mpremote(board.port, "exec", "import nosuchmodule")
    assert proc.returncode != 0
    assert b"ImportError" in proc.stdout + proc.stderr


def test_mpremote_copies_files_onto_the_flash(board, tmp_path):
    src = tmp_path / "data.bin"
    src.write_bytes(bytes(range(256)) * 40)
    assert _mpremote(board.port, "fs", "cp", str(src), ":data.bin").returncode == 0
    back = tmp_path / "back.bin"
    assert _mpremote(board.port, "fs", "cp", ":data.bin", str(back)).returncode == 0
    assert back.read_bytes() == src.read_bytes()
    listing = _mpremote(board.port, "fs", "ls").stdout
    assert b"10240 data.bin" in listing


def test_raw_repl_and_raw_paste_bytes_are_those_of_a_board(board):
    with serial.Serial(board.port, timeout=0.05) as conn:
        conn.write(b"\r\x03\x03\r\x01")
        assert _read_for(conn, 3, b">").endswith(b"raw REPL; CTRL-B to exit\r\n>")
        conn.write(b"print(1 + 1)\x04")
        assert _read_for(conn, 3, b">") == b"OK2\r\n\x04\x04>"
        conn.write(b"\x05A\x01")
        head = _read_for(conn, 3, b"\x01")
        assert head[:2] == b"R\x01" and len(head) == 5
        window = int.from_bytes(head[2:4], "little")
        assert window > 0
        conn.write(b"1/0\x04")
        reply = _read_for(conn, 3, b"\x04>")
        assert reply.startswith(b"\x04\x04Traceback")
        assert b"ZeroDivisionError" in reply
        conn.write(b"\x02")
        assert b"Raspberry Pi Pico" in _read_for(conn, 3, b">>> ")


def test_soft_reset_clears_ram_and_keeps_flash(board):
    with connect(board.port) as link:
        link.exec("kept = 1\nopen('/keep.txt', 'w').write('still here')")
        link.soft_reset()
        with pytest.raises(DeviceError) as info:
            link.exec("kept")
        assert info.value.exc_type == "NameError"
        assert link.exec("print(open('/keep.txt').read())") == "still here\n"


def test_boot_py_runs_at_soft_reset(board):
    with connect(board.port) as link:
        link.put_file(b"print('boot says hi')\n", "/boot.py")
        try:
            assert "boot says hi" in link.soft_reset()
        finally:
            link.rm("/boot.py")


def test_friendly_repl_echoes_and_evaluates(board):
    with serial.Serial(board.port, timeout=0.05) as conn:
        conn.write(b"\r\x03\x02")
        assert _read_for(conn, 3, b">>> ").endswith(b">>> ")
        conn.write(b"a = 20\ra + 22\r")
        out = _read_for(conn, 3, b"42\r\n>>> ")
        assert out.endswith(b"a + 22\r\n42\r\n>>> ")


def test_heap_is_capped_to_the_board(board):
    heap = load_board("rp2040").heap_bytes
    with connect(board.port) as link:
        total = link.mem_info()["total"]
        assert 0.9 * heap <= total <= heap
        with pytest.raises(DeviceError):
            link.exec("bytearray(%d)" % heap)


def test_flash_size_is_enforced_like_real_flash(board):
    fs_bytes = load_board("rp2040").fs_bytes
    with connect(board.port) as link:
        total, free = link.fs_info()
        assert total == fs_bytes
        code = (
            "f = open('/fill.bin', 'wb')\n"
            "try:\n"
            "    for i in range(%d):\n"
            "        f.write(bytes(4096))\n"
            "finally:\n"
            "    f.close()\n" % (fs_bytes // 4096 + 2)
        )
        with pytest.raises(DeviceError) as info:
            link.exec(code, timeout=60)
        assert info.value.errno == 28  # ENOSPC, as littlefs reports on a real board
        link.rm("/fill.bin")
        assert link.fs_info()[1] == free


def test_flash_persists_in_its_folder_across_power_cycles(tmp_path):
    with VirtualBoard("nrf52840", flash_dir=tmp_path) as vb:
        with connect(vb.port) as link:
            link.put_file(b"persistent", "/p.txt")
    assert (tmp_path / "flash.img").stat().st_size == load_board("nrf52840").fs_bytes
    with VirtualBoard("nrf52840", flash_dir=tmp_path) as vb:
        with connect(vb.port) as link:
            assert link.get_file("/p.txt") == b"persistent"


def test_fat_board_gets_a_fat_flash_of_its_size():
    board = load_board("stm32f405")
    with connect(virtual=True, board=board.name) as link:
        assert link.fs_info()[0] <= board.fs_bytes
        link.put_file(b"x" * 5000, "/lib/f.bin")
        link.put_file(b"y" * 10, "/lib/f.bin")  # FAT refuses rename-over; replaced anyway
        assert link.get_file("/lib/f.bin") == b"y" * 10


def test_garbage_into_the_board_leaves_it_usable(own_board):
    board = own_board  # the noise may leave it resetting while the next test connects
    noise = bytes((i * 97 + 13) % 256 for i in range(4000))
    with serial.Serial(board.port, timeout=0.05) as conn:
        conn.write(noise)
        time.sleep(0.3)
    # The board works through the noise as a real one would (garbage lines run and fail,
    # stray Ctrl-D bytes soft-reset it), which takes a while on a loaded machine: a reset
    # the noise still causes after the link is up is the board's answer to it, once.
    try:
        with connect(board.port, timeout=30) as link:
            assert link.exec("print('ok')") == "ok\n"
    except BoardResetError:
        with connect(board.port, timeout=30) as link:
            assert link.exec("print('ok')") == "ok\n"


def test_ctrl_c_at_any_moment_of_a_program_keeps_the_board_answering(board):
    """A Ctrl-C that lands while the firmware reads a program, just before it starts, while
    it runs or just after it ends never costs the host the program's answer."""
    with serial.Serial(board.port, timeout=0.05) as conn:
        for i in range(40):
            conn.write(b"x = %d\r" % i)
            time.sleep((i % 8) * 0.002)
            conn.write(b"\x03")
    with connect(board.port, timeout=30) as link:
        assert link.eval("6 * 7") == 42


def test_endless_main_py_is_interrupted_on_connect(board):
    with connect(board.port) as link:
        link.put_file(b"while True:\n    pass\n", "/main.py")
        link.repl.leave()
        link.repl.write(b"\x04")  # soft reset in the friendly REPL runs main.py
        time.sleep(0.5)
    try:
        with connect(board.port, timeout=30) as link:
            assert link.exec("print('back')") == "back\n"
    finally:
        with connect(board.port) as link:
            link.rm("/main.py")


def test_cli_prints_where_to_connect(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from burn.host.cli import main; sys.exit(main())",
         "board", "virtual", "--board", "rp2040", "--flash-dir", str(tmp_path)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        lines = [proc.stdout.readline() for _ in range(2)]
        port = lines[1].split("connect to:")[1].strip()
        with connect(port) as link:
            assert link.exec("print(2 ** 10)") == "1024\n"
    finally:
        proc.terminate()
        assert proc.wait(10) == 0
    assert not (tmp_path / "tty").exists()  # stopped cleanly
    assert (tmp_path / "flash.img").exists()
