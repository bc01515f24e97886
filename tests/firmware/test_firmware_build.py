"""The firmware build for the RP2040: one real build (cached in ~/.cache/burn by the hash of
its inputs, so only the first run pays for it), the image's contents, the size report, and
the messages for bad inputs (which fail before anything is built)."""

import os
import shutil
import time

import pytest

from burn.host import uf2
from burn.host.cli import main
from burn.host.firmware import FirmwareError, inputs, ops_select, toolchain
from burn.host.firmware.build import build_firmware, cached_image
from burn.host.firmware.recipe import load_recipe, recipe_boards
from burn.host.flex.elf import Elf


def _toolchain_or_skip():
    try:
        toolchain.check_build_tools()
        toolchain.find_toolchain()
    except FirmwareError as e:
        pytest.skip("no Arm toolchain for firmware builds: %s" % e)


@pytest.fixture(scope="module")
def built():
    """The rp2040 firmware (built now unless the cache holds it for these inputs)."""
    _toolchain_or_skip()
    return build_firmware("rp2040")


@pytest.fixture(scope="module")
def flash(built):
    """{address: bytes} the UF2 writes, parsed with validation."""
    return uf2.image(uf2.parse(built.uf2.read_bytes()))


def test_uf2_is_an_rp2040_image_that_fits_the_code_space(built, flash):
    data = built.uf2.read_bytes()
    assert len(data) % 512 == 0
    assert uf2.families(uf2.parse(data)) == [uf2.FAMILIES["rp2040"]]
    start = min(flash)
    end = max(addr + len(chunk) for addr, chunk in flash.items())
    assert start == 0x10000000
    # more than stock MicroPython (about 340 kB), less than the code space
    assert 400_000 < end - start <= built.report["code_limit"] - 0x10000000
    assert end - 256 < built.report["flash_end"] <= end  # UF2 payloads are 256-byte pages


def test_image_holds_burn_frozen_modules(flash):
    """Every core module the default selection needs, none of an optional op's, and no
    kernel check module (burn.bst_ops already refuses an op whose module is left out)."""
    facts = uf2.micropython_facts(flash)
    assert facts["version"].startswith("v1.28.0")
    frozen = set(facts["frozen"])
    # a default firmware freezes the core less the modules only the optional ops use
    kept = inputs.core_files(ops_select.default_kernels())
    for rel in inputs.core_files():
        assert ("burn/" + rel in frozen) == (rel in kept), rel
    assert "burn/" + ops_select.BUILT_MODULE not in frozen  # no kernel check to make
    # control flow and variables only in a firmware for such models (--ops-from) or --all-ops
    assert "burn/" + ops_select.CONTROL_FILE not in frozen
    assert "asyncio/core.py" in frozen  # the port's own manifest is still included


@pytest.mark.skipif(not inputs.has_flex_module(), reason="micropython/micropython.cmake absent")
def test_image_holds_the_flex_module_with_hot_kernels_in_sram(built, flash):
    blob = b"".join(flash.values())
    assert b"burnflex" in blob
    report = built.report
    assert report["flex_module"]
    assert report["parts"]["flex_module"]["text"] > 0
    assert report["ram_code"], "no flex kernel was placed in SRAM"
    for _name, addr, size in report["ram_code"]:
        assert 0x20000000 <= addr < 0x20042000 and size > 0


def test_size_report_adds_up(built):
    report = built.report
    parts, total = report["parts"], report["total"]
    for kind in ("text", "data", "bss"):
        assert all(parts[p][kind] >= 0 for p in parts)
        assert sum(parts[p][kind] for p in parts) == total[kind]
    # the frozen core is tens of kB of bytecode, and well under the whole image
    assert 50_000 < parts["frozen_core"]["text"] < total["text"] // 2


def test_second_build_is_taken_from_the_cache(built, tmp_path, capsys):
    out = tmp_path / "fw.uf2"
    started = time.monotonic()
    assert main(["firmware", "build", "--board", "rp2040", "-o", str(out)]) == 0
    assert time.monotonic() - started < 30
    assert out.read_bytes() == built.uf2.read_bytes()
    text = capsys.readouterr().out
    assert "cached" in text and "burn frozen core" in text
    assert cached_image("rp2040") == built.uf2


def _fails(argv, capsys, tmp_path, *needles):
    out = tmp_path / "never.uf2"
    assert main([*argv, "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err
    assert not out.exists()
    return err


def test_unknown_board_lists_the_boards_with_a_recipe(capsys, tmp_path):
    _fails(["firmware", "build", "--board", "nosuch"], capsys, tmp_path, "unknown board")


def test_board_without_recipe_names_those_with_one(capsys, tmp_path):
    err = _fails(["firmware", "build", "--board", "esp32"], capsys, tmp_path,
                 "no firmware recipe")
    assert recipe_boards() == ["qemu-m33", "qemu-m55", "qemu-m7", "qemu-rv32", "rp2040",
                               "rp2350"]
    assert "qemu-m33, qemu-m55, qemu-m7, qemu-rv32, rp2040, rp2350" in err


def test_stock_and_debug_exclude_each_other(capsys, tmp_path):
    _fails(["firmware", "build", "--stock", "--debug"], capsys, tmp_path, "--stock or --debug")


def test_debug_recipe_keeps_line_numbers_in_its_own_cache_entry():
    release, debug = load_recipe("rp2040"), load_recipe("rp2040", debug=True)
    assert (release.flavor, debug.flavor) == ("burn", "burn-debug")
    assert "opt=None if options.debug else 3" in release.manifest.read_text()
    assert 'include("manifest.py", debug=True)' in debug.manifest.read_text()
    assert inputs.cache_key(release, "1.28.0", "12") != inputs.cache_key(debug, "1.28.0", "12")


def test_wrong_micropython_version_is_refused(capsys, tmp_path):
    _toolchain_or_skip()
    tree = tmp_path / "mp"
    (tree / "py").mkdir(parents=True)
    (tree / "py" / "mpconfig.h").write_text(
        "#define MICROPY_VERSION_MAJOR 1\n#define MICROPY_VERSION_MINOR 27\n"
        "#define MICROPY_VERSION_MICRO 0\n")
    _fails(["firmware", "build", "--micropython", str(tree)], capsys, tmp_path,
           "MicroPython 1.27.0", "v1.28.0")


def test_missing_micropython_tree_is_refused(capsys, tmp_path):
    _toolchain_or_skip()
    _fails(["firmware", "build", "--micropython", str(tmp_path / "nothing")], capsys,
           tmp_path, "does not exist")


def test_missing_tools_give_the_install_line(capsys, tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))  # an empty folder: no cmake, no compiler
    _fails(["firmware", "build"], capsys, tmp_path, "cmake not found on PATH")
    for tool in ("cmake", "make"):  # the build tools, but still no Arm compiler
        found = shutil.which(tool, path=os.defpath + os.pathsep + "/usr/local/bin")
        if found is None:
            pytest.skip("%s is not installed" % tool)
        (bin_dir / tool).symlink_to(found)
    err = _fails(["firmware", "build"], capsys, tmp_path, toolchain.install_line())
    assert "arm-none-eabi-gcc not found" in err
    # a RISC-V board names its own compiler and packages
    err = _fails(["firmware", "build", "--board", "qemu-rv32"], capsys, tmp_path,
                 toolchain.install_line(riscv=True))
    assert "riscv64-unknown-elf-gcc not found" in err and "picolibc" in err


VIPER_ON_BOARD = """
import burn, burnflex
from array import array
from burn.kernels import matmul, matmul_viper  # matmul first: it picks its viper twin
a = array('b', [1, -2, 3, 4, -5, 6])
b = array('b', [7, 8, -9, 10, 11, 12])
out = array('i', [0] * 4)
matmul_viper._matmul_bytes(a, b, out, array('i', [1, 2, 3, 2, 0, 0, 128]))
print(list(out), burn.__file__, burnflex.__name__)
"""


def test_frozen_native_code_is_word_aligned(built):
    """Cortex-M0+ native code reads its 32-bit constants pc-relative and needs a function to
    start on a word boundary (burn.host.firmware.native_align): every frozen one does."""
    elf = Elf(built.elf.read_bytes())
    native = {s.name: s.value for s in elf.symbols
              if s.name.startswith("fun_data_burn_") and s.section is not None
              and s.section.name == ".text"}
    assert len(native) >= 19  # the core's viper and native functions, frozen as machine code
    assert {n: hex(a) for n, a in native.items() if a % 4} == {}


def test_frozen_viper_kernel_runs_on_the_emulated_rp2040(built):
    """The frozen core imports and its frozen viper code gives exact results on the board."""
    from burn.host.emulator.board import EmulatedBoard
    from burn.host.emulator.runtime import EmulatorError
    from burn.host.link.link import Link

    try:
        board = EmulatedBoard("rp2040", firmware=built.uf2).start()
    except EmulatorError as e:
        pytest.skip("no emulated RP2040: %s" % e)
    try:
        link = Link(board.port)
        try:
            text = link.exec(VIPER_ON_BOARD, timeout=60)
        finally:
            link.close()
    finally:
        board.close()
    # the 2x3 by 3x2 int8 product, computed by hand; burn imported from the frozen modules
    assert text.split() == ["[58,", "24,", "139,", "54]", "burn/__init__.py", "burnflex"]
