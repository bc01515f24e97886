"""`burn-flash --firmware`: a UF2 checked for the board, copied onto its bootloader drive (a
mounted drive is a folder holding INFO_UF2.TXT, which is what these tests make), then the
wait for MicroPython on a serial port."""

import os
import sys
import time

import pytest

from burn.host import uf2
from burn.host.boards import load_board
from burn.host.cli import flash_main
from burn.host.link import list_ports
from burn.host.uf2 import drive as uf2_drive
from burn.host.virtual_board import VirtualBoard

sys.path.insert(0, os.path.dirname(__file__))
import uf2_samples

RP2040_INFO = "UF2 Bootloader v3.0\r\nModel: Raspberry Pi RP2\r\nBoard-ID: RPI-RP2\r\n"
RP2350_INFO = "UF2 Bootloader v1.0\r\nModel: Raspberry Pi RP2350\r\nBoard-ID: RP2350\r\n"


def make_drive(folder, info=RP2040_INFO):
    folder.mkdir(parents=True)
    (folder / uf2_drive.INFO_FILE).write_text(info)
    return folder


@pytest.fixture
def firmware(tmp_path):
    path = tmp_path / "firmware.uf2"
    path.write_bytes(uf2_samples.firmware_uf2())
    return path


def flash_cli(capsys, *argv):
    status = flash_main.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_boards_name_their_uf2_family():
    assert load_board("rp2040").uf2_family == uf2.FAMILIES["rp2040"]
    assert load_board("rp2350").uf2_family == uf2.FAMILIES["rp2350-arm-s"]
    assert load_board("esp32").uf2_family is None
    assert uf2_drive.board_for_family(uf2.FAMILIES["rp2350-arm-s"]).name == "rp2350"


def test_copy_lands_whole_on_the_drive(tmp_path, firmware):
    drive = make_drive(tmp_path / "RPI-RP2")
    report = uf2_drive.flash_firmware(firmware, "rp2040", drive=drive, wait=0)
    assert report.written == drive / "firmware.uf2"
    assert report.written.read_bytes() == firmware.read_bytes()
    assert sorted(p.name for p in drive.iterdir()) == ["INFO_UF2.TXT", "firmware.uf2"]
    assert report.port is None and report.firmware.info["micropython"]["version"] == "v1.28.0"
    assert list(report.firmware.ranges) == [uf2.RP2040_FLASH_BASE]


def test_cli_copies_and_says_what_it_did(tmp_path, capsys, firmware):
    drive = make_drive(tmp_path / "RPI-RP2")
    status, out, err = flash_cli(capsys, "--firmware", firmware, "--drive", drive,
                                 "--wait", "0")
    assert status == 0, err
    assert "firmware: firmware.uf2, " in out and "for rp2040, MicroPython v1.28.0" in out
    assert "copied %s" % (drive / "firmware.uf2") in out
    assert (drive / "firmware.uf2").read_bytes() == firmware.read_bytes()


def test_a_wrong_family_is_refused_before_copying(tmp_path, capsys):
    drive = make_drive(tmp_path / "RPI-RP2")
    path = tmp_path / "pico2.uf2"
    path.write_bytes(uf2_samples.firmware_uf2("rp2350-arm-s"))
    status, _out, err = flash_cli(capsys, "--board", "rp2040", "--firmware", path,
                                 "--drive", drive, "--wait", "0")
    assert status == 1
    assert "pico2.uf2 is for rp2350-arm-s (0xe48bff59), but the rp2040's bootloader takes " \
           "family rp2040 (0xe48bff56)" in err
    assert "Traceback" not in err
    assert sorted(p.name for p in drive.iterdir()) == ["INFO_UF2.TXT"]


def test_without_board_the_family_picks_it(tmp_path, capsys):
    path = tmp_path / "pico2.uf2"
    path.write_bytes(uf2_samples.firmware_uf2("rp2350-arm-s"))
    drive = make_drive(tmp_path / "RP2350", RP2350_INFO)
    status, out, err = flash_cli(capsys, "--firmware", path, "--drive", drive, "--wait", "0")
    assert status == 0, err
    assert "copying to the rp2350 bootloader drive" in out


def test_a_file_with_another_family_too_is_taken_with_a_note(tmp_path, firmware):
    path = tmp_path / "both.uf2"
    path.write_bytes(firmware.read_bytes() + uf2.write_uf2((0x10000000, b"\1" * 256),
                                                           "rp2350-arm-s"))
    said = []
    drive = make_drive(tmp_path / "RPI-RP2")
    uf2_drive.flash_firmware(path, "rp2040", drive=drive, wait=0, say=said.append)
    assert "  both.uf2 also holds blocks for rp2350-arm-s, which the rp2040 ignores" in said


@pytest.mark.parametrize("content, message", [
    (lambda d: d[:3000], "firmware.uf2 is not valid UF2 firmware: the file is 3000 bytes"),
    (lambda d: b"\x7fELF" + d[4:], "not a UF2 file but an ELF file"),
])
def test_bad_firmware_is_refused(tmp_path, capsys, firmware, content, message):
    firmware.write_bytes(content(firmware.read_bytes()))
    drive = make_drive(tmp_path / "RPI-RP2")
    status, _out, err = flash_cli(capsys, "--board", "rp2040", "--firmware", firmware,
                                 "--drive", drive)
    assert status == 1 and message in err and "Traceback" not in err
    assert sorted(p.name for p in drive.iterdir()) == ["INFO_UF2.TXT"]


def test_drives_are_told_apart_by_info_uf2(tmp_path):
    plain = tmp_path / "USBSTICK"
    plain.mkdir()
    pico2 = make_drive(tmp_path / "RP2350", RP2350_INFO)
    pico = make_drive(tmp_path / "RPI-RP2")
    folders = [plain, pico2, pico]
    assert uf2_drive.find_drive("rp2040", folders) == pico
    assert uf2_drive.find_drive("rp2350", folders) == pico2
    assert uf2_drive.drive_facts(pico)["Board-ID"] == "RPI-RP2"
    assert uf2_drive.drive_facts(plain) is None
    with pytest.raises(uf2_drive.FirmwareError, match="drive of another board"):
        uf2_drive.check_drive(pico2, "rp2040")
    with pytest.raises(uf2_drive.NoDriveError, match=r"holds no INFO_UF2\.TXT"):
        uf2_drive.check_drive(plain, "rp2040")


def test_no_drive_says_how_to_enter_the_bootloader(tmp_path):
    board = load_board("rp2040")
    with pytest.raises(uf2_drive.NoDriveError) as info:
        uf2_drive.find_drive(board, [tmp_path])
    text = str(info.value)
    assert "no rp2040 bootloader drive (RPI-RP2) is mounted" in text
    assert board.flash_instructions in text and "--drive" in text


def test_cli_without_a_drive_exits_2(tmp_path, capsys, firmware):
    status, _out, err = flash_cli(capsys, "--firmware", firmware, "--drive",
                                 tmp_path / "nothing")
    assert status == 2 and "is not a folder" in err


def test_a_board_without_uf2_is_refused(tmp_path, capsys, firmware):
    status, _out, err = flash_cli(capsys, "--board", "esp32", "--firmware", firmware,
                                 "--drive", tmp_path)
    assert status == 1
    assert "the esp32 (" in err and "is not flashed with UF2 files (its flash method is " \
                                    "esptool)" in err


def test_firmware_needs_a_real_board(capsys, firmware):
    status, _out, err = flash_cli(capsys, "--virtual", "--firmware", firmware)
    assert status == 2 and "--firmware needs a real board" in err


def test_wait_times_out_quickly_with_a_clear_message(tmp_path):
    start = time.monotonic()
    with pytest.raises(uf2_drive.WaitTimeout) as info:
        uf2_drive.wait_for_micropython("rp2040", 0.5, port=str(tmp_path / "ttyACM9"))
    assert time.monotonic() - start < 2.0
    assert "MicroPython did not answer on %s within 0 s" % (tmp_path / "ttyACM9") \
        in str(info.value)
    assert "no serial port" in str(info.value)  # the last error says why


def test_wait_for_the_boards_usb_id_times_out_without_a_board():
    if any("rp2040" in m.boards for m in list_ports()):
        pytest.skip("an RP2040 running MicroPython is attached")
    start = time.monotonic()
    with pytest.raises(uf2_drive.WaitTimeout, match="on a serial port with USB id 2e8a:0005"):
        uf2_drive.wait_for_micropython("rp2040", 0.5)
    assert time.monotonic() - start < 2.0


def test_copy_then_wait_for_micropython_on_a_serial_port(tmp_path, capsys, firmware):
    """The whole command, its wait answered by MicroPython (the unix port on a pty) on the
    port named with --port."""
    drive = make_drive(tmp_path / "RPI-RP2")
    with VirtualBoard("rp2040") as board:
        status, out, err = flash_cli(capsys, "--firmware", firmware, "--drive", drive,
                                     "--port", board.port, "--wait", "10")
    assert status == 0, err
    assert "MicroPython answers on %s after " % board.port in out
    assert "; MicroPython " in out  # its sys.version line
    assert (drive / "firmware.uf2").read_bytes() == firmware.read_bytes()
