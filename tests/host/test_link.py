"""The serial link against the virtual board: running code, files, and faults (killed board,
stalled board, garbage, resets, busy port, permission denied, wrong firmware)."""

import os
import pty
import subprocess
import sys
import threading
import time
import tty

import pytest

from burn.host.boards import load_board
from burn.host.link import (
    BoardDisconnected,
    BoardResetError,
    DeviceError,
    DeviceMemoryError,
    FlashFullError,
    Link,
    LinkError,
    LinkTimeout,
    NoBoardError,
    NotMicroPythonError,
    PortBusyError,
    PortPermissionError,
    connect,
    open_port,
)
from burn.host.virtual_board import VirtualBoard


@pytest.fixture(scope="module")
def board():
    with VirtualBoard("rp2040") as vb:
        yield vb


@pytest.fixture(scope="module")
def link(board):
    with connect(board.port, board="rp2040") as link:
        yield link


@pytest.fixture
def spare_board():
    """A board of its own, for tests that kill, freeze or crash it."""
    with VirtualBoard("rp2040") as vb:
        yield vb


def test_exec_returns_output_with_plain_newlines(link):
    assert link.exec("for i in range(3):\n    print(i * i)") == "0\n1\n4\n"


def test_exec_streams_output_live(link):
    pieces = []
    link.exec("print('a')\nprint('b')", on_output=pieces.append)
    assert b"".join(pieces).replace(b"\r\n", b"\n") == b"a\nb\n"


def test_device_error_carries_the_board_traceback(link):
    with pytest.raises(DeviceError) as info:
        link.exec("print('before')\ndef f():\n    raise ValueError('bad shape')\nf()")
    err = info.value
    assert err.exc_type == "ValueError"
    assert err.exc_message == "bad shape"
    assert 'File "<stdin>", line 3, in f' in err.traceback
    assert err.output == "before\n"


def test_memory_error_reports_the_sizes(link):
    heap = load_board("rp2040").heap_bytes
    with pytest.raises(DeviceMemoryError) as info:
        link.exec("x = bytearray(%d)" % (heap + 12345))
    err = info.value
    assert err.requested == heap + 12345
    assert 0 < err.free <= err.total <= heap
    assert str(heap + 12345) in str(err) and str(err.total) in str(err)


def test_eval_and_info(link):
    assert link.eval("[1, 2.5, 'x', None]") == [1, 2.5, "x", None]
    info = link.info()
    assert "MicroPython" in info["version"]
    assert isinstance(info["mpy"], int)


def test_put_and_get_roundtrip_with_hash(link):
    data = os.urandom(70000)
    digest = link.put_file(data, "/data/blob.bin")
    assert link.sha256("/data/blob.bin") == digest
    assert link.get_file("/data/blob.bin") == data
    assert link.ls("/data") == [("blob.bin", 70000, False)]  # no .part left behind


def test_put_replaces_an_existing_file_and_files_ops(link, tmp_path):
    src = tmp_path / "model.bst"
    src.write_bytes(b"version 1")
    link.put_file(src, "/m.bst")
    src.write_bytes(b"version 2, longer")
    link.put_file(src, "/m.bst")
    link.get_file("/m.bst", tmp_path / "back.bst")
    assert (tmp_path / "back.bst").read_bytes() == b"version 2, longer"
    link.rename("/m.bst", "/n.bst")
    assert not link.exists("/m.bst") and link.exists("/n.bst")
    link.rm("/n.bst")
    assert not link.exists("/n.bst")


def test_full_flash_fails_with_sizes_and_keeps_the_old_file(link):
    link.put_file(b"old contents", "/keep.bin")
    total, free = link.fs_info()
    filler = free - 40960  # fill the flash quickly on the board itself, leaving 40 KB
    link.exec("with open('/filler', 'wb') as f:\n    for i in range(%d):\n"
              "        f.write(bytes(4096))" % (filler // 4096), timeout=60)
    left = link.fs_info()[1]
    try:
        with pytest.raises(FlashFullError) as info:
            link.put_file(os.urandom(left + 8192), "/keep.bin")
        err = info.value
        assert err.needed == left + 8192 and err.total == total
        assert "full" in str(err)
        assert link.get_file("/keep.bin") == b"old contents"
        assert link.fs_info()[1] == left  # the partial upload was removed
    finally:
        link.rm("/filler")


def test_sync_dir_uploads_only_what_changed(link, tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("A = 1\n")
    (tmp_path / "pkg" / "b.py").write_text("B = 2\n")
    assert link.sync_dir(tmp_path / "pkg", "/lib/pkg") == ["/lib/pkg/a.py", "/lib/pkg/b.py"]
    (tmp_path / "pkg" / "b.py").write_text("B = 3\n")
    assert link.sync_dir(tmp_path / "pkg", "/lib/pkg") == ["/lib/pkg/b.py"]
    assert link.exec("import sys\nsys.path.append('/lib/pkg')\nimport b\nprint(b.B)") == "3\n"


def test_code_running_too_long_is_interrupted(link):
    start = time.monotonic()
    with pytest.raises(LinkTimeout) as info:
        link.exec("while True:\n    pass", timeout=1.0)
    assert time.monotonic() - start < 5
    assert "1.0 s" in str(info.value)
    assert link.exec("print('still alive')") == "still alive\n"


def test_sys_exit_soft_resets_and_the_link_goes_on(link):
    link.exec("marker = 1")
    link.exec("import sys\nsys.exit()")
    with pytest.raises(DeviceError):
        link.exec("marker")
    assert link.exec("print(1)") == "1\n"


def test_garbage_output_from_the_board_is_passed_through(link):
    text = link.exec("print(bytes(range(5, 127)).decode())")
    assert text == bytes(range(5, 127)).decode() + "\n"


def test_killing_the_board_mid_transfer_fails_clearly(spare_board):
    with connect(spare_board.port) as link:
        killer = threading.Timer(0.3, spare_board.kill)
        killer.start()
        start = time.monotonic()
        with pytest.raises(BoardDisconnected) as info:
            link.put_file(os.urandom(1_000_000), "/big.bin")
        killer.join()
    assert time.monotonic() - start < 10
    assert spare_board.port in str(info.value)


def test_stalled_board_times_out_then_recovers(spare_board):
    with connect(spare_board.port) as link:
        spare_board.pause()
        try:
            start = time.monotonic()
            with pytest.raises(LinkTimeout) as info:
                link.exec("print(1)", timeout=1.0)
            assert time.monotonic() - start < 10
            assert "stalled" in str(info.value)
        finally:
            spare_board.resume()
        link.interrupt()
        assert link.exec("print(2)") == "2\n"


def test_board_reset_mid_exec_is_reported_then_usable(spare_board):
    with connect(spare_board.port) as link:
        children = "/proc/%d/task/%d/children" % (spare_board.proc.pid, spare_board.proc.pid)
        with open(children) as f:
            firmware_pid = int(f.read().split()[0])
        # The MicroPython process dies, as a board does on a hard fault or watchdog reset.
        killer = threading.Timer(0.5, os.kill, (firmware_pid, 9))
        killer.start()
        with pytest.raises(BoardResetError):
            link.exec("import time\ntime.sleep(5)")
        killer.join()
        assert link.exec("print('rebooted')") == "rebooted\n"


def test_second_link_to_the_same_port_is_busy(board, link):
    with pytest.raises(PortBusyError) as info:
        Link(board.port)
    assert board.port in str(info.value)


def test_missing_port_is_no_board():
    with pytest.raises(NoBoardError) as info:
        open_port("/dev/ttyACM_no_such_port")
    assert "/dev/ttyACM_no_such_port" in str(info.value)


def test_port_without_permission_is_reported(board):
    # Root may open anything, so the child drops to user nobody before opening the pty
    # (mode 620, owned by root); anyone else is kept out by taking all permissions away.
    code = ("import os\nfrom burn.host.link import open_port, LinkError\n"
            "if os.geteuid() == 0:\n    os.setgid(65534)\n    os.setuid(65534)\n"
            "try:\n    open_port(%r)\nexcept LinkError as e:\n"
            "    print(type(e).__name__, e)\n" % board.port)
    mode = os.stat(board.port).st_mode
    if os.geteuid() != 0:
        os.chmod(board.port, 0)
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=60, check=False)
    finally:
        os.chmod(board.port, mode)
    assert proc.stdout.startswith(PortPermissionError.__name__), proc.stdout + proc.stderr
    assert "dialout" in proc.stdout


def _fake_device(answer):
    """A pty whose far end is not MicroPython: it answers every write with `answer`."""
    master, slave = pty.openpty()
    tty.setraw(slave)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                if os.read(master, 1024) and answer:
                    os.write(master, answer)
            except OSError:
                return

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return os.ttyname(slave), (master, slave, stop)


def _close_fake(handles):
    master, slave, stop = handles
    stop.set()
    os.close(slave)
    os.close(master)


@pytest.mark.parametrize("answer", [b"", b"Hello from an Arduino sketch\r\n", b"\x00\xff\x04>"])
def test_other_or_no_firmware_is_not_micropython(answer):
    port, handles = _fake_device(answer)
    try:
        start = time.monotonic()
        with pytest.raises(NotMicroPythonError) as info:
            Link(port, timeout=1.0)
        assert time.monotonic() - start < 5
        assert "MicroPython" in str(info.value) and port in str(info.value)
    finally:
        _close_fake(handles)


def test_connect_virtual_by_url_and_close_stops_it():
    link = connect("virtual:esp32")
    try:
        assert link.mem_info()["total"] <= load_board("esp32").heap_bytes
        vb = link.virtual_board
    finally:
        link.close()
    assert not vb.running
    with pytest.raises(LinkError):
        link.exec("print(1)")
