"""The firmware build's changes to its private copy of MicroPython: each applies once, is a
no-op the second time, and refuses a file that is not the expected version."""

import pytest

from burn.host.firmware import FirmwareError, qemu_port
from burn.host.firmware.tree_patch import replace_once

UART_C = """typedef struct _UART_t { int DATA; } UART_t;
#if defined(QEMU_SOC_MPS3)
#define UART0 ((UART_t *)(0x49303000))
#else
#define UART0 ((UART_t *)(0x40004000))
#endif
"""


def _tree(tmp_path, text):
    path = tmp_path.joinpath(*qemu_port.UART_C)
    path.parent.mkdir(parents=True)
    path.write_text(text)
    return path


def test_an_mps2_board_may_name_its_uart_once(tmp_path):
    path = _tree(tmp_path, UART_C)
    qemu_port.name_the_uart(tmp_path)
    once = path.read_text()
    assert "#elif defined(QEMU_SOC_MPS2_UART0)" in once and "0x40004000" in once
    qemu_port.name_the_uart(tmp_path)
    assert path.read_text() == once


def test_another_uart_c_is_refused_by_name(tmp_path):
    _tree(tmp_path, UART_C.replace("0x49303000", "0x49300000"))
    with pytest.raises(FirmwareError, match=r"uart\.c does not place the MPS2 UART"):
        qemu_port.name_the_uart(tmp_path)


def test_a_passage_found_twice_is_refused(tmp_path):
    path = tmp_path / "f.txt"
    path.write_text("a\na\n")
    with pytest.raises(FirmwareError, match=r"f\.txt twice"):
        replace_once(path, "a\n", "b\n", "twice")
