"""Board program: the files on the board, one literal a line."""


def _list_dir(path):
    """Print (name, size, is a folder) of each entry of folder `path`."""
    import os

    for e in os.ilistdir(path):
        print(repr((e[0], e[3] if len(e) > 3 else 0, e[1] == 0x4000)))


def _walk(folder, extra):
    """Print (path, size) of every file under `folder`, then of those of `extra` that
    exist."""
    import os

    _walk_dir(folder)
    for p in extra:
        try:
            print(repr((p, os.stat(p)[6])))
        except OSError:
            pass


def _walk_dir(d):
    """Print (path, size) of every file under folder `d` (none if it is absent)."""
    import os

    try:
        es = list(os.ilistdir(d))
    except OSError:
        return
    for e in es:
        if e[1] == 0x4000:
            _walk_dir(d + "/" + e[0])
        else:
            print(repr((d + "/" + e[0], e[3] if len(e) > 3 else 0)))
