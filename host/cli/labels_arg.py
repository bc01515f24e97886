"""The `--labels` value of `burn import` and `burn export`: one rule for both commands.

A value with a comma is the list of class names (`cat,dog,bird`); a value without one is a
UTF-8 text file of at most 1 MiB with one name per line (blank lines are skipped). A value
without a comma that is not an existing file is an error, and so is a value with a comma
that is also an existing file's name.
"""

import os

LABELS_FILE_LIMIT = 1 << 20
HELP = ("class names: a comma-separated list, or (no comma) a UTF-8 text file with one "
        "name per line")


def class_labels(spec):
    """The class names `spec` gives (see the module docstring); ValueError when it gives
    none or is ambiguous."""
    if "," in spec:
        if os.path.exists(spec):
            raise ValueError("--labels %r is both a comma-separated list and an existing "
                             "file; rename the file" % spec)
        names = [s.strip() for s in spec.split(",")]
        if not all(names):
            raise ValueError("--labels %r: an empty name in the comma-separated list" % spec)
        return names
    if not os.path.isfile(spec):
        raise ValueError("--labels %r: no such file (a list of names needs commas: "
                         "--labels cat,dog)" % spec)
    with open(spec, "rb") as f:
        data = f.read(LABELS_FILE_LIMIT + 1)
    if len(data) > LABELS_FILE_LIMIT:
        raise ValueError("--labels %s: larger than 1 MiB, not a labels file" % spec)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("--labels %s: not UTF-8 text" % spec) from None
    names = [line.strip() for line in text.splitlines() if line.strip()]
    if not names:
        raise ValueError("--labels %s: the file holds no names" % spec)
    return names
