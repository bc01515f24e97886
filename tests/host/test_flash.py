"""burn-flash against the virtual board: what is sent, the fit checks, the self-test, and
faults in the middle of a transfer (unplugged, reset, garbage, stalled)."""

import hashlib
import os
import random
import signal
import subprocess
import sys
import threading
import time
import tty
from pathlib import Path

import pytest
import serial.tools.list_ports

from burn.host import deploy
from burn.host.board_session import open_board
from burn.host.boards import load_board
from burn.host.cli import flash_main
from burn.host.deploy.errors import FlashError, ModelTooBig
from burn.host.deploy.fit import model_facts
from burn.host.deploy.measure import measure, memory_failure
from burn.host.deploy.probe import BoardFacts
from burn.host.deploy.report import report_lines, self_test_verdict
from burn.host.deploy.transfer import check_flash_space, plan_of
from burn.host.link import NotMicroPythonError, connect
from burn.host.virtual_board import VirtualBoard

sys.path.insert(0, os.path.dirname(__file__))
import flash_models


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("models")
    return {
        "small": flash_models.small(folder / "small.bst"),
        "one_weight": flash_models.small(folder / "one_weight.bst", "one-weight"),
        "bad_reference": flash_models.small(folder / "bad_reference.bst", "bad-reference"),
        "big": flash_models.big(folder / "big.bst"),
        "arena_too_big": flash_models.wide(folder / "arena_too_big.bst", 128),
        "arena_60k": flash_models.wide(folder / "arena_60k.bst", 60),
        "huge": flash_models.huge(folder / "huge.bst"),
    }


def sha(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def model_on_board(link):
    """(SHA-256 of /model.bst, self-tests passed when the board loads it) after a reset."""
    link.soft_reset()
    tests = link.exec("import burn\nprint(burn.load('model.bst').self_test())", timeout=60)
    return link.sha256("/model.bst"), int(tests)


def at_half(action):
    """A progress callback that runs `action` once, when half of /model.bst has been sent."""
    done = []

    def progress(remote, sent, total):
        if remote == deploy.REMOTE_MODEL and sent * 2 >= total and not done:
            done.append(True)
            action()

    return progress


def test_sends_only_what_changed(models):
    with open_board(virtual=True) as session:
        first = deploy.flash(session, models["small"])
        files = first.software.files
        assert len(first.sent.sent) == len(files) + 1
        assert first.sent.payload_bytes == sum(map(len, files.values())) + first.model.size
        assert first.ok and first.measured["tests"] == 3
        assert first.measured["latency_us"] > 0
        assert first.measured["heap_inference"] == 0  # inference allocates nothing
        assert first.measured["heap_model"] - first.measured["heap_kernels"] >= \
            first.model.arena_bytes

        again = deploy.flash(session, models["small"])
        assert again.sent.sent == [] and again.sent.wire_bytes < 1000

        assert sha(models["one_weight"]) != sha(models["small"])
        changed = deploy.flash(session, models["one_weight"])
        assert changed.sent.sent == [("/model.bst", Path(models["one_weight"]).stat().st_size)]
        assert model_on_board(session.link) == (sha(models["one_weight"]), 3)


def test_dry_run_sends_nothing(models, tmp_path):
    with open_board(virtual=True, flash_dir=str(tmp_path)) as session:
        deploy.flash(session, models["small"], run_measure=False)
        port = session.port
        session.link.close()  # the command opens the port itself
        proc = subprocess.run(
            [sys.executable, "-m", "burn.host.cli.flash_main", "--port", port, "--dry-run",
             models["one_weight"]], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert "send   /model.bst" in proc.stdout
        assert "1 files to send" in proc.stdout and "nothing was sent" in proc.stdout
        with connect(port) as link:
            assert link.sha256("/model.bst") == sha(models["small"])
            assert not link.exists("/model.bst.part")


def test_unplugged_mid_transfer_keeps_a_loadable_model(models, tmp_path):
    with open_board(virtual=True, flash_dir=str(tmp_path)) as session:
        deploy.flash(session, models["small"], run_measure=False)
        with pytest.raises(FlashError) as failure:
            deploy.flash(session, models["big"], progress=at_half(session.virtual_board.kill))
    message = str(failure.value)
    assert "lost the board" in message and "/model.bst is still the previous version" in message
    with VirtualBoard("rp2040", str(tmp_path)) as board, connect(board.port) as link:
        assert model_on_board(link) == (sha(models["small"]), 3)
    with open_board(virtual=True, flash_dir=str(tmp_path)) as session:
        report = deploy.flash(session, models["big"])
        assert [remote for remote, _ in report.sent.sent] == ["/model.bst"]
        assert report.ok and model_on_board(session.link) == (sha(models["big"]), 1)


def firmware_pid(board):
    """The MicroPython process of a virtual board (the supervisor's child), or None while the
    supervisor is between two of them."""
    pid = board.proc.pid
    with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
        children = f.read().split()
    return int(children[0]) if children else None


def kill_firmware(board):
    """SIGKILL the board's MicroPython process and wait (up to 5 s) until it has stopped
    running, so that the transfer goes on against a board that is really resetting. A process
    that ends on its own first (a loaded machine) is looked up again."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        pid = firmware_pid(board)
        try:
            if pid is not None:
                os.kill(pid, signal.SIGKILL)
                break
        except ProcessLookupError:
            pass
        time.sleep(0.005)
    while time.monotonic() < deadline:
        try:
            with open("/proc/%d/stat" % pid) as f:
                if f.read().split(")")[-1].split()[0] in "ZX":
                    return
        except FileNotFoundError:
            return
        time.sleep(0.005)


def test_board_reset_mid_transfer_is_retried(models):
    with open_board(virtual=True) as session:
        deploy.flash(session, models["small"], run_measure=False)
        crash = at_half(lambda: kill_firmware(session.virtual_board))
        report = deploy.flash(session, models["big"], progress=crash)
        assert report.sent.retries >= 1 and report.ok
        assert model_on_board(session.link) == (sha(models["big"]), 1)


def test_garbage_on_the_line_mid_transfer_is_retried(models):
    with open_board(virtual=True) as session:
        deploy.flash(session, models["small"], run_measure=False)
        noise = bytes(random.Random(1).randrange(256) for _ in range(300))
        report = deploy.flash(session, models["big"],
                          progress=at_half(lambda: session.link.repl.conn.write(noise)))
        assert report.ok and model_on_board(session.link) == (sha(models["big"]), 1)


def test_garbage_typed_at_the_repl_before_flashing(models):
    with open_board(virtual=True) as session:
        session.link.close()
        with serial.serial_for_url(session.port, timeout=0.2) as raw:
            raw.write(b"\x02\r\nwhile True:\r\n  pass\r\n\r\n\x05garbage \xff\xfe (")
        session.reconnect()
        report = deploy.flash(session, models["small"])
        assert report.ok and model_on_board(session.link) == (sha(models["small"]), 3)


def test_something_that_only_sends_garbage_is_not_a_board():
    master, slave = os.openpty()
    tty.setraw(slave)
    stop = threading.Event()

    def babble():
        rng = random.Random(2)
        while not stop.is_set():
            os.write(master, bytes(rng.randrange(256) for _ in range(64)))
            stop.wait(0.02)

    thread = threading.Thread(target=babble, daemon=True)
    thread.start()
    try:
        with pytest.raises(NotMicroPythonError) as failure:
            open_board(port=os.ttyname(slave), board="rp2040")
        assert "no MicroPython REPL answered" in str(failure.value)
    finally:
        stop.set()
        thread.join()
        os.close(master)
        os.close(slave)


def test_stalled_board_gives_a_clear_message(models, tmp_path):
    with open_board(virtual=True, flash_dir=str(tmp_path)) as session:
        deploy.flash(session, models["small"], run_measure=False)
        board = session.virtual_board
        with pytest.raises(FlashError) as failure:
            deploy.flash(session, models["big"], progress=at_half(board.pause))
        board.resume()
        message = str(failure.value)
        assert "lost the board" in message and ("stalled" in message or "answer" in message)
        session.reconnect()
        assert model_on_board(session.link) == (sha(models["small"]), 3)


def test_too_big_is_refused_before_sending(models):
    with open_board(virtual=True) as session:
        with pytest.raises(ModelTooBig) as heap:
            deploy.flash(session, models["arena_too_big"])
        facts = model_facts(models["arena_too_big"])
        assert heap.value.what == "heap" and heap.value.needed == facts.heap_needed(False)
        assert heap.value.needed > facts.buffer_bytes
        assert str(facts.heap_needed(False)) in str(heap.value)
        assert str(heap.value.available) in str(heap.value)
        assert heap.value.available <= load_board("rp2040").heap_bytes

        with pytest.raises(ModelTooBig) as flash:
            deploy.flash(session, models["huge"])
        fs_bytes = load_board("rp2040").fs_bytes
        assert flash.value.what == "flash" and flash.value.available == fs_bytes
        assert str(flash.value.needed) in str(flash.value) and str(fs_bytes) in str(flash.value)
        assert session.link.ls("/") == []  # nothing was sent


def test_a_forced_reflash_counts_the_space_the_replaced_files_free(models, tmp_path):
    # A board with room to spare (the host's native module is several times an armv6m
    # one), filled until half of what a forced reflash sends again is free: less than all of
    # it, more than the largest file, which is written beside its old copy.
    with open_board(board="rp2350", virtual=True, flash_dir=tmp_path) as session:
        first = deploy.flash(session, models["small"], run_measure=False)
        blocks = (session.link.fs_info()[1] - first.plan.flash_to_write // 2) // 4096
        session.link.exec("with open('/filler.bin', 'wb') as f:\n"
                          " for _ in range(%d):\n  f.write(bytes(4096))" % blocks, timeout=60)
        free = session.link.fs_info()[1]
        assert first.plan.flash_to_write > free
        again = deploy.flash(session, models["small"], run_measure=False, force=True)
        assert sorted(again.sent.sent) == sorted(first.sent.sent)
        assert again.plan.flash_peak <= free
        assert model_on_board(session.link) == (sha(models["small"]), 3)


def test_flash_peak_follows_the_sends_in_order():
    block = 4096
    wanted = {"/lib/a.mpy": bytes(10000), "/model.bst": bytes(5000)}
    present = {"/lib/a.mpy": 4000, "/model.bst": 9000}
    plan = plan_of(wanted, {}, present, block)
    # a.mpy: 3 blocks written beside its old one, then 2 more in use; the model: 2 blocks
    # beside its old 3 while a.mpy's growth stays
    assert plan.flash_peak == max(3, 2 + 2) * block
    assert plan.flash_to_write == 5 * block
    board = load_board("rp2040")
    for free in (4 * block - 1, 4 * block):
        facts = BoardFacts("1.28.0", 0, "rp2", "", 0, 0, 1 << 20, free)
        if free < plan.flash_peak:
            with pytest.raises(ModelTooBig) as refused:
                check_flash_space(plan, facts, board)
            assert (refused.value.needed, refused.value.available) == (4 * block, free)
        else:
            check_flash_space(plan, facts, board)  # fits, to the byte


def test_memory_error_on_the_board_names_the_sizes(models):
    # A board with flash to spare for the model's 60 KB of self-test vectors beside burn's
    # files (a virtual board holds the host's native module, several times an armv6m one).
    with open_board(board="rp2350", virtual=True) as session:
        first = deploy.flash(session, models["small"])
        free_for_models = first.facts.heap_total - first.measured["heap_runtime"]
        # boot.py keeps a hog: what is left after the runtime is half the arena it needs.
        facts = model_facts(models["arena_60k"])
        hog = free_for_models - facts.arena_bytes // 2
        boot = b"import builtins\nbuiltins.hog = bytearray(%d)\n" % hog
        session.link.put_file(boot, "/boot.py")
        session.link.soft_reset()
        # The board's real free heap is checked before anything is sent.
        with pytest.raises(ModelTooBig) as refused:
            deploy.flash(session, models["arena_60k"])
        assert refused.value.what == "heap" and str(facts.arena_bytes) in str(refused.value)
        assert not session.link.exists("/model.bst") or \
            session.link.sha256("/model.bst") == sha(models["small"])
        # A hog that appears after flashing: the board's MemoryError is reported with sizes.
        session.link.rm("/boot.py")
        session.link.soft_reset()
        deploy.flash(session, models["arena_60k"], run_measure=False)
        session.link.put_file(boot, "/boot.py")
        failure = memory_failure(measure(session, deploy.REMOTE_MODEL), facts, "m.bst")
        message = str(failure)
        assert "ran out of heap" in message and str(facts.arena_bytes) in message
        assert "free after importing the runtime" in message


def test_self_test_failure_is_detected(models):
    with open_board(virtual=True) as session:
        report = deploy.flash(session, models["bad_reference"])
        assert not report.ok
        assert report.self_test_error.startswith("ValueError: self-test 0: output 0")
        assert report.model.host_self_test_error is not None
        assert "FAILED on the board" in "\n".join(report_lines(report))
        good = deploy.flash(session, models["small"])
        assert good.ok and "3 reference vectors passed: int8 outputs equal to the file's " \
            "references bit for bit" in "\n".join(report_lines(good))


def test_a_float_models_report_says_its_outputs_are_float(tmp_path):
    """The self-test line names the outputs' type and what passing means for it: a float32
    model is checked within a tolerance, not bit for bit (it said "int8 outputs equal")."""
    import numpy as np

    import burn
    from burn import nn
    from burn.host.bst_writer import write_bst
    from burn.host.export import to_float_graph

    burn.seed(0)
    mlp = nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 3))
    path = tmp_path / "float.bst"
    write_bst(to_float_graph(mlp, np.random.default_rng(0).random((4, 6), dtype=np.float32),
                             tests=2), path)
    with open_board(virtual=True) as session:
        report = deploy.flash(session, str(path))
    line = next(x for x in report_lines(report) if x.startswith("self-test"))
    assert report.ok, line
    assert line == "self-test   2 reference vectors passed: float32 outputs within " \
        "1e-4 + 1e-3 x |reference| of the file's references"


def test_self_test_verdict_names_each_output_type():
    int8, f32, i16 = ({"dtype": t} for t in ("int8", "float32", "int16"))
    assert self_test_verdict(1, [int8, i16, int8]) == \
        "1 reference vectors passed: int16/int8 outputs equal to the file's references bit for bit"
    assert self_test_verdict(2, [f32, int8]).endswith(
        "int8 outputs equal to the file's references bit for bit; float32 outputs within "
        "1e-4 + 1e-3 x |reference| of the file's references")


def test_no_board_suggests_virtual(models, monkeypatch, capsys):
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: [])
    assert flash_main.main(["--board", "rp2040", models["small"]]) == 2
    err = capsys.readouterr().err
    assert "no rp2040 board found" in err and "--virtual" in err


def test_burn_flash_command_on_a_virtual_board(models):
    proc = subprocess.run(["burn-flash", "--board", "rp2040", "--virtual", models["small"]],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PATH=os.path.dirname(sys.executable) + ":"
                                   + os.environ.get("PATH", "")))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "sending 100%" in out and "3 reference vectors passed" in out
    assert "ms per inference on the board" in out and "bytes in use during inference" in out
