"""Board program: SHA-256 of files on the board, computed there."""


def _file_hash(p):
    """The SHA-256 (hex) of file `p`, or None when there is no such file."""
    import binascii
    import hashlib

    h = hashlib.sha256()
    b = bytearray(512)
    m = memoryview(b)
    try:
        f = open(p, "rb")
    except OSError:
        return None
    with f:
        while True:
            n = f.readinto(b)
            if not n:
                break
            h.update(m[:n])
    return binascii.hexlify(h.digest()).decode()


def _file_hashes(paths):
    """Print (path, SHA-256 hex or None) of each of `paths`."""
    for p in paths:
        print(repr((p, _file_hash(p))))
