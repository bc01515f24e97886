"""burn.host.virtual_board: the real MicroPython unix port behind a pty, acting as a board.

`VirtualBoard("rp2040")` starts one (heap capped to the board's, its flash a littlefs or FAT
image of the board's filesystem size) and gives the pty path that pyserial, mpremote and
`burn.host.link` open like any serial port.
"""

from burn.host.virtual_board.launcher import VirtualBoard, VirtualBoardError

__all__ = ["VirtualBoard", "VirtualBoardError"]
