"""Under pytest-xdist every worker has its own board session: a serial board serves one
worker at a time (burn.host.pytest_device holds a lock on its port while it uses it)."""

import os
import subprocess
import sys

from burn.host.pytest_device import _hold_port

TAKE = "from burn.host.pytest_device import _hold_port; _hold_port(%r); print('taken')"


def test_a_second_process_waits_for_the_port_until_the_first_lets_go():
    master, slave = os.openpty()
    port = os.ttyname(slave)
    try:
        lock = _hold_port(port)
        waiting = subprocess.Popen([sys.executable, "-c", TAKE % port], stdout=subprocess.PIPE,
                                   text=True)
        try:
            waiting.wait(timeout=2)
            raise AssertionError("the second process took a held port")
        except subprocess.TimeoutExpired:
            pass
        lock.close()
        out, _ = waiting.communicate(timeout=30)
        assert out.strip() == "taken"
    finally:
        os.close(master)
        os.close(slave)
