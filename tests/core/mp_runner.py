"""Run test functions of one tests/core module on MicroPython, one result line per test.

Usage: micropython mp_runner.py PATHS MODULE [TEST ...]

PATHS is a ':'-separated list put in front of sys.path (the folder where `burn` is found and
the tests folder). A test that raises an exception with a true `skipped` attribute
(checks.skip) is reported as skipped. Every line this script prints starts with MARK so
that the host can tell results from whatever the tests print; a test's traceback travels
as one repr() string.
This file runs on MicroPython only (it uses sys.print_exception).
"""

import gc
import io
import sys

MARK = "@@burn-mp@@"


def emit(*fields):
    """Print one protocol line: MARK followed by the fields, separated by spaces."""
    print(MARK, *fields)


def traceback_text(exc):
    """The traceback of `exc` as MicroPython prints it."""
    buf = io.StringIO()
    sys.print_exception(exc, buf)
    return buf.getvalue()


def run_tests(module, names):
    """Call each named zero-argument test function of `module` and report its outcome."""
    for name in names:
        gc.collect()
        emit("START", name)
        try:
            getattr(module, name)()
        except Exception as exc:  # a failing test must not stop the others
            if getattr(exc, "skipped", False):  # checks.skip()
                emit("SKIP", name, repr(str(exc)))
            else:
                emit("FAIL", name, repr(traceback_text(exc)))
        else:
            emit("PASS", name)


def main(argv):
    """Set up sys.path, import the test module and run the requested tests."""
    for path in reversed(argv[1].split(":")):
        sys.path.insert(0, path)
    try:
        module = __import__(argv[2])
    except Exception as exc:  # reported as the failure of every test
        emit("IMPORT-ERROR", argv[2], repr(traceback_text(exc)))
        return
    run_tests(module, argv[3:])
    emit("DONE")


if __name__ == "__main__":
    main(sys.argv)
