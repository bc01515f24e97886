"""Files on the board's flash, moved over the raw REPL in base64 chunks with a SHA-256 check.

Uploads go to `<name>.part` first and are renamed only after the board's own hash of the
written file matches the host's, so a cut transfer never leaves a half file under the real
name. The code that runs on the board is burn.host.board_programs' file_hash, file_put,
file_get and listing.
"""

import ast
import base64
import hashlib
import posixpath

from burn.host import board_programs as bp
from burn.host.link.errors import (
    ENOSPC,
    BoardResetError,
    DeviceError,
    FlashFullError,
    LinkError,
    TransferError,
)

PART_SUFFIX = ".part"
_PUT = ("file_hash", "file_put")  # the board programs of an upload


def sha256_hex(data):
    """SHA-256 of bytes, as the board prints it."""
    return hashlib.sha256(data).hexdigest()


def remote_hashes(link, paths):
    """{path: SHA-256 hex, or None if absent} for files on the board, computed on the board."""
    if not paths:
        return {}
    text = link.exec(bp.once("file_hash", "_file_hashes", list(paths)),
                     timeout=10.0 + 2.0 * len(paths))
    return dict(ast.literal_eval(line) for line in text.splitlines() if line.strip())


def _time_for(nbytes):
    return 10.0 + nbytes / 20000.0


def makedirs(link, path):
    """Create `path` and its parents on the board (existing ones are fine)."""
    link.exec(bp.once("file_put", "_make_dirs", path))


def put_bytes(link, data, remote, chunk=2048, attempts=2, progress=None):
    """Write `data` to `remote` atomically; TransferError if the hash never matches.

    `progress(sent, total)` is called after each chunk has reached the board.
    """
    remote = _absolute(remote)
    values = {"parent": posixpath.dirname(remote), "part": remote + PART_SUFFIX,
              "path": remote, "want": sha256_hex(data)}
    pieces = [bp.call("_put_piece", base64.b64encode(data[i : i + chunk]).decode("ascii"))
              for i in range(0, len(data), chunk)] or [""]
    for attempt in range(attempts):
        try:
            got = _send_file(link, values, pieces, len(data), chunk, progress)
        except BoardResetError:
            if attempt + 1 == attempts:
                raise
            continue
        if got == values["want"]:
            return got
    raise TransferError(
        "%s arrived corrupted on the board on %s %d times (SHA-256 %s, expected %s)"
        % (remote, link.port, attempts, got, values["want"])
    )


def _send_file(link, values, pieces, size, chunk, progress):
    # Small files take one exec; larger ones one per chunk between the start and the finish.
    start = bp.call("_put_start", values["parent"], values["part"])
    execs = ["".join(bp.source(p) for p in _PUT) + start + pieces[0]] + pieces[1:]
    execs[-1] += bp.call("_put_finish", values["part"], values["path"], values["want"]) + \
        bp.forget(*_PUT)
    try:
        for i, code in enumerate(execs[:-1]):
            link.exec(code)
            if progress is not None:
                progress(min((i + 1) * chunk, size), size)
        got = link.exec(execs[-1], timeout=_time_for(size)).strip()
        if progress is not None:
            progress(size, size)
        return got
    except DeviceError as exc:
        _discard(link, values["part"])
        if exc.errno == ENOSPC:
            total, free = link.fs_info(values["parent"] or "/")
            raise FlashFullError(exc.traceback, values["path"], size, free, total) from None
        raise


def _discard(link, part):
    try:
        link.exec(bp.once("file_put", "_put_discard", part, uses=("file_hash",)))
    except LinkError:
        pass


def get_bytes(link, remote, chunk=1536):
    """The contents of `remote`, checked against the board's own SHA-256 of it."""
    remote = _absolute(remote)
    size = link.stat(remote)[1]
    text = link.exec(bp.once("file_get", "_file_get", remote, chunk),
                     timeout=_time_for(size) * 2)
    data = base64.b64decode("".join(text.split()))
    want = remote_hashes(link, [remote])[remote]
    if sha256_hex(data) != want:
        raise TransferError(
            "reading %s from the board on %s: the data does not match the board's SHA-256"
            % (remote, link.port)
        )
    return data


def listdir(link, path="/"):
    """[(name, size, is_dir)] for the entries of a folder on the board."""
    text = link.exec(bp.once("listing", "_list_dir", path))
    return sorted(ast.literal_eval(line) for line in text.splitlines() if line.strip())


def _absolute(path):
    if not path.startswith("/"):
        path = "/" + path
    return posixpath.normpath(path)
