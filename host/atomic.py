"""Atomic file writes: a temporary file in the same folder, flushed, then renamed.

The file gets the mode a plain `open(path, "w")` would give it: an existing file keeps its
mode, a new one gets 0666 minus the process umask (`mkstemp` alone would leave 0600).
"""

import os
import stat
import tempfile


def _umask():
    """The process umask, read without changing it where the system allows."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)  # no other way to read it: set, then restore at once
    os.umask(mask)
    return mask


def _mode_for(path):
    """The permission bits `path` should have once written."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~_umask()


def write_bytes_atomic(path, data, check=None):
    """Write `data` to `path` through a temporary file in the same folder and a rename.
    `check(temporary_path)`, when given, runs before the rename; if it raises, the
    temporary file is removed, `path` is left as it was, and the error propagates."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".burn-%d-" % os.getpid(), suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), _mode_for(path))
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if check is not None:
            check(tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def remove_stale_temporaries(folder):
    """Remove the temporary files of write_bytes_atomic in `folder` whose writing process
    has ended (killed mid-write); returns their names. A live writer's file is kept."""
    removed = []
    for name in os.listdir(folder):
        parts = name.split("-")
        if not (name.endswith(".tmp") and parts[0] == ".burn" and len(parts) > 2
                and parts[1].isdigit()):
            continue
        try:
            os.kill(int(parts[1]), 0)
            continue  # still running (or another user's, which is not ours to remove)
        except ProcessLookupError:
            pass
        except PermissionError:
            continue
        try:
            os.unlink(os.path.join(folder, name))
            removed.append(name)
        except FileNotFoundError:
            pass
    return removed


def write_text_atomic(path, text):
    """Write UTF-8 `text` atomically (see write_bytes_atomic)."""
    write_bytes_atomic(path, text.encode("utf-8"))
