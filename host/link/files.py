"""Files on the board's flash, moved over the raw REPL in base64 chunks with a SHA-256 check.

Uploads go to `<name>.part` first and are renamed only after the board's own hash of the
written file matches the host's, so a cut transfer never leaves a half file under the real
name. Every snippet sent to the board is MicroPython code (binascii, hashlib, os).
"""

import ast
import base64
import hashlib
import posixpath

from burn.host.link.errors import (
    ENOSPC,
    BoardResetError,
    DeviceError,
    FlashFullError,
    LinkError,
    TransferError,
)

PART_SUFFIX = ".part"

_HASH_FUNCTION = """
import os, hashlib, binascii
def _bh(p):
    h = hashlib.sha256()
    b = bytearray(512)
    m = memoryview(b)
    try:
        f = open(p, 'rb')
    except OSError:
        return None
    with f:
        while True:
            n = f.readinto(b)
            if not n:
                break
            h.update(m[:n])
    return binascii.hexlify(h.digest()).decode()
"""

_HASHES_CODE = _HASH_FUNCTION + """
for _p in %r:
    print(repr((_p, _bh(_p))))
del _bh, _p
"""

_MAKEDIRS = """
import os
_p = ''
for _d in %(parent)r.split('/'):
    if _d:
        _p += '/' + _d
        try:
            os.mkdir(_p)
        except OSError:
            pass
"""

# A part left by a broken transfer is removed before the new one is opened: truncating it in
# place would keep its blocks in use until the new part is closed (littlefs copies on write),
# and a retry of a large file would then need room for both.
_PUT_START = _MAKEDIRS + """
import binascii
try:
    os.remove(%(part)r)
except OSError:
    pass
_bf = open(%(part)r, 'wb')
_bw = _bf.write
_ba = binascii.a2b_base64
"""

_PUT_CHUNK = "_bw(_ba(%r))\n"

# The board renames the part file only when its own hash of it is the expected one.
_PUT_FINISH = _HASH_FUNCTION + """
_bf.close()
_h = _bh(%(part)r)
if _h == %(want)r:
    try:
        os.rename(%(part)r, %(path)r)
    except OSError:
        os.remove(%(path)r)
        os.rename(%(part)r, %(path)r)
else:
    os.remove(%(part)r)
print(_h)
del _bf, _bw, _ba, _bh, _h
"""

_READ_CODE = """
import binascii
with open(%r, 'rb') as _bf:
    while True:
        _bb = _bf.read(%d)
        if not _bb:
            break
        print(binascii.b2a_base64(_bb).decode(), end='')
del _bf, _bb
"""


def sha256_hex(data):
    """SHA-256 of bytes, as the board prints it."""
    return hashlib.sha256(data).hexdigest()


def remote_hashes(link, paths):
    """{path: SHA-256 hex, or None if absent} for files on the board, computed on the board."""
    if not paths:
        return {}
    text = link.exec(_HASHES_CODE % (list(paths),), timeout=10.0 + 2.0 * len(paths))
    return dict(ast.literal_eval(line) for line in text.splitlines() if line.strip())


def _time_for(nbytes):
    return 10.0 + nbytes / 20000.0


def makedirs(link, path):
    """Create `path` and its parents on the board (existing ones are fine)."""
    link.exec(_MAKEDIRS % {"parent": path})


def put_bytes(link, data, remote, chunk=2048, attempts=2, progress=None):
    """Write `data` to `remote` atomically; TransferError if the hash never matches.

    `progress(sent, total)` is called after each chunk has reached the board.
    """
    remote = _absolute(remote)
    values = {"parent": posixpath.dirname(remote), "part": remote + PART_SUFFIX,
              "path": remote, "want": sha256_hex(data)}
    pieces = [_PUT_CHUNK % base64.b64encode(data[i : i + chunk]).decode("ascii")
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
    execs = [_PUT_START % values + pieces[0]] + pieces[1:]
    execs[-1] += _PUT_FINISH % values
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
        link.exec("try:\n    _bf.close()\nexcept Exception:\n    pass\n"
                  "import os\ntry:\n    os.remove(%r)\nexcept OSError:\n    pass\n" % part)
    except LinkError:
        pass


def get_bytes(link, remote, chunk=1536):
    """The contents of `remote`, checked against the board's own SHA-256 of it."""
    remote = _absolute(remote)
    size = link.stat(remote)[1]
    text = link.exec(_READ_CODE % (remote, chunk), timeout=_time_for(size) * 2)
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
    text = link.exec(
        "import os\nfor _e in os.ilistdir(%r):\n"
        "    print(repr((_e[0], _e[3] if len(_e) > 3 else 0, _e[1] == 0x4000)))\n" % path
    )
    return sorted(ast.literal_eval(line) for line in text.splitlines() if line.strip())


def _absolute(path):
    if not path.startswith("/"):
        path = "/" + path
    return posixpath.normpath(path)
