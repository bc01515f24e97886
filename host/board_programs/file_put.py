"""Board program: write a file as a part file in base64 pieces, renamed into place only when
the board's own hash of it is the expected one (sent with file_hash)."""


def _make_dirs(parent):
    """Create folder `parent` and the folders above it (existing ones are fine)."""
    import os

    p = ""
    for d in parent.split("/"):
        if d:
            p += "/" + d
            try:
                os.mkdir(p)
            except OSError:
                pass


def _put_start(parent, part):
    """Open `part` (in folder `parent`) for writing. A part left by a broken transfer is
    removed first: truncating it in place would keep its blocks in use until the new part
    is closed (littlefs copies on write), and a retry would need room for both."""
    global _put_file
    import os

    _make_dirs(parent)
    try:
        os.remove(part)
    except OSError:
        pass
    _put_file = open(part, "wb")


def _put_piece(text):
    """Append the base64 `text`, decoded, to the open part file."""
    import binascii

    _put_file.write(binascii.a2b_base64(text))


def _put_finish(part, path, want):
    """Close `part`; rename it to `path` when its SHA-256 is `want`, else remove it. Print
    its SHA-256."""
    import os

    _put_file.close()
    h = _file_hash(part)  # noqa: F821 (file_hash's, sent before this program)
    if h == want:
        try:
            os.rename(part, path)
        except OSError:
            os.remove(path)
            os.rename(part, path)
    else:
        os.remove(part)
    print(h)


def _put_discard(part):
    """Close and remove the part file of a failed transfer."""
    import os

    try:
        _put_file.close()
    except Exception:
        pass
    try:
        os.remove(part)
    except OSError:
        pass
