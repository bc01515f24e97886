"""burn.host.link: the serial link to a MicroPython board (real or virtual).

    from burn.host.link import connect
    with connect(board="rp2040") as link:          # attached board, found by USB id
        link.put_file("model.bst", "/model.bst")   # atomic, SHA-256 checked
        print(link.exec("import burn; print(burn.__version__)"))

`connect("virtual:rp2040")` (or `virtual=True`) starts a virtual board instead.
"""

from burn.host.link.errors import (
    BoardDisconnected,
    BoardResetError,
    DeviceError,
    DeviceMemoryError,
    FlashFullError,
    LinkError,
    LinkTimeout,
    NoBoardError,
    NotMicroPythonError,
    PortBusyError,
    PortPermissionError,
    TransferError,
)
from burn.host.link.link import Link, connect
from burn.host.link.ports import find_port, list_ports, open_port

__all__ = [
    "BoardDisconnected",
    "BoardResetError",
    "DeviceError",
    "DeviceMemoryError",
    "FlashFullError",
    "Link",
    "LinkError",
    "LinkTimeout",
    "NoBoardError",
    "NotMicroPythonError",
    "PortBusyError",
    "PortPermissionError",
    "TransferError",
    "connect",
    "find_port",
    "list_ports",
    "open_port",
]
