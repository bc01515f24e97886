"""Board program: the contents of a file, printed in base64 pieces."""


def _file_get(path, chunk):
    """Print file `path` in base64, `chunk` bytes a piece, without newlines of its own."""
    import binascii

    with open(path, "rb") as f:
        while True:
            b = f.read(chunk)
            if not b:
                break
            print(binascii.b2a_base64(b).decode(), end="")
