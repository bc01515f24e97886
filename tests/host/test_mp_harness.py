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

import pytest

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


def test_core_error():
    from burn.dtype import dtype_of
    dtype_of("float64")
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

SKIPPING = '''
import sys

from checks import skip


def test_skipped_on_micropython():
    if sys.implementation.name == "micropython":
        skip("not for this interpreter")
    assert sys.implementation.name == "cpython"


def test_after_skip():
    assert True
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
    for name in ("conftest.py", "mp_runner.py", "checks.py"):
        shutil.copy(TESTS / "core" / name, core / name)
    for name, text in files.items():
        (core / name).write_text(text)
    report = tmp_path / "report.xml"
    env = dict(os.environ if env is None else env, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
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


@pytest.fixture(scope="module")
def faulty(tmp_path_factory):
    """One --mp-only run over files that pass, fail, hang, exit, fail to import, overflow."""
    files = {"test_sample.py": SAMPLE, "test_exiting.py": EXITING,
             "test_imports.py": IMPORT_ERROR, "test_heap.py": BIG_ALLOC,
             "test_skipping.py": SKIPPING}
    return run_harness(tmp_path_factory.mktemp("faulty"), files, "--mp-only",
                       "--mp-timeout", "2")


def test_each_test_is_its_own_result(faulty):
    assert sorted(name for name in faulty if name.startswith("test_")) == sorted(faulty)
    assert all(name.endswith("[micropython]") for name in faulty)
    assert faulty["test_pass[micropython]"][0] == "passed"
    kind, text = faulty["test_fail[micropython]"]
    assert kind == "failure"
    assert "AssertionError: expected three items" in text
    assert 'test_sample.py", line 12, in test_fail' in text
    assert "mp_runner.py" not in text


def test_a_skip_on_micropython_is_reported_as_skipped(faulty):
    kind, text = faulty["test_skipped_on_micropython[micropython]"]
    assert kind == "skipped" and "not for this interpreter" in text
    assert faulty["test_after_skip[micropython]"][0] == "passed"


def test_core_frames_name_the_core_files(faulty):
    kind, text = faulty["test_core_error[micropython]"]
    assert kind == "failure" and "TypeError: unknown dtype: 'float64'" in text
    assert 'File "burn/dtype.py"' in text  # the .mpy build records package-relative names


def test_hanging_test_times_out_and_the_file_goes_on(faulty):
    kind, text = faulty["test_hang[micropython]"]
    assert kind == "failure" and "timed out after 2s" in text
    assert faulty["test_after_hang[micropython]"][0] == "passed"


def test_exiting_interpreter_fails_the_rest_of_its_file(faulty):
    assert faulty["test_first[micropython]"][0] == "passed"
    kind, text = faulty["test_exit[micropython]"]
    assert kind == "failure" and "exited with status 3 during test_exit" in text
    assert "leaving now" in text
    kind, text = faulty["test_last[micropython]"]
    assert kind == "failure" and "not run" in text


def test_import_error_fails_every_test_of_the_file(faulty):
    kind, text = faulty["test_needs_numpy[micropython]"]
    assert kind == "failure" and "ImportError" in text and "numpy" in text


def test_heap_size_is_applied(faulty, tmp_path):
    kind, text = faulty["test_big_alloc[micropython]"]
    assert kind == "failure" and "MemoryError" in text
    got = run_harness(tmp_path, {"test_heap.py": BIG_ALLOC}, "--mp-heap", "1m")
    assert got == {"test_big_alloc": ("passed", ""), "test_big_alloc[micropython]": ("passed", "")}


def test_micropython_imports_the_compiled_core_unless_told_otherwise(tmp_path):
    files = {"test_which.py": "import burn\n\n\ndef test_which():\n"
                              "    assert burn.__file__.endswith('.mpy'), burn.__file__\n"}
    got = run_harness(tmp_path / "mpy", files, "--mp-only")
    assert got == {"test_which[micropython]": ("passed", "")}
    got = run_harness(tmp_path / "py", files, "--mp-only", "--mp-source")
    kind, text = got["test_which[micropython]"]
    assert kind == "failure" and "__init__.py" in text


def test_cpython_only_and_missing_micropython(tmp_path):
    files = {"test_heap.py": BIG_ALLOC}
    got = run_harness(tmp_path / "cpython", files, "--cpython-only")
    assert got == {"test_big_alloc": ("passed", "")}
    env = dict(os.environ, MICROPYTHON=str(tmp_path / "no-such-micropython"))
    got = run_harness(tmp_path / "missing", files, env=env)
    assert got["test_big_alloc"][0] == "passed"
    kind, text = got["test_big_alloc[micropython]"]
    assert kind == "skipped" and "MicroPython unix port) not found" in text
