"""Board descriptions and finding a board's port by its USB ids."""

import json

import pytest
from serial.tools.list_ports_common import ListPortInfo

from burn.host.boards import BOARDS_DIR, all_boards, boards_for_usb_id, load_board
from burn.host.link import NoBoardError, NotMicroPythonError
from burn.host.link.ports import choose_port, match_ports

ISSUE_BOARDS = {"rp2040", "rp2350", "esp32", "esp32s3", "stm32f405", "nrf52840"}
MPY_ARCHES = {"armv6m", "armv7m", "armv7em", "armv7emsp", "armv7emdp", "xtensa", "xtensawin",
              "rv32imc", "x86", "x64"}


def _port(device, vid=None, pid=None):
    info = ListPortInfo(device, skip_link_detection=True)
    info.vid, info.pid = vid, pid
    return info


def test_every_required_board_is_described():
    assert ISSUE_BOARDS <= {b.name for b in all_boards()}


@pytest.mark.parametrize("board", sorted(ISSUE_BOARDS))
def test_board_data_is_consistent(board):
    b = load_board(board)
    assert b.mpy_arch in MPY_ARCHES
    assert 0 < b.heap_bytes < b.ram_bytes
    assert 0 < b.fs_bytes < b.flash_bytes
    assert b.fs_blocks * b.fs_block_bytes == b.fs_bytes
    assert b.usb_ids and b.micropython_port and b.micropython_board and b.flash_method


def test_pico_facts():
    pico = load_board("rp2040")
    assert (pico.mcu, pico.mpy_arch, pico.ram_bytes, pico.flash_bytes) == (
        "RP2040", "armv6m", 264 * 1024, 2 * 1024 * 1024)
    assert "2e8a:0005" in pico.usb_ids
    assert pico.micropython_port == "rp2"


def test_unknown_board_names_the_known_ones():
    with pytest.raises(ValueError, match="rp2040"):
        load_board("atmega328")


def test_bad_board_file_is_rejected(tmp_path, monkeypatch):
    data = json.loads((BOARDS_DIR / "rp2040.json").read_text())
    data["usb_ids"] = ["2e8a-0005"]
    (tmp_path / "broken.json").write_text(json.dumps(data))
    monkeypatch.setattr("burn.host.boards.BOARDS_DIR", tmp_path)
    with pytest.raises(ValueError, match="vvvv:pppp"):
        load_board("broken")


def test_boards_are_found_by_usb_id():
    assert [b.name for b in boards_for_usb_id(0x2E8A, 0x0005)] == ["rp2040", "rp2350"]
    assert [b.name for b in boards_for_usb_id(0x2E8A, 0x0003, bootloader=True)] == ["rp2040"]


def test_port_of_the_requested_board_is_chosen():
    ports = match_ports([_port("/dev/ttyS0"), _port("/dev/ttyUSB0", 0x10C4, 0xEA60),
                         _port("/dev/ttyACM0", 0x2E8A, 0x0005)])
    assert choose_port(ports, "rp2040") == "/dev/ttyACM0"
    assert choose_port(ports, "esp32") == "/dev/ttyUSB0"
    assert choose_port(ports) == "/dev/ttyUSB0"  # any known board, in port order


def test_no_board_lists_what_was_seen():
    ports = match_ports([_port("/dev/ttyS0"), _port("/dev/ttyUSB0", 0x10C4, 0xEA60)])
    with pytest.raises(NoBoardError) as info:
        choose_port(ports, "rp2040")
    text = str(info.value)
    assert "rp2040" in text and "/dev/ttyUSB0 [10c4:ea60]" in text and "--virtual" in text


def test_board_in_bootloader_has_no_firmware():
    ports = match_ports([_port("/dev/sdb", 0x2E8A, 0x0003)])
    with pytest.raises(NotMicroPythonError) as info:
        choose_port(ports, "rp2040")
    assert "BOOTSEL" in str(info.value) and "RPI_PICO" in str(info.value)
