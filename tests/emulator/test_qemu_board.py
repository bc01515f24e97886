"""burn's firmware for the QEMU boards (qemu-m7: MicroPython's qemu port on QEMU's mps2-an500,
a Cortex-M7 with its FPU; qemu-m33: burn's own board of that port on mps2-an505, a Cortex-M33
with its single-precision FPU; qemu-m55: mps3-an547, a Cortex-M55; qemu-rv32: QEMU's RISC-V
virt machine, rv32imac without an FPU), burn frozen in and the flex module compiled for the core,
built by `burn firmware build` and booted under QEMU with the console on a pty, driven over
the raw REPL as a real board is; the native module of each board's architecture runs KWS
there in place of the built-in one, bit for bit with TFLM's vectors (burn-flash checks the
built-in one on every board: test_qemu_flash.py). Skips with the install line without QEMU
or the board's toolchain."""

import shutil
import subprocess
import sys

import pytest
from firmware_support import built_or_skip
from reference_models import model_path

from burn.host.bst_writer import encode_bst
from burn.host.emulator import EmulatorError
from burn.host.emulator.qemu import QemuBoard, qemu_boards, send_bytes
from burn.host.importers.tflite import import_tflite
from burn.host.link import connect

BOARD = "qemu-m7"  # the board of the tests that need only one
BOARDS = ("qemu-m7", "qemu-m33", "qemu-m55", "qemu-rv32")
MCUS = {"qemu-m7": "Cortex-M7", "qemu-m33": "Cortex-M33", "qemu-m55": "Cortex-M55",
        "qemu-rv32": "rv32imac"}
NO_FPU = ("qemu-rv32",)
_PACKAGE = {"qemu-system-arm": "qemu-system-arm", "qemu-system-riscv32": "qemu-system-misc"}


def _qemu_or_skip(board=BOARD):
    from burn.host.boards import load_board

    program = load_board(board).qemu_system
    if shutil.which(program) is None:
        pytest.skip("%s not found (apt-get install -y %s)" % (program, _PACKAGE[program]))


@pytest.fixture(scope="module", params=BOARDS)
def firmware(request):
    """burn's ELF for each QEMU board, built (or taken from the cache) once for the module."""
    _qemu_or_skip(request.param)
    return built_or_skip(request.param)


@pytest.fixture(scope="module")
def board(firmware):
    name = firmware.report["board"]
    with QemuBoard(name, firmware=firmware.elf) as running, connect(running.port) as link:
        yield name, link


def test_the_board_is_data_and_its_firmware_holds_burn_and_flex(firmware):
    report = firmware.report
    assert report["board"] in qemu_boards() and report["flex_module"]
    assert report["parts"]["frozen_core"]["text"] > 100_000  # burn's core, frozen
    assert report["parts"]["flex_module"]["text"] > 20_000
    assert report["code_base"] is None  # no flash: QEMU loads the image into RAM
    assert 0 < report["image_bytes"] <= report["code_limit"]


def test_boots_to_the_repl_with_burn_frozen_and_flex_built_in(board):
    name, link = board
    got = link.exec_literal(
        "import sys, gc, burn, burnflex\n"
        "print(repr((sys.platform, sys.implementation._machine, gc.mem_free() > 900_000, "
        "'conv_s8' in dir(burnflex), 'conv_f32' in dir(burnflex))))")
    platform, machine, heap, int8, float32 = got
    assert platform == "qemu" and MCUS[name] in machine
    assert heap and int8
    # the float kernels are built where the core has an FPU
    assert float32 == (name not in NO_FPU)


# Imports the bytes `natmod` (a .mpy in RAM: the qemu port has no filesystem) as module
# `bfnat`, through a file system of one file mounted at /natmod, then makes it the module
# burn imports as `burnflex` (loaded modules come before built-in ones).
_NATMOD_AS_BURNFLEX = """
import io, sys, vfs
class _File(io.IOBase):
    def __init__(self):
        self.at = 0
    def ioctl(self, request, arg):
        return 0
    def readinto(self, buf):
        n = min(len(buf), len(natmod) - self.at)
        buf[:n] = memoryview(natmod)[self.at:self.at + n]
        self.at += n
        return n
class _OneFile:
    def mount(self, readonly, mkfs):
        pass
    def umount(self):
        pass
    def chdir(self, path):
        pass
    def stat(self, path):
        if path == "/bfnat.mpy":
            return (0x8000, 0, 0, 0, 0, 0, len(natmod), 0, 0, 0)
        raise OSError(2)
    def open(self, path, mode):
        return _File()
vfs.mount(_OneFile(), "/natmod")
sys.path.insert(0, "/natmod")
import bfnat
sys.modules["burnflex"] = bfnat
import burn
m = burn.load(data)
print(repr((m.self_test(), m.info()["backend"], bfnat.__file__)))
"""


def test_the_native_module_for_the_boards_architecture_runs_kws(board):
    """burnflex.mpy built for the architecture the board reports (rv32imc, armv7emsp,
    armv7emdp) loads on it and runs KWS bit for bit with TFLM in place of the built-in
    module."""
    from burn.host.mpy import natmod

    link = board[1]
    flags = int(link.exec("import sys\nprint(sys.implementation._mpy)"))
    arch = natmod.NATIVE_ARCHES[(flags >> 10) & 15]
    if arch not in natmod.ARCHES:
        pytest.skip("burn builds no native module for %s" % arch)
    if board[0] == "qemu-m55":
        pytest.skip("qemu-m33 loads the same armv7emsp module")
    try:
        data = natmod.build_natmod(arch).read_bytes()
    except natmod.NatmodError as exc:
        pytest.skip("no %s native module could be built: %s" % (arch, exc))
    assert natmod.check_mpy_compatible(natmod.mpy_header(data), flags) is None
    send_bytes(link, "natmod", data)
    send_bytes(link, "data", encode_bst(import_tflite(
        model_path("kws_ref_model.tflite").read_bytes(), tests=2)))
    tests, backend, where = link.exec_literal(_NATMOD_AS_BURNFLEX, timeout=300)
    assert (tests, backend, where) == (2, "flex", "/natmod/bfnat.mpy")
    link.soft_reset()  # the board's own burnflex again for the module's other tests


def test_a_firmware_that_never_reaches_the_repl_times_out_with_the_console(tmp_path):
    _qemu_or_skip()
    elf = tmp_path / "silent.elf"
    # a valid Cortex-M image that spins before printing anything
    source = tmp_path / "spin.c"
    source.write_text("void Reset_Handler(void) { for (;;) { } }\n"
                      "__attribute__((section(\".isr_vector\"))) const void *vectors[2] = "
                      "{ (void *)0x00400000, (void *)Reset_Handler };\n")
    gcc = shutil.which("arm-none-eabi-gcc")
    if gcc is None:
        pytest.skip("arm-none-eabi-gcc not found (apt-get install -y gcc-arm-none-eabi)")
    subprocess.run([gcc, "-mcpu=cortex-m7", "-mthumb", "-nostdlib", "-Wl,-Ttext=0",
                    "-Wl,--entry=Reset_Handler", "-o", str(elf), str(source)], check=True)
    with pytest.raises(EmulatorError, match="never reached the REPL"):
        QemuBoard(BOARD, firmware=elf).start(timeout=3)


def test_a_missing_qemu_is_named_with_its_install_line(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(EmulatorError, match="apt-get install -y qemu-system-arm"):
        QemuBoard(BOARD, firmware=tmp_path / "x.elf").start()


def test_a_qemu_without_the_boards_machine_is_named_with_its_version(tmp_path):
    """The message an older QEMU gives (7.2 added mps3-an547): a machine this one lacks."""
    import dataclasses

    _qemu_or_skip()
    board = QemuBoard(BOARD, firmware=tmp_path / "x.elf")
    (tmp_path / "x.elf").write_bytes(b"\x7fELF")
    board.board = dataclasses.replace(board.board, qemu_machine="mps9-an999")
    with pytest.raises(EmulatorError, match=r"QEMU emulator version [\d.]+.* does not emulate "
                       r"the machine mps9-an999.*QEMU 7.2 or newer"):
        board.start(timeout=10)


def test_only_qemu_boards_are_emulated_by_qemu():
    with pytest.raises(EmulatorError, match="qemu-m7"):
        QemuBoard("rp2040")


def test_burn_board_emulate_lists_the_qemu_boards():
    argv = [sys.executable, "-c", "from burn.host.cli import main; main()", "board", "emulate",
            "--help"]
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    assert "qemu-m7" in out
