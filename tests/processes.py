"""Looking at real processes in tests (Linux /proc): alive or not, children, waiting for an
end."""

import time
from pathlib import Path


def alive(pid):
    """Whether a process with this pid exists and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def children(pid):
    """The pids of the child processes of `pid` (Linux); [] once it has gone."""
    found = []
    try:
        for task in Path("/proc/%d/task" % pid).iterdir():
            text = (task / "children").read_text()
            found += [int(x) for x in text.split()]
    except OSError:
        pass
    return found


def gone_within(pids, seconds):
    """Whether every process of `pids` has ended (or is a zombie) within `seconds`."""
    end = time.monotonic() + seconds
    while any(alive(pid) for pid in pids):
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True
