"""The tests/core harness: every core test also runs on the real MicroPython unix port.

Each test copies the harness (tests/conftest.py, tests/core/conftest.py, mp_runner.py) into a
temporary tests tree next to small test files, runs pytest on it in a subprocess and reads the
per-test outcomes from its JUnit XML report.
"""

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

SAMPLE = '''
from burn.dtype import int8


def test_pass():
    print("printed on", "micropython")
    assert int8.itemsize == 1


def test_fail():
    items = [1, 2]
    assert len(items) == 3, "expected three items"


def test_hang():
    while True:
        pass


def test_after_hang():
    assert sum([1, 2, 3]) == 6
'''

EXITING = '''
import sys


def test_first():
    assert True


def test_exit():
    print("leaving now")
    sys.exit(3)


def test_last():
    assert True
'''

BIG_ALLOC = '''
def test_big_alloc():
    assert len(bytearray(300000)) == 300000
'''

IMPORT_ERROR = '''
import numpy


def test_needs_numpy():
    assert numpy.zeros(2).sum() == 0
'''


def run_harness(tmp_path, files, *args, env=None):
    """Run pytest over a fresh tests tree holding `files`; return {test id: (outcome, text)}."""
    core = tmp_path / "tests" / "core"
    core.mkdir(parents=True)
    shutil.copy(TESTS / "conftest.py", tmp_path / "tests" / "conftest.py")
    for name in ("conftest.py", "mp_runner.py"):
        shutil.copy(TESTS / "core" / name, core / name)
    for name, text in files.items():
        (core / name).write_text(text)
    report = tmp_path / "report.xml"
    subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--rootdir",
         str(tmp_path), "--junitxml", str(report), str(core), *args],
        cwd=tmp_path, env=env, capture_output=True, timeout=120, check=False,
    )
    outcomes = {}
    for case in ET.parse(report).iter("testcase"):
        found = [c for c in case if c.tag in ("failure", "error", "skipped")]
        kind = found[0].tag if found else "passed"
        text = (found[0].get("message", "") + (found[0].text or "")) if found else ""
        outcomes[case.get("name")] = (kind, text)
    return outcomes


def test_pass_fail_and_hang_are_separate_results(tmp_path):
    got = run_harness(tmp_path, {"test_sample.py": SAMPLE}, "--mp-only", "--mp-timeout", "2")
    assert sorted(got) == [
        "test_after_hang[micropython]", "test_fail[micropython]",
        "test_hang[micropython]", "test_pass[micropython]",
    ]
    assert got["test_pass[micropython]"][0] == "passed"
    kind, text = got["test_fail[micropython]"]
    assert kind == "failure"
    assert "AssertionError: expected three items" in text
    assert 'test_sample.py", line 12, in test_fail' in text
    kind, text = got["test_hang[micropython]"]
    assert kind == "failure" and "timed out after 2s" in text
    assert got["test_after_hang[micropython]"][0] == "passed"


def test_exiting_interpreter_fails_the_rest_of_its_file(tmp_path):
    got = run_harness(
        tmp_path, {"test_exiting.py": EXITING, "test_imports.py": IMPORT_ERROR}, "--mp-only"
    )
    assert got["test_first[micropython]"][0] == "passed"
    kind, text = got["test_exit[micropython]"]
    assert kind == "failure" and "exited with status 3 during test_exit" in text
    assert "leaving now" in text
    kind, text = got["test_last[micropython]"]
    assert kind == "failure" and "not run" in text
    kind, text = got["test_needs_numpy[micropython]"]
    assert kind == "failure" and "ImportError" in text and "numpy" in text


def test_heap_size_is_applied(tmp_path):
    small = run_harness(tmp_path / "small", {"test_heap.py": BIG_ALLOC}, "--mp-only")
    kind, text = small["test_big_alloc[micropython]"]
    assert kind == "failure" and "MemoryError" in text
    large = run_harness(
        tmp_path / "large", {"test_heap.py": BIG_ALLOC}, "--mp-only", "--mp-heap", "1m"
    )
    assert large["test_big_alloc[micropython]"][0] == "passed"


def test_cpython_only_and_missing_micropython(tmp_path):
    files = {"test_heap.py": BIG_ALLOC}
    got = run_harness(tmp_path / "cpython", files, "--cpython-only")
    assert got == {"test_big_alloc": ("passed", "")}
    env = dict(os.environ, MICROPYTHON=str(tmp_path / "no-such-micropython"))
    got = run_harness(tmp_path / "missing", files, env=env)
    assert got["test_big_alloc"][0] == "passed"
    kind, text = got["test_big_alloc[micropython]"]
    assert kind == "skipped" and "MicroPython unix port) not found" in text
