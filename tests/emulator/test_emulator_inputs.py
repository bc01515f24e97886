"""Bad inputs to the emulated board give a clear error, quickly, and leave nothing running."""

import time

import pytest
from emulator_support import emulator_or_skip

from burn.host import uf2
from burn.host.boards import load_board
from burn.host.cli import main
from burn.host.emulator import EmulatedBoard, EmulatorError, flash_image

# Thumb `b .` (branch to itself) at the flash base: a firmware that runs but never starts USB.
_SPIN = uf2.write_uf2((uf2.RP2040_FLASH_BASE, b"\xfe\xe7" * 512), "rp2040")


def _start(tmp_path, **kwargs):
    kwargs.setdefault("flash_image", tmp_path / "flash.img")
    board = EmulatedBoard("rp2040", **kwargs)
    try:
        board.start(timeout=1.5)
    finally:
        board.close()


def test_a_truncated_uf2_is_named_as_such(tmp_path):
    firmware = tmp_path / "cut.uf2"
    firmware.write_bytes(_SPIN[:1300])
    with pytest.raises(EmulatorError, match=r"cut\.uf2 is not a valid UF2 file: .*truncated"):
        _start(tmp_path, firmware=firmware)
    assert not (tmp_path / "flash.img").exists()


def test_a_uf2_for_another_chip_is_refused(tmp_path):
    firmware = tmp_path / "rp2350.uf2"
    firmware.write_bytes(uf2.write_uf2((uf2.RP2040_FLASH_BASE, b"\0" * 512), "rp2350-arm-s"))
    with pytest.raises(EmulatorError, match=r"not for the RP2040 .*family rp2350-arm-s"):
        _start(tmp_path, firmware=firmware)


def test_a_uf2_past_the_end_of_flash_is_refused(tmp_path):
    firmware = tmp_path / "big.uf2"
    firmware.write_bytes(uf2.write_uf2((uf2.RP2040_FLASH_BASE + (2 << 20), b"\0" * 256),
                                       "rp2040"))
    with pytest.raises(EmulatorError, match="outside the rp2040's 2048 KiB of flash"):
        _start(tmp_path, firmware=firmware)


def test_a_missing_bootrom_is_named(tmp_path):
    firmware = tmp_path / "spin.uf2"
    firmware.write_bytes(_SPIN)
    with pytest.raises(EmulatorError, match="no RP2040 bootrom"):
        _start(tmp_path, firmware=firmware, bootrom=tmp_path / "nothing.bin")


def test_no_firmware_and_no_image_is_refused(tmp_path):
    with pytest.raises(EmulatorError, match="no firmware to run"):
        flash_image.prepare(tmp_path / "flash.img", load_board("rp2040"))


def test_a_flash_image_of_the_wrong_size_is_refused(tmp_path):
    (tmp_path / "flash.img").write_bytes(b"\xff" * 1000)
    with pytest.raises(EmulatorError, match="is 1000 bytes, but the rp2040 has 2097152"):
        _start(tmp_path)


def test_a_firmware_without_usb_fails_within_the_timeout(tmp_path):
    emulator_or_skip()
    firmware = tmp_path / "spin.uf2"
    firmware.write_bytes(_SPIN)
    start = time.monotonic()
    with pytest.raises(EmulatorError, match=r"firmware did not bring up USB within 1\.5 s"):
        _start(tmp_path, firmware=firmware)
    assert time.monotonic() - start < 10


def test_the_cli_reports_a_bad_firmware_without_a_traceback(tmp_path, capsys):
    firmware = tmp_path / "cut.uf2"
    firmware.write_bytes(_SPIN[:1300])
    status = main(["board", "emulate", "--firmware", str(firmware),
                   "--flash-image", str(tmp_path / "flash.img")])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("burn board emulate: firmware %s is not a valid UF2" % firmware)
    assert "Traceback" not in err
