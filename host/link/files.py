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

_HASH_CODE = """
import hashlib, binascii
def _bh(p):
    h = hashlib.sha256()
    b = bytearray(512)
    m = memoryview(b)
    with open(p, 'rb') as f:
        while True:
            n = f.readinto(b)
            if not n:
                break
            h.update(m[:n])
    return binascii.hexlify(h.digest()).decode()
print(_bh(%r))
del _bh
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


def remote_hash(link, path):
    """SHA-256 (hex) of a file on the board, computed on the board."""
    return link.exec(_HASH_CODE % path, timeout=_time_for(link.stat(path)[1])).strip()


def _time_for(nbytes):
    return 10.0 + nbytes / 20000.0


def makedirs(link, path):
    """Create `path` and its parents on the board (existing ones are fine)."""
    link.exec(
        "import os\n_p = ''\nfor _d in %r.split('/'):\n"
        "    if _d:\n        _p += '/' + _d\n        try:\n            os.mkdir(_p)\n"
        "        except OSError:\n            pass\ndel _p, _d\n" % path
    )


def put_bytes(link, data, remote, chunk=2048, attempts=2):
    """Write `data` to `remote` atomically; TransferError if the hash never matches."""
    remote = _absolute(remote)
    parent = posixpath.dirname(remote)
    if parent != "/":
        makedirs(link, parent)
    want = sha256_hex(data)
    for attempt in range(attempts):
        try:
            _write_part(link, data, remote, chunk)
            got = remote_hash(link, remote + PART_SUFFIX)
        except BoardResetError:
            if attempt + 1 == attempts:
                raise
            continue
        if got == want:
            _replace(link, remote + PART_SUFFIX, remote)
            return want
        link.exec("import os\nos.remove(%r)" % (remote + PART_SUFFIX))
    raise TransferError(
        "%s arrived corrupted on the board on %s %d times (SHA-256 %s, expected %s)"
        % (remote, link.port, attempts, got, want)
    )


def _write_part(link, data, remote, chunk):
    part = remote + PART_SUFFIX
    link.exec("import binascii\n_bf = open(%r, 'wb')\n_bw = _bf.write\n_ba = binascii.a2b_base64"
              % part)
    try:
        for i in range(0, len(data), chunk):
            piece = base64.b64encode(data[i : i + chunk]).decode("ascii")
            link.exec("_bw(_ba(%r))" % piece)
        link.exec("_bf.close()\ndel _bf, _bw, _ba")
    except DeviceError as exc:
        _discard(link, part)
        if exc.errno == ENOSPC:
            total, free = link.fs_info(remote)
            raise FlashFullError(exc.traceback, remote, len(data), free, total) from None
        raise


def _discard(link, part):
    try:
        link.exec("try:\n    _bf.close()\nexcept Exception:\n    pass\n"
                  "import os\ntry:\n    os.remove(%r)\nexcept OSError:\n    pass\n" % part)
    except LinkError:
        pass


def _replace(link, src, dst):
    # littlefs renames over an existing file; FAT refuses, so remove the old one first.
    link.exec(
        "import os\ntry:\n    os.rename(%r, %r)\nexcept OSError:\n"
        "    os.remove(%r)\n    os.rename(%r, %r)\n" % (src, dst, dst, src, dst)
    )


def get_bytes(link, remote, chunk=1536):
    """The contents of `remote`, checked against the board's own SHA-256 of it."""
    remote = _absolute(remote)
    size = link.stat(remote)[1]
    text = link.exec(_READ_CODE % (remote, chunk), timeout=_time_for(size) * 2)
    data = base64.b64decode("".join(text.split()))
    want = remote_hash(link, remote)
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
