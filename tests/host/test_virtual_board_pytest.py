"""The pytest plugin: each device test is its own result, failures show the board traceback."""

import subprocess
import sys

DEVICE_TESTS = """\
import gc


def helper():
    return [1, 2, 3]


def test_passes_on_board():
    assert sum(helper()) == 6


def test_fails_on_board():
    values = helper()
    assert values[0] == 99, values


def test_prints_and_raises():
    print("printed on the board")
    raise ValueError("board-side failure")


def test_memory_error_shows_sizes():
    bytearray(50 * 1024 * 1024)
"""


def test_plugin_runs_user_files_on_a_virtual_board(tmp_path):
    (tmp_path / "test_mine.py").write_text(DEVICE_TESTS)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "burn.host.pytest_device", "--board", "rp2040",
         "--virtual", "--device-core", "none", "-p", "no:cacheprovider", "-rA",
         str(tmp_path)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, check=False,
    )
    out = proc.stdout
    assert "3 failed, 1 passed" in out, out
    assert "PASSED test_mine.py::test_passes_on_board" in out
    assert 'File "/tests/test_mine.py", line 14, in test_fails_on_board' in out
    assert "AssertionError: [1, 2, 3]" in out
    assert "printed on the board" in out and "ValueError: board-side failure" in out
    assert "allocating %d bytes failed" % (50 * 1024 * 1024) in out
