"""`burn compile --platformio-project`: the project it writes, built and tested by the real
PlatformIO 6 with the vendored platforms and Unity (no registry): `pio test -e native` runs
the library's Unity tests under ASan and UBSan, and catches an arena smaller than stated;
the bare-metal RP2040 and STM32G0 images run in the Cortex-M emulator, and the RP2040's UF2
boots on the emulated RP2040 (bootrom, boot2, vector table) and prints over UART0."""

import subprocess
import sys

import pytest
from reference_models import model_path

from burn.host.compile.platformio import OfflinePlatformIO, PlatformIOMissing

CLI = [sys.executable, "-c", "import sys; from burn.host.cli import main; sys.exit(main())"]


@pytest.fixture(scope="module")
def pio():
    try:
        return OfflinePlatformIO()
    except PlatformIOMissing as exc:
        pytest.skip(str(exc))


@pytest.fixture
def project(tmp_path):
    proc = subprocess.run(CLI + ["compile", str(model_path("kws_ref_model.tflite")), "-o",
                                 str(tmp_path / "kws"), "--name", "kws", "--tests", "2",
                                 "--platformio-project", str(tmp_path / "app")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return tmp_path / "app"


def test_pio_test_passes_the_librarys_unity_tests_under_sanitizers(pio, project):
    assert "-fsanitize=address,undefined" in (project / "platformio.ini").read_text()
    out = pio.project("test", project)
    assert "3 test cases: 3 succeeded" in out, out[-2000:]


def test_an_arena_smaller_than_stated_stops_the_tests(pio, project):
    test = project / "test" / "test_kws" / "test_main.c"
    text = test.read_text()
    assert "malloc(KWS_ARENA_BYTES);" in text
    test.write_text(text.replace("malloc(KWS_ARENA_BYTES);", "malloc(KWS_ARENA_BYTES - 8);"))
    with pytest.raises(RuntimeError, match="pio test -e native failed"):
        pio.project("test", project)


def test_pio_run_builds_the_self_test_program(pio, project):
    pio.project("run", project)
    proc = subprocess.run([str(project / ".pio" / "build" / "native" / "program")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "kws self-test: passed (0)" in proc.stdout


@pytest.mark.parametrize("board", ["pico", "nucleo_g071rb"])
def test_a_bare_metal_environment_builds_an_elf_that_passes_in_the_cortex_m_emulator(
        pio, tmp_path, board):
    import shutil

    import numpy as np

    import burn
    from burn.host.flex.emulator import EmulatedLib

    if shutil.which("arm-none-eabi-gcc") is None:
        pytest.skip("arm-none-eabi-gcc not found; install it with: apt-get install -y "
                    "gcc-arm-none-eabi libnewlib-arm-none-eabi")
    model = model_path("kws_ref_model.tflite")
    proc = subprocess.run(CLI + ["compile", str(model), "-o", str(tmp_path / "kws"), "--name",
                                 "kws", "--tests", "2", "--target", "cortex-m0plus",
                                 "--platformio-project", str(tmp_path / "app"), "--board",
                                 board], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = pio.project("run", tmp_path / "app", env=board)
    if board == "pico":
        assert "firmware.uf2" in out  # the UF2 written by burn's elf2uf2 stand-in
        _boots_and_prints_on_the_emulated_rp2040(tmp_path / "app" / ".pio" / "build" / board /
                                                 "firmware.uf2")
    m0 = EmulatedLib("cortex-m0plus", image=str(tmp_path / "app" / ".pio" / "build" / board /
                                                "firmware.elf"))
    assert m0.call("kws_selftest", []) == 0
    x = np.random.default_rng(2).integers(-128, 128, 490, dtype=np.int8)
    y = np.zeros(12, np.int8)
    assert m0.call("kws_run", [x, y]) == 0
    from burn.host.bst_writer import encode_bst
    from burn.host.importers.tflite import import_tflite
    host = burn.load(encode_bst(import_tflite(model.read_bytes(), tests=1)))
    assert list(y) == list(host.run(x))


def _boots_and_prints_on_the_emulated_rp2040(uf2):
    from burn.host import vendor
    from burn.host.emulator import EmulatorError
    from burn.host.emulator.program import run_program
    from burn.host.emulator.runtime import find_node

    try:
        find_node()
        vendor.bootrom()
    except (EmulatorError, vendor.VendorError) as exc:
        pytest.skip(str(exc))
    run = run_program(uf2, max_cycles=200_000_000)
    assert (run.reason, run.code) == ("breakpoint", 0), run
    lines = dict(line.split(": ") for line in run.output.splitlines())
    assert lines["selftest"] == "0"
    # the self-test's 2 vectors and the timed inference are nearly all of the run (boot2,
    # clocks and UART take about 35 k cycles): SysTick's count is the emulator's
    cycles = int(lines["cycles"])
    assert 0 < run.cycles - 3 * cycles < 200_000, (cycles, run.cycles)


def test_a_missing_micropython_source_is_one_line_naming_it(tmp_path):
    """--board pico takes boot2 from the MicroPython source that --micropython names: a
    folder that is not there is one line naming it and the option, before any build."""
    missing = tmp_path / "no-such-micropython"
    proc = subprocess.run(CLI + ["compile", str(model_path("kws_ref_model.tflite")), "-o",
                                 str(tmp_path / "kws"), "--tests", "1", "--platformio-project",
                                 str(tmp_path / "app"), "--board", "pico", "--micropython",
                                 str(missing)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert "boot2" in last and str(missing) in last and "does not exist" in last, last
    assert not (tmp_path / "app" / "src" / "boot2.c").exists()


def test_boot2_is_padded_to_252_bytes_and_checksummed_as_the_bootrom_checks():
    from burn.host.compile import boot2
    from burn.host.compile.trace import CompileError

    assert boot2.crc32(b"123456789") == 0x0376E6E7  # CRC-32/MPEG-2's check value
    image = boot2.padded(b"\x00\xb5")
    assert len(image) == 256 and image[2:252] == bytes(250)
    assert image[252:] == boot2.crc32(image[:252]).to_bytes(4, "little")
    with pytest.raises(CompileError, match="at most 252 fit"):
        boot2.padded(bytes(253))
