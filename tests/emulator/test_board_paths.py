"""Every board path on the emulated RP2040 running burn's firmware (core frozen in, burnflex
compiled in): burn-flash (first flash into ROMFS, unchanged re-flash, one-weight change, a
fit refused before sending), REPL inference on the MLPerf Tiny KWS model with `m(x)` and
`m.run(x)`, the device test suite, and a transfer cut by a reset of the board.

One emulator serves the module; its flash image is prepared once."""

import ast
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from emulator_support import emulator_or_skip, firmware_or_skip

import burn
from burn.host import deploy
from burn.host.board_session import Emulated, open_board
from burn.host.bst_writer import encode_bst
from burn.host.deploy.errors import FlashError, ModelTooBig
from burn.host.deploy.fit import model_facts
from burn.host.deploy.measure import latency_cycles
from burn.host.importers.tflite import import_tflite

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "host"))
import flash_models
from reference_models import model_path


@pytest.fixture(scope="module")
def firmware():
    emulator_or_skip()
    return firmware_or_skip()


@pytest.fixture(scope="module")
def session(firmware, tmp_path_factory):
    """A BoardSession on the emulated board, flash kept in the module's folder."""
    image = tmp_path_factory.mktemp("emulated") / "flash.img"
    with open_board(emulated=Emulated(firmware, image)) as s:
        yield s


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("models")
    return {"small": flash_models.small(folder / "small.bst"),
            "one_weight": flash_models.small(folder / "one.bst", "one-weight"),
            "wide": flash_models.wide(folder / "wide.bst", 200)}


@pytest.fixture(scope="module")
def kws(tmp_path_factory):
    data = encode_bst(import_tflite(model_path("kws_ref_model.tflite").read_bytes(),
                                    tests=2))
    path = tmp_path_factory.mktemp("kws") / "kws.bst"
    path.write_bytes(data)
    return path


def test_first_flash_puts_the_model_in_romfs_and_passes_its_self_test(session, models):
    report = deploy.flash(session, models["small"])
    assert report.ok, report.self_test_error
    assert report.software.core is None  # frozen in the firmware: nothing of the core sent
    assert report.remote_model == "/rom/model.bst" and report.rom_written
    assert report.measured["backend"].startswith("flex")
    assert report.measured["heap_inference"] == 0
    assert latency_cycles(report.measured) > 0


def test_an_unchanged_reflash_writes_nothing(session, models):
    again = deploy.flash(session, models["small"])
    assert again.ok and again.rom_written is False and again.sent.sent == []


def test_a_one_weight_change_is_written_and_checked(session, models):
    changed = deploy.flash(session, models["one_weight"])
    assert changed.ok and changed.rom_written


def test_a_model_too_big_for_the_heap_is_refused_before_sending(session, models):
    session.link.exec("import os\ntry:\n os.remove('/model.bst')\nexcept OSError:\n pass")
    with pytest.raises(ModelTooBig) as refused:
        deploy.flash(session, models["wide"], placement="fs")
    assert refused.value.what == "heap"
    assert not session.link.exists("/model.bst")


_INFER = """
import burn, gc
from array import array
m = burn.load('/rom/model.bst')
x = array('b', bytes(%d))
y = m(x)
r = m.run(x)
a = d = 0
gc.collect()
a = gc.mem_alloc()
m.run(x)
d = gc.mem_alloc() - a
lat = m.info()['latency']
print(repr((m.backend, m.info()['mode'], y.tolist()[0], list(r), d, m.self_test(), lat,
            m.info()['table_bytes'])))
"""


def test_repl_inference_on_kws_matches_the_host(session, kws):
    report = deploy.flash(session, str(kws), run_measure=False)
    assert report.remote_model == "/rom/model.bst"
    host = burn.load(str(kws))
    n = int(np.prod(host.info()["inputs"][0]["shape"]))
    expected = list(host.run(bytes(n)))
    backend, mode, first, out, allocated, tests, latency, in_ram = ast.literal_eval(
        session.link.exec(_INFER % n, timeout=120).strip().splitlines()[-1])
    assert backend == "flex" and mode == "mapped"
    assert in_ram == 0  # weights and int32 tables all read in place from flash
    assert out == expected and first == expected
    assert allocated == 0 and tests == 2
    # m.info() gives the last inference's latency in cycles at the board's clock
    assert latency["cpu_mhz"] == 125 and latency["cycles"] == latency["us"] * 125
    assert 5e6 < latency["cycles"] < 60e6  # the MLPerf Tiny KWS model on the Cortex-M0+
    assert latency["ms_at_133mhz"] < latency["ms_at_125mhz"]


def test_the_device_suite_passes_on_the_emulated_board(firmware):
    tests = Path(__file__).resolve().parent.parent / "device"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n0", "-p", "no:cacheprovider", str(tests),
         "--board", "rp2040", "--emulated", "--firmware", str(firmware)],
        capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout and "failed" not in proc.stdout


def test_garbage_on_the_line_mid_transfer_is_survived(session, models):
    noise = bytes(random.Random(1).randrange(256) for _ in range(300))
    done = []

    def noisy(remote, sent, total):
        if remote == deploy.REMOTE_MODEL and sent * 2 >= total and not done:
            done.append(True)
            session.link.repl.conn.write(noise)

    report = deploy.flash(session, models["small"], placement="fs", progress=noisy)
    assert done and report.ok
    assert session.link.sha256(deploy.REMOTE_MODEL) == model_facts(models["small"]).sha256


def test_power_lost_mid_transfer_keeps_the_previous_model(firmware, models, tmp_path):
    image = tmp_path / "flash.img"
    emulated = Emulated(firmware, image)
    with open_board(emulated=emulated) as s:
        deploy.flash(s, models["small"], placement="fs", run_measure=False)
        time.sleep(0.5)  # the emulator writes its flash image back 300 ms after a change
        cut = []

        def pull_the_plug(remote, sent, total):
            if remote == deploy.REMOTE_MODEL and sent * 2 >= total and not cut:
                cut.append(True)
                s.virtual_board.proc.kill()

        with pytest.raises(FlashError) as failure:
            deploy.flash(s, models["one_weight"], placement="fs", progress=pull_the_plug)
    assert "lost the board" in str(failure.value)
    with open_board(emulated=Emulated(None, image)) as s:
        assert s.link.sha256(deploy.REMOTE_MODEL) == model_facts(models["small"]).sha256
        assert ast.literal_eval(s.link.exec(
            "import burn\nprint(burn.load('/model.bst').self_test())").strip()) == 3


def test_burn_demo_runs_on_the_emulated_board(firmware, tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from burn.host.cli import main; sys.exit(main())",
         "demo", "--epochs", "1", "--emulated", "--firmware", str(firmware),
         "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=400, check=False)
    out = proc.stdout
    assert proc.returncode == 0, out[-3000:] + proc.stderr[-2000:]
    assert "results on emulated rp2040" in out and "core: frozen in the firmware" in out
    assert "359/359 outputs bit-identical, 359/359 same class" in out
    assert re.search(r"cycles +[\d,]+ per inference at the board's 125 MHz", out)
