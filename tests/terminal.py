"""Driving a command through a real terminal (a pty) in tests: start it, read what it shows."""

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
