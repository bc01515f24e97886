"""A virtual board lives exactly as long as the process that started it, and one board at a
time uses a flash folder: real burn-flash and `burn board virtual` processes, SIGKILLed and
started side by side."""

import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from processes import alive, children, gone_within

from burn.host.deploy.flash_lock import FlashInUse
from burn.host.link import connect
from burn.host.virtual_board import VirtualBoard, VirtualBoardError
from burn.host.virtual_board.supervisor import FLASH_LOCK, TTY_LINK, Supervisor

sys.path.insert(0, os.path.dirname(__file__))
import flash_models

BURN = [sys.executable, "-c", "import sys; from burn.host.cli import main; sys.exit(main())"]
BURN_FLASH = [sys.executable, "-c",
              "import sys; from burn.host.cli.flash_main import main; sys.exit(main())"]


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return flash_models.small(tmp_path_factory.mktemp("lifetime") / "small.bst")


def _board_processes(parent, timeout=60.0):
    """(supervisor, micropython) pids once `parent` has started a virtual board."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for supervisor in children(parent):
            firmware = children(supervisor)
            if firmware:
                return supervisor, firmware[0]
        assert alive(parent), "the process ended before its board started"
        time.sleep(0.05)
    raise AssertionError("no virtual board appeared within %g s" % timeout)


def _board_cli(folder):
    """`burn board virtual --flash-dir folder`, running: (process, its port)."""
    proc = subprocess.Popen(BURN + ["board", "virtual", "--flash-dir", str(folder)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in proc.stdout:
        if line.startswith("connect to: "):
            return proc, line.split()[2]
    raise AssertionError("burn board virtual did not start: " + proc.stderr.read())


def _stop(proc):
    proc.send_signal(signal.SIGINT)
    assert proc.wait(15) == 0


def test_killed_burn_flash_takes_its_virtual_board_with_it(model, tmp_path):
    folder = tmp_path / "pico-flash"
    proc = subprocess.Popen(BURN_FLASH + ["--virtual", "--flash-dir", str(folder), model],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    supervisor, firmware = _board_processes(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert gone_within([supervisor, firmware], 5), "the virtual board outlived burn-flash"
    assert not (folder / TTY_LINK).exists()  # powered off cleanly: its pty link removed
    with VirtualBoard("rp2040", folder) as vb:  # and the folder is free again
        with connect(vb.port) as link:
            assert link.exec("print(2 + 2)") == "4\n"


def test_a_second_board_on_a_locked_folder_is_refused(model, tmp_path):
    folder = tmp_path / "pico-flash"
    first, port = _board_cli(folder)
    try:
        proc = subprocess.run(BURN_FLASH + ["--virtual", "--flash-dir", str(folder), model],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2
        assert proc.stderr == ("burn-flash: cannot start a virtual rp2040: the flash folder %s "
                               "is in use by another board (PID %d); stop that board or give "
                               "another --flash-dir\n" % (folder, first.pid))
        with pytest.raises(VirtualBoardError, match="PID %d" % first.pid):
            VirtualBoard("rp2040", folder).start()
        with pytest.raises(FlashInUse, match=str(folder)):
            Supervisor("rp2040", folder)
        with connect(port) as link:  # the first board never noticed
            assert link.exec("print('still mine')") == "still mine\n"
    finally:
        _stop(first)
    second, _ = _board_cli(folder)  # free once the first has stopped
    _stop(second)


def test_a_stale_lock_does_not_block(tmp_path):
    folder = tmp_path / "pico-flash"
    folder.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from burn.host.virtual_board.supervisor "
         "import lock_folder; lock_folder(sys.argv[1]); print('held', flush=True); "
         "time.sleep(600)", str(folder)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "held\n"
    with pytest.raises(VirtualBoardError, match="PID %d" % holder.pid):
        VirtualBoard("rp2040", folder).start()
    holder.kill()
    holder.wait()
    assert (folder / FLASH_LOCK).read_text() == "%d\n" % holder.pid  # left behind, stale
    with VirtualBoard("rp2040", folder) as vb:
        assert (folder / FLASH_LOCK).read_text() == "%d\n" % os.getpid()
        with connect(vb.port) as link:
            assert link.exec("print(6 * 7)") == "42\n"



def test_a_stop_before_serve_is_not_lost(tmp_path):
    # SIGINT may reach `burn board virtual` between the port's line and serve()
    supervisor = Supervisor("rp2040", tmp_path / "pico-flash")
    supervisor.stop()
    runner = threading.Thread(target=supervisor.serve, daemon=True)
    runner.start()
    runner.join(20)
    assert not runner.is_alive(), "serve() ran on after an earlier stop()"
    assert supervisor.proc.poll() is not None  # and the firmware it booted was stopped
