"""The board paths on the QEMU boards (`--board qemu-* --emulated`): burn's firmware for them
keeps a littlefs filesystem and a ROMFS partition in RAM (firmware/qemu/ram_flash.c), so
burn-flash puts a model into ROMFS, where it is read in place, and checks it on the board;
burn repl, burn demo and the device test suite run there too. The partition behaves as NOR
flash and both areas outlive a soft reset. Skips with the install line without QEMU or the
board's toolchain."""

import subprocess
import sys
from pathlib import Path

import pytest
from firmware_support import built_or_skip
from reference_models import model_path

from burn.host.board_session import Emulated, open_board
from burn.host.bst_writer import encode_bst
from burn.host.emulator.qemu import qemu_boards
from burn.host.importers.tflite import import_tflite
from burn.host.link import NoBoardError

_PACKAGE = {"qemu-system-arm": "qemu-system-arm", "qemu-system-riscv32": "qemu-system-misc"}


def _firmware_or_skip(board):
    """burn's ELF for QEMU board `board` (built now unless cached), or a skip."""
    import shutil

    from burn.host.boards import load_board

    program = load_board(board).qemu_system
    if shutil.which(program) is None:
        pytest.skip("%s not found (apt-get install -y %s)" % (program, _PACKAGE[program]))
    return built_or_skip(board).elf


@pytest.fixture(scope="module")
def kws(tmp_path_factory):
    path = tmp_path_factory.mktemp("kws") / "kws.bst"
    path.write_bytes(encode_bst(import_tflite(model_path("kws_ref_model.tflite").read_bytes(),
                                              tests=2)))
    return path


# command: the module whose main() it runs (pyproject.toml's scripts)
_ENTRY = {"burn": "burn.host.cli", "burn-flash": "burn.host.cli.flash_main"}


def _cli(command, *args):
    code = "import sys; from %s import main; sys.exit(main())" % _ENTRY[command]
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=600)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize("board", qemu_boards())
def test_burn_flash_puts_kws_in_romfs_and_checks_it_on_the_board(board, kws):
    _firmware_or_skip(board)
    status, out, err = _cli("burn-flash", "--board", board, "--emulated", str(kws))
    assert status == 0, out + err
    assert "2 reference vectors passed" in out  # TFLM's, bit for bit
    assert "in ROMFS (/rom/model.bst, read in place)" in out
    assert "0 allocated by an inference" in out
    assert "core 0 (frozen)" in out
    latency = next(line for line in out.splitlines() if line.startswith("latency"))
    assert latency.endswith("flex kernels)")
    # QEMU's instruction clock: a DS-CNN of 2.7 M MACs takes millions of instructions (on
    # the M55 fewer than its MACs: Helium's VMLAVA takes 16 at once)
    assert 1.0 < float(latency.split()[1]) < 200, latency


def test_burn_repl_runs_code_beside_the_model_in_romfs(kws):
    _firmware_or_skip("qemu-rv32")
    status, out, err = _cli("burn", "repl", "--board", "qemu-rv32", "--emulated", str(kws),
                            "-c", "import burn, os\nm = burn.load('/rom/model.bst')\n"
                            "(m.self_test(), os.listdir('/rom'))")
    assert status == 0, out + err
    assert out.strip().splitlines()[-1] == "(2, ['model.bst'])"


def test_burn_demo_classifies_on_a_qemu_board(tmp_path):
    _firmware_or_skip("qemu-m33")
    status, out, err = _cli("burn", "demo", "--board", "qemu-m33", "--emulated", "--epochs",
                            "1", "--out", str(tmp_path))
    assert status == 0, out + err
    assert "emulated qemu-m33" in out
    line = next(line for line in out.splitlines() if "bit-identical" in line)
    equal, total = line.split()[4].split("/")
    assert equal == total  # every output equal to the host's


def test_the_device_suite_passes_on_a_qemu_board():
    firmware = _firmware_or_skip("qemu-rv32")
    tests = Path(__file__).resolve().parent.parent / "device"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n0", "-p", "no:cacheprovider", str(tests),
         "--board", "qemu-rv32", "--emulated", "--firmware", str(firmware)],
        capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout and "failed" not in proc.stdout


def test_the_flash_areas_behave_as_nor_flash_and_outlive_a_soft_reset():
    firmware = _firmware_or_skip("qemu-m7")
    with open_board(board="qemu-m7", emulated=Emulated(firmware)) as session:
        link = session.link
        got = link.exec_literal(
            "import qemu_flash, os\n"
            "r = qemu_flash.rom\n"
            "b = bytearray(4096)\n"
            "b[0:2] = b'\\xf0\\x0f'\n"
            "r.writeblocks(3, b)\n"  # erase, then program
            "r.writeblocks(3, b'\\x3c', 0)\n"  # program only: clears bits, sets none
            "m = memoryview(r)\n"
            "open('/kept.txt', 'w').write('kept')\n"
            "print(repr((m[3 * 4096], m[3 * 4096 + 1], m[4 * 4096], r.ioctl(4, 0), "
            "r.ioctl(5, 0))))")
        assert got == (0xF0 & 0x3C, 0x0F, 0xFF, 128, 4096)
        link.soft_reset()
        assert link.exec_literal("import os, qemu_flash\nprint(repr((open('/kept.txt')."
                                 "read(), memoryview(qemu_flash.rom)[3 * 4096])))") == \
            ("kept", 0x30)


def test_a_flash_image_is_refused_for_a_qemu_board(tmp_path):
    with pytest.raises(NoBoardError, match="keeps its flash in RAM"):
        open_board(board="qemu-m7", emulated=Emulated(flash_image=tmp_path / "f.img"))
