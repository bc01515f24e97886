"""Every test_*.py here runs ON a MicroPython board, not in CPython (see docs/boards.md):

    pytest tests/device --board rp2040 [--port PORT | --virtual]

Without a port or an attached board the tests run on a virtual board. The files here must be
MicroPython-safe: plain `def test_*():` functions with `assert`, no pytest, no numpy.
"""

from burn.host.pytest_device import (  # noqa: F401 - hooks of this folder
    pytest_addoption,
    pytest_pycollect_makemodule,
    pytest_report_header,
    pytest_unconfigure,
)
