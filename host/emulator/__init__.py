"""burn.host.emulator: the emulated board, real rp2 MicroPython firmware on rp2040js.

`EmulatedBoard("rp2040", firmware="x.uf2", flash_image="pico.img")` boots the firmware on an
emulated RP2040 (rp2040js under Node.js) and gives the pty path (`port`) that pyserial,
mpremote and `burn.host.link` open like any serial port; `cycles()` reads the emulated cycle
counter. The flash image holds the whole 2 MB flash and persists across runs.
"""

from burn.host.emulator.board import EMULATED_BOARDS, EmulatedBoard, default_firmware
from burn.host.emulator.runtime import EmulatorError

__all__ = ["EMULATED_BOARDS", "EmulatedBoard", "EmulatorError", "default_firmware"]
