"""pytest plugin: run MicroPython test files ON a board, one pytest result per test function.

    pytest tests/device --board rp2040                # attached board, else a virtual one
    pytest tests/device --board rp2040 --port /dev/ttyACM0
    pytest tests/device --board rp2040 --virtual
    pytest tests/device --board rp2040 --emulated     # the real firmware on rp2040js
    pytest tests/device --board qemu-m33 --emulated   # burn's firmware for it under QEMU
    pytest -p burn.host.pytest_device --board esp32 my_tests/   # your own test files

Each `test_*.py` file is parsed on the host only to find its top-level `def test_*()`
functions; the file itself is uploaded to the board's `/tests/` and imported there after a
soft reset (a fresh heap per file). Each function runs on the board over the serial link; a
failure shows the board's traceback. The core (`burn`) is uploaded once per session to
`/lib/burn`, compiled to `.mpy` for the board's architecture (`--device-core`), unless the
firmware has it frozen in (`burn firmware build`), as the emulated board's does.
"""

import ast
import fcntl
import os
import tempfile

import pytest

from burn.host.boards import load_board
from burn.host.link import DeviceError, LinkError, NoBoardError, connect, find_port

_OPTIONS = (
    (("--board",), {"default": None, "help": "board to test on (default rp2040)"}),
    (("--port",), {"default": None, "help": "serial port of the board (default: by USB id)"}),
    (("--virtual",), {"action": "store_true", "help": "use a virtual board even if one is "
                                                      "attached"}),
    (("--emulated",), {"action": "store_true", "help": "use an emulated board running the "
                                                       "real firmware (an RP2040 on rp2040js; "
                                                       "a qemu-* board under QEMU)"}),
    (("--firmware",), {"default": None, "help": "with --emulated: the UF2 (a QEMU board's "
                                                "ELF) it runs (default: the cached `burn "
                                                "firmware build`)"}),
    (("--device-timeout",), {"type": float, "default": 60.0,
                             "help": "seconds one test may run on the board (default 60)"}),
    (("--device-core",), {"choices": ("mpy", "py", "none"), "default": "mpy",
                          "help": "how the core goes onto the board (default mpy)"}),
)
_DEFAULTS = {"board": None, "port": None, "virtual": False, "emulated": False,
             "firmware": None, "device_timeout": 60.0, "device_core": "mpy"}
REMOTE_TESTS = "/tests"
REMOTE_CORE = "/lib/burn"


def pytest_addoption(parser):
    """--board, --port, --virtual, --emulated, --firmware, --device-timeout,
    --device-core."""
    group = parser.getgroup("burn-device", "tests that run on a MicroPython board")
    for names, attrs in _OPTIONS:
        try:
            group.addoption(*names, **attrs)
        except ValueError:
            pass  # registered already (plugin and conftest both loaded)


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makemodule(module_path, parent):
    """Every test module this plugin sees runs on the board instead of in CPython."""
    return DeviceModule.from_parent(parent, path=module_path)


def _option(config, name):
    return config.getoption(name, default=_DEFAULTS[name])


class BoardSession:
    """The one link of a test session, opened at first use and closed at the end."""

    def __init__(self, config):
        self.config = config
        self.board = load_board(_option(config, "board") or "rp2040")
        self.link = None
        self.emulated = None  # the BoardSession of an emulated board
        self.broken = None
        self.where = ""
        self.port_lock = None

    def get(self):
        """The open link; the first call connects and uploads the core."""
        if self.broken is not None:
            raise LinkError("the board was lost earlier in this session: %s" % self.broken)
        if self.link is None:
            try:
                self.link = self._connect()
                self._upload_core()
            except LinkError as exc:
                self.lost(exc)
                raise
        return self.link

    def _connect(self):
        if _option(self.config, "emulated"):
            return self._connect_emulated()
        port = _option(self.config, "port")
        if port is None and not _option(self.config, "virtual"):
            try:
                port = find_port(self.board.name)
            except NoBoardError:
                port = None  # the virtual board is the default when none is attached
        if port is None:
            link = connect(virtual=True, board=self.board.name)
            self.where = "virtual %s on %s" % (self.board.name, link.port)
        else:
            self.port_lock = _hold_port(port)
            link = connect(port, board=self.board.name)
            self.where = "%s on %s" % (self.board.name, port)
        return link

    def _connect_emulated(self):
        from burn.host.board_session import Emulated

        session = Emulated(_option(self.config, "firmware")).open(self.board.name, print)
        self.emulated = session
        self.where = session.where
        return session.link

    def _upload_core(self):
        from burn.host.deploy.board_software import ask_board

        mode = _option(self.config, "device_core")
        core = ask_board(self.link).get("core")
        if mode == "none" or (core is not None and not core[0].startswith("/")):
            return  # frozen in the firmware (a frozen module's __file__ is relative)
        from burn.host.mpy import unix as mp_unix
        from burn.host.project_files import core_files

        if mode == "py":  # the core's own files: an installed burn also holds burn/host
            core = mp_unix.core_dir()
            self.link.sync_files(core, core_files(core), REMOTE_CORE)
            return
        from burn.host import mpy

        mpy_version = self.link.info()["mpy"] or 0
        arches = mp_unix.NATIVE_ARCHES
        arch = arches[mpy_version >> 10] if (mpy_version >> 10) < len(arches) else None
        build = mpy.compile_core(arch or self.board.mpy_arch)
        self.link.sync_dir(build.root / mpy.PACKAGE, REMOTE_CORE, "*.mpy")

    def check(self, exc):
        """After a link failure: get back to the raw REPL, or give the session up."""
        try:
            self.link.interrupt()
        except LinkError:
            self.lost(exc)

    def lost(self, exc):
        """Remember that the link died, so later tests fail fast with the reason."""
        self.broken = exc

    def close(self):
        """Close the link (and stop a virtual or emulated board)."""
        if self.emulated is not None:
            self.emulated.close()
            self.emulated = self.link = None
        if self.link is not None:
            self.link.close()
            self.link = None
        if self.port_lock is not None:
            self.port_lock.close()
            self.port_lock = None


def _hold_port(port):
    """An open lock file that this process alone holds for serial port `port`, waiting while
    another holds it: under pytest-xdist each worker has its own session, and one board
    serves one worker at a time (a virtual board is a worker's own and needs no lock)."""
    name = "burn-board-%s.lock" % os.path.realpath(port).strip("/").replace("/", "-")
    lock = open(os.path.join(tempfile.gettempdir(), name), "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    return lock


def _session(config):
    if not hasattr(config, "_burn_board_session"):
        config._burn_board_session = BoardSession(config)
    return config._burn_board_session


def pytest_report_header(config):
    """Which board the device tests will use."""
    port = _option(config, "port") or (
        "emulated" if _option(config, "emulated") else "virtual" if _option(config, "virtual")
        else "found by USB id, else a virtual board")
    return "burn device tests: board %s, port %s" % (_option(config, "board") or "rp2040", port)


def pytest_unconfigure(config):
    """Close the session's link."""
    if hasattr(config, "_burn_board_session"):
        config._burn_board_session.close()


class DeviceModule(pytest.File):
    """A MicroPython test file: collected on the host, imported and run on the board."""

    import_error = None

    def collect(self):
        """One DeviceTest per top-level `def test_*()` of the file."""
        tree = ast.parse(self.path.read_bytes(), filename=str(self.path))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                yield DeviceTest.from_parent(self, name=node.name, lineno=node.lineno)

    def setup(self):
        """Soft-reset the board, upload this file and import it there."""
        session = _session(self.config)
        link = session.get()
        try:
            link.soft_reset()
            link.put_file(self.path, "%s/%s" % (REMOTE_TESTS, self.path.name))
            link.exec("import sys\nif %r not in sys.path:\n    sys.path.append(%r)\nimport %s"
                      % (REMOTE_TESTS, REMOTE_TESTS, self.path.stem),
                      timeout=_option(self.config, "device_timeout"))
        except DeviceError as exc:
            self.import_error = exc
        except LinkError as exc:
            session.lost(exc)
            raise


class DeviceTest(pytest.Item):
    """One test function, run on the board."""

    def __init__(self, *, lineno, **kwargs):
        super().__init__(**kwargs)
        self.lineno = lineno

    def runtest(self):
        """Call the function on the board; its output becomes a report section."""
        if self.parent.import_error is not None:
            raise self.parent.import_error
        session = _session(self.config)
        link = session.get()
        try:
            output = link.exec(
                "%s.%s()" % (self.parent.path.stem, self.name),
                timeout=_option(self.config, "device_timeout"),
            )
        except DeviceError:
            raise
        except LinkError as exc:
            session.check(exc)
            raise
        if output:
            self.add_report_section("call", "board output", output)

    def repr_failure(self, excinfo, style=None):
        """The board's traceback (and output) for a failure on the board."""
        exc = excinfo.value
        where = _session(self.config).where
        if isinstance(exc, DeviceError):
            text = "on the board (%s):\n%s" % (where, exc.traceback)
            if exc.output:
                text = "board output:\n%s\n%s" % (exc.output.rstrip("\n"), text)
            if exc.__class__.__name__ != "DeviceError":
                text += "\n" + str(exc).splitlines()[0].rstrip(":")
            return text
        if isinstance(exc, LinkError):
            return "serial link (%s): %s: %s" % (where, type(exc).__name__, exc)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        """Where the test is (file, line) and its name."""
        return self.path, self.lineno - 1, "%s [on board]" % self.name
