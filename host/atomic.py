"""Atomic file writes: a temporary file in the same folder, flushed, then renamed."""

import os
import tempfile


def write_bytes_atomic(path, data):
    """Write `data` to `path` through a temporary file in the same folder and a rename."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".burn-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_text_atomic(path, text):
    """Write UTF-8 `text` atomically (see write_bytes_atomic)."""
    write_bytes_atomic(path, text.encode("utf-8"))
