"""UF2 files: the validating reader, the writer, ELF and binary conversions, the MicroPython
facts of a firmware image, hostile input, and `burn uf2`."""

import json
import os
import random
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from burn.host import uf2
from burn.host.cli import main
from burn.host.flex.elf import Elf

sys.path.insert(0, os.path.dirname(__file__))
import uf2_samples

FLASH = uf2.RP2040_FLASH_BASE
RP2040 = 0xE48BFF56
RP2350 = 0xE48BFF59

APP_C = """
const unsigned int table[4] = {0x11111111u, 0x22222222u, 0x33333333u, 0x44444444u};
unsigned int counter = 0x12345678u;
unsigned int zeros[16];

void _start(void) {
    counter += table[zeros[0] & 3];
    for (;;) {
    }
}
"""

# .data runs from RAM but is stored in flash after the code: its physical address differs
# from its virtual one, which is what a UF2 must use.
LINK_LD = """
MEMORY {
    FLASH (rx) : ORIGIN = 0x10000000, LENGTH = 2048K
    RAM (rwx) : ORIGIN = 0x20000000, LENGTH = 256K
}
ENTRY(_start)
SECTIONS {
    .text : { KEEP(*(.text*)) *(.rodata*) } > FLASH
    .data : { *(.data*) } > RAM AT > FLASH
    .bss : { *(.bss*) *(COMMON) } > RAM
}
"""


@pytest.fixture(scope="module")
def app_elf(tmp_path_factory):
    """A real Cortex-M0+ ELF, compiled and linked by zig's clang."""
    pytest.importorskip("ziglang", reason="the ziglang package compiles the test ELF "
                                          "(pip install ziglang)")
    folder = tmp_path_factory.mktemp("elf")
    (folder / "app.c").write_text(APP_C)
    (folder / "link.ld").write_text(LINK_LD)
    subprocess.run([sys.executable, "-m", "ziglang", "cc", "-target", "thumb-freestanding-eabi",
                    "-mcpu=cortex_m0plus", "-nostdlib", "-ffreestanding", "-O1",
                    "-Wl,-T," + str(folder / "link.ld"), "-o", str(folder / "app.elf"),
                    str(folder / "app.c")], check=True, capture_output=True)
    return folder / "app.elf"


@pytest.fixture(scope="module")
def fw_uf2():
    return uf2_samples.firmware_uf2()


def set_field(data, block, offset, value):
    """`data` with the 32-bit header word at `offset` of `block` set to `value`."""
    out = bytearray(data)
    struct.pack_into("<I", out, block * 512 + offset, value)
    return bytes(out)


def error_of(data):
    with pytest.raises(uf2.UF2Error) as info:
        uf2.parse(data)
    return str(info.value)


# ---- writing and reading back -----------------------------------------------------------------


def test_bin_round_trip_is_exact_for_whole_pages():
    data = random.Random(3).randbytes(256 * 40)
    blocks = uf2.parse(uf2.write_uf2((FLASH, data), "rp2040"))
    assert len(blocks) == 40
    assert all(b.family == RP2040 and len(b.data) == 256 and b.address % 256 == 0
               for b in blocks)
    assert uf2.to_bin(uf2.image(blocks)) == (FLASH, data)


def test_bin_round_trip_pads_partial_pages_with_erased_flash():
    data = random.Random(4).randbytes(1000)
    base, out = uf2.to_bin(uf2.image(uf2.parse(uf2.write_uf2((FLASH + 16, data), RP2350))))
    assert base == FLASH
    assert out == b"\xff" * 16 + data + b"\xff" * (1024 - 16 - 1000)


def test_gaps_between_ranges_are_filled_with_ff():
    ranges = {FLASH: b"\x01" * 256, FLASH + 1024: b"\x02" * 256}
    blocks = uf2.parse(uf2.write_uf2(ranges, "rp2040"))
    assert uf2.image(blocks) == ranges
    base, out = uf2.to_bin(uf2.image(blocks))
    assert (base, out) == (FLASH, b"\x01" * 256 + b"\xff" * 768 + b"\x02" * 256)


def test_smaller_payloads_and_bad_payload_sizes():
    data = bytes(range(256))
    blocks = uf2.parse(uf2.write_uf2((0x20000000, data), "data", payload=64))
    assert [b.address for b in blocks] == [0x20000000 + 64 * i for i in range(4)]
    for payload in (0, 100, 476, 512):
        with pytest.raises(uf2.UF2Error, match="power of two"):
            uf2.write_uf2((FLASH, data), "rp2040", payload=payload)


def test_a_binary_spanning_flash_and_ram_is_refused():
    ranges = {FLASH: b"\0" * 256, 0x20000000: b"\0" * 256}
    with pytest.raises(uf2.UF2Error, match="too far apart"):
        uf2.to_bin(ranges)


def test_family_names_and_numbers():
    assert uf2.family_id("rp2040") == RP2040
    assert uf2.family_id("RP2350_ARM_S") == RP2350
    assert uf2.family_id("0xc47e5767") == uf2.FAMILIES["esp32s3"]
    assert uf2.family_name(0xADA52840) == "nrf52840"
    assert uf2.family_name(0x12345678) == "0x12345678"
    with pytest.raises(uf2.UF2Error, match=r"unknown UF2 family 'pico'.*rp2040"):
        uf2.family_id("pico")


# ---- ELF --------------------------------------------------------------------------------------


def test_elf_to_uf2_puts_segments_at_physical_addresses(app_elf):
    data = app_elf.read_bytes()
    elf = Elf(data)
    text = next(s for s in elf.sections if s.name == ".text")
    ranges = uf2.elf_ranges(data)
    assert list(ranges) == [FLASH]  # code, unwind table and .data's initial values
    flash = ranges[FLASH]
    assert flash[:text.size] == data[text.offset:text.offset + text.size]
    data_at = elf.symbol("counter")
    assert data_at == 0x20000000  # runs from RAM ...
    assert struct.pack("<I", 0x12345678) == flash[-4:]  # ... stored in flash after the code
    image = uf2.image(uf2.parse(uf2.write_uf2(ranges, "rp2040")))
    assert list(image) == [FLASH] and image[FLASH][:len(flash)] == flash
    assert set(image[FLASH][len(flash):]) == {0xFF}


def test_elf_errors_are_uf2_errors(app_elf):
    data = app_elf.read_bytes()
    for bad in (data[:40], data[:100], b"\x7fELF\x02\x01" + data[6:]):
        with pytest.raises(uf2.UF2Error, match="ELF"):
            uf2.elf_ranges(bad)


# ---- the MicroPython facts --------------------------------------------------------------------


def test_info_of_a_firmware_image(fw_uf2):
    described = uf2.info(fw_uf2)
    assert described["family"] == {"name": "rp2040", "id": RP2040}
    assert described["blocks"] == len(fw_uf2) // 512
    assert described["payload_bytes"] == described["blocks"] * 256
    [span] = described["ranges"]
    assert span["start"] == FLASH and span["size"] == described["payload_bytes"]
    mp = described["micropython"]
    assert mp["version"] == uf2_samples.VERSION
    assert mp["build_date"] == "2026-12-01"
    assert mp["banner"] == uf2_samples.BANNER
    assert mp["machine"] == uf2_samples.MACHINE
    assert mp["frozen"] == uf2_samples.FROZEN


def test_info_of_other_firmware_has_no_micropython():
    described = uf2.info(uf2.write_uf2((FLASH, b"\x00\xbf" * 600), "samd51"))
    assert described["family"]["name"] == "samd51"
    assert described["micropython"] is None


def test_info_of_a_real_micropython_uf2():
    path = uf2_samples.real_uf2_path()
    data = Path(path).read_bytes()
    described = uf2.info(data)
    assert described["family"]["name"] == "rp2040"
    mp = described["micropython"]
    assert mp is not None and mp["version"].startswith("v1.")
    assert {"_boot.py", "rp2.py"} <= set(mp["frozen"])
    # A UF2 written from its image is the same file, block for block.
    assert uf2.write_uf2(uf2.image(uf2.parse(data)), "rp2040") == data


# ---- validation -------------------------------------------------------------------------------


def test_several_families_in_one_file(fw_uf2):
    other = uf2.write_uf2((FLASH, b"\x11" * 512), "rp2350-arm-s")
    blocks = uf2.parse(fw_uf2 + other)
    assert uf2.families(blocks) == [RP2040, RP2350]
    with pytest.raises(uf2.UF2Error, match=r"several families.*rp2040, rp2350-arm-s"):
        uf2.image(blocks)
    assert uf2.image(blocks, RP2350) == {FLASH: b"\x11" * 512}
    with pytest.raises(uf2.UF2Error, match="no blocks for family esp32s3"):
        uf2.image(blocks, uf2.FAMILIES["esp32s3"])
    assert [f["name"] for f in uf2.info(fw_uf2 + other)["families"]] == [
        "rp2040", "rp2350-arm-s"]


def test_overlapping_blocks_are_refused(fw_uf2):
    again = uf2.write_uf2((FLASH + 256, b"\x22" * 256), "rp2040")
    with pytest.raises(uf2.UF2Error, match=r"block \d+ \(0x10000100..0x10000200\) overlaps"):
        uf2.image(uf2.parse(fw_uf2 + again))


@pytest.mark.parametrize("corrupt, message", [
    (lambda d: b"", "empty"),
    (lambda d: b"hello world", "not a UF2 file: it starts with 68 65 6c"),
    (lambda d: b"\x7fELF" + d[4:], "ELF file: convert it"),
    (lambda d: d[:-100], r"not a whole number of 512-byte blocks: it is truncated in block 3 "
                         r"\(412 of its 512 bytes"),
    (lambda d: d[:1024], r"ends after block 1 of 4 .*truncated"),
    (lambda d: set_field(d, 2, 4, 0), r"bad start magic in block 2 \(file offset 1024\)"),
    (lambda d: set_field(d, 1, 508, 0xDEADBEEF), r"bad end magic in block 1.*0xdeadbeef"),
    (lambda d: set_field(d, 3, 16, 477), "block 3 .*payload size 477 is over the maximum"),
    (lambda d: set_field(d, 2, 20, 3), r"block 2 has block number 3, expected 2 \(gap"),
    (lambda d: set_field(d, 2, 20, 1), r"block 2 has block number 1, expected 2 \(duplicate"),
    (lambda d: set_field(d, 0, 20, 1), "block 0 has block number 1, expected 0"),
    (lambda d: set_field(d, 3, 24, 5), "block 3 says the file has 5 blocks, block 0 said 4"),
    (lambda d: set_field(d, 1, 24, 1), "block 1 .*not below the number of blocks 1"),
    (lambda d: set_field(d, 2, 28, RP2350),
     "block 2 is for family rp2350-arm-s, block 0 for rp2040: mixed families"),
    (lambda d: d[:1024] + d, "block 2 starts a new section, but the section starting at block "
                             "0 has only 2 of its 4 blocks"),
    (lambda d: set_field(d, 1, 12, 0xFFFFFF80), "run past the 4 GB address space"),
])
def test_invalid_files_say_which_block_and_what(corrupt, message):
    data = uf2.write_uf2((FLASH, bytes(1024)), "rp2040")
    assert len(uf2.parse(data)) == 4
    with pytest.raises(uf2.UF2Error, match=message):
        uf2.parse(corrupt(data))


def test_blocks_not_for_main_flash_are_left_out_of_the_image():
    data = uf2.write_uf2({FLASH: b"\x01" * 256, FLASH + 256: b"\x02" * 256}, "rp2040")
    data = set_field(data, 1, 8, uf2.FLAG_FAMILY_ID | uf2.FLAG_NOT_MAIN_FLASH)
    assert uf2.image(uf2.parse(data)) == {FLASH: b"\x01" * 256}


def test_fuzzed_files_give_uf2_error_or_a_valid_parse(fw_uf2):
    """Bit flips (in headers and payloads), truncations and spliced blocks: each copy parses
    or raises UF2Error, and a copy that parses is described, imaged and unpacked without
    any other exception."""
    rng = random.Random(2026)
    sample = fw_uf2[:512 * 6]
    sample = b"".join(set_field(sample, i, 24, 6)[i * 512:(i + 1) * 512] for i in range(6))
    assert len(uf2.parse(sample)) == 6
    outcomes = {"error": 0, "valid": 0}
    for case in range(400):
        data = bytearray(sample)
        kind = case % 4
        if kind == 0:
            for _ in range(rng.randint(1, 8)):
                block = rng.randrange(6) * 512
                offset = rng.choice([rng.randrange(32), 508 + rng.randrange(4)])
                data[block + offset] ^= 1 << rng.randrange(8)
        elif kind == 1:
            for _ in range(rng.randint(1, 16)):
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        elif kind == 2:
            del data[rng.randrange(len(data)):]
        else:
            a, b = rng.randrange(6), rng.randrange(6)
            data[a * 512:(a + 1) * 512] = sample[b * 512:(b + 1) * 512]
        try:
            blocks = uf2.parse(bytes(data))
        except uf2.UF2Error as exc:
            assert str(exc)
            outcomes["error"] += 1
            continue
        outcomes["valid"] += 1
        try:
            uf2.info(bytes(data))
            uf2.to_bin(uf2.image(blocks, uf2.families(blocks)[0]))
        except uf2.UF2Error:
            pass
    assert outcomes["error"] > 100 and outcomes["valid"] > 50, outcomes


# ---- burn uf2 ---------------------------------------------------------------------------------


def run_cli(capsys, *argv):
    status = main(["uf2", *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_info_table_and_json(tmp_path, capsys, fw_uf2):
    path = tmp_path / "fw.uf2"
    path.write_bytes(fw_uf2)
    status, out, err = run_cli(capsys, "info", path)
    assert status == 0 and err == ""
    assert "family       rp2040 (0xe48bff56)" in out
    assert "range        0x10000000-" in out
    assert "micropython  v1.28.0 built 2026-12-01 for Raspberry Pi Pico with RP2040" in out
    assert "frozen       6 modules: _boot.py, rp2.py," in out
    status, out, err = run_cli(capsys, "info", "--json", path)
    assert status == 0
    assert json.loads(out) == json.loads(json.dumps(uf2.info(fw_uf2)))


def test_cli_convert_round_trip(tmp_path, capsys):
    data = random.Random(5).randbytes(5000)
    (tmp_path / "app.bin").write_bytes(data)
    status, out, err = run_cli(capsys, "convert", tmp_path / "app.bin", "-o",
                               tmp_path / "app.uf2", "--base", "0x10001000",
                               "--family", "rp2350-arm-s")
    assert status == 0, err
    assert "binary (0x10001000+5,000) to UF2 for rp2350-arm-s: 20 blocks" in out
    blocks = uf2.parse((tmp_path / "app.uf2").read_bytes())
    assert uf2.families(blocks) == [RP2350] and blocks[0].address == 0x10001000
    status, out, err = run_cli(capsys, "convert", tmp_path / "app.uf2", "-o",
                               tmp_path / "back.bin")
    assert status == 0, err
    assert "from 0x10001000" in out
    back = (tmp_path / "back.bin").read_bytes()
    assert back[:5000] == data and set(back[5000:]) == {0xFF} and len(back) == 5120
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.bin", "app.uf2", "back.bin"]


def test_cli_convert_elf(tmp_path, capsys, app_elf):
    status, out, err = run_cli(capsys, "convert", app_elf, "-o", tmp_path / "app.uf2")
    assert status == 0, err
    assert "ELF (0x10000000+76) to UF2 for rp2040: 1 blocks" in out
    assert uf2.image(uf2.parse((tmp_path / "app.uf2").read_bytes()))[FLASH][:76] == \
        uf2.elf_ranges(app_elf.read_bytes())[FLASH]


@pytest.mark.parametrize("argv, message", [
    (["info", "{bad}"], "{bad}: the file is 1500 bytes, not a whole number of 512-byte blocks"),
    (["info", "{missing}"], "{missing}: No such file or directory"),
    (["info", "{bin}"], "not a UF2 file"),
    (["convert", "{bad}", "-o", "{out}.bin"], "truncated in block 2"),
    (["convert", "{bin}", "-o", "{out}.hex"], "the output must end in .uf2 or .bin"),
    (["convert", "{bin}", "-o", "{out}.uf2", "--family", "pico"], "unknown UF2 family 'pico'"),
    (["convert", "{bin}", "-o", "{out}.uf2", "--base", "flash"], "--base 'flash' is not a num"),
    (["convert", "{good}", "-o", "{out}.uf2"], "is a UF2 file already"),
    (["convert", "{good}", "-o", "{out}.bin", "--family", "esp32s3"],
     "no blocks for family esp32s3"),
    (["convert", "{bin}", "-o", "{out}.bin"], "is a raw binary already"),
])
def test_cli_errors_are_one_clear_line(tmp_path, capsys, fw_uf2, argv, message):
    good = tmp_path / "good.uf2"
    good.write_bytes(fw_uf2)
    (tmp_path / "bad.uf2").write_bytes(fw_uf2[:1500])
    (tmp_path / "app.bin").write_bytes(b"\x00\xbf" * 100)
    names = {"bad": tmp_path / "bad.uf2", "missing": tmp_path / "missing.uf2",
             "bin": tmp_path / "app.bin", "good": good, "out": tmp_path / "out"}
    status, out, err = run_cli(capsys, *[a.format(**names) for a in argv])
    assert status == 1 and out == ""
    assert err.startswith("burn uf2: ") and message.format(**names) in err
    assert "Traceback" not in err and err.count("\n") == 1
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(("out", ".burn-"))]


def _renumbered(block, number, count):
    """A UF2 block with its block number and count replaced."""
    return block[:20] + struct.pack("<II", number, count) + block[28:]


def test_picotools_rp2350_errata_block_is_accepted_and_only_it():
    image = uf2.write_uf2((0x10000000, bytes(range(256)) * 2), "rp2350-arm-s")
    errata = _renumbered(uf2.write_uf2((0x10FFFF00, b"\xef" * 256), "absolute"), 0, 2)
    blocks = uf2.parse(errata + image)  # picotool's RP2350-E10 block: 1 of 2, then the image
    assert uf2.families(blocks) == [uf2.FAMILIES["absolute"], uf2.FAMILIES["rp2350-arm-s"]]
    assert uf2.image(blocks, uf2.FAMILIES["rp2350-arm-s"]) == {
        0x10000000: bytes(range(256)) * 2}
    short = _renumbered(uf2.write_uf2((0x10000000, b"\1" * 256), "rp2350-arm-s"), 0, 2)
    with pytest.raises(uf2.UF2Error, match="has only 1 of its 2 blocks"):
        uf2.parse(short + image)  # any other section cut short is still an error
