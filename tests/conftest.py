"""Command-line options of the test suite. They live in this top folder of the tests so that
pytest knows them whichever folder or file a run starts from. This file imports nothing of
burn, so a broken core fails its own tests, not the loading of the suite."""

import re

import pytest

pytest_plugins = ["mp_ports"]  # the `micropython` fixture


def pytest_addoption(parser):
    group = parser.getgroup("micropython", "tests/core on the MicroPython unix port")
    group.addoption("--mp-heap", default="192k",
                    help="MicroPython heap size, e.g. 192k or 1m (default %(default)s)")
    group.addoption("--mp-timeout", type=float, default=60.0,
                    help="seconds one test may run on MicroPython (default %(default)s)")
    group.addoption("--mp-source", action="store_true",
                    help="MicroPython compiles core from its .py sources instead of importing "
                         "the .mpy build a board runs (the default)")
    group.addoption("--mp-only", action="store_true",
                    help="run only the MicroPython items of tests/core")
    group.addoption("--cpython-only", action="store_true",
                    help="run only the CPython items of tests/core")


def pytest_configure(config):
    config.addinivalue_line("markers", "micropython: a tests/core test run on MicroPython")
    config.addinivalue_line("markers", "cpython: a tests/core test run on CPython")
    if not re.fullmatch(r"[0-9]+[kKmM]?", config.getoption("mp_heap")):
        raise pytest.UsageError("--mp-heap: expected a size such as 192k or 2m")
    if config.getoption("mp_only") and config.getoption("cpython_only"):
        raise pytest.UsageError("--mp-only and --cpython-only exclude each other")
