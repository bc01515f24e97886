"""Driving a command through a real terminal (a pty) in tests: start it, read what it shows."""

import contextlib
import os
import select
import subprocess
import time


def on_terminal(args):
    """Start `args` with a pty as its stdin, stdout and stderr: (process, master fd)."""
    master, slave = os.openpty()
    proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave,
                            start_new_session=True)
    os.close(slave)
    return proc, master


@contextlib.contextmanager
def repl_on_terminal(args):
    """`burn repl ...` (`args`) on a terminal, as (process, master fd); when the block ends
    without an error, Ctrl-] leaves the REPL and the command must exit with 0. The process
    is killed and the terminal closed in any case."""
    proc, master = on_terminal(args)
    try:
        yield proc, master
        os.write(master, b"\x1d")  # Ctrl-]: leave the REPL
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)


def read_until(fd, marker, timeout=60.0):
    """What the terminal `fd` shows until `marker` (AssertionError after `timeout` s or when
    it closes first)."""
    data = b""
    deadline = time.monotonic() + timeout
    while marker not in data:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        assert ready, "no %r in %r" % (marker, data[-400:])
        try:
            data += os.read(fd, 4096)
        except OSError:
            raise AssertionError("the terminal closed: %r" % data[-400:]) from None
    return data


def until_board_prompt(fd, timeout=60.0):
    """(what `burn repl` showed before mpremote's shell, what the shell showed): read until
    the board's `>>> ` prompt, which must come without a key pressed (AssertionError after
    10 s of shell)."""
    before = read_until(fd, b"exit this shell", timeout)
    before, shell = before.split(b"exit this shell", 1)
    if b">>> " not in shell:
        shell += read_until(fd, b">>> ", timeout=10)
    return before, shell
