"""python -m burn.host.codegen [--check] [--root DIR]: write the generated regions."""

import argparse
import os
import sys

from burn.host import project_files
from burn.host.atomic import write_text_atomic
from burn.host.codegen import generate
from burn.host.codegen.regions import RegionError


def main(argv=None):
    """Command line: rewrite (or with --check, compare) the generated regions."""
    parser = argparse.ArgumentParser(
        prog="python -m burn.host.codegen",
        description="Write the code and tables that follow the op table (core/graph/ops.py) "
                    "and flex.h: the burnflex kernel lists and renames, the FLEX_OP codes, "
                    "the plan steps' sizes and calls, burnflex's plan recorders and the "
                    "kernel table of docs/micropython-module.md. Each lives in a region "
                    "between BEGIN and END markers of a hand-written file.")
    parser.add_argument("--check", action="store_true",
                        help="change nothing; list the files that would change and exit 1 "
                             "if there are any (CI)")
    parser.add_argument("--root", help="the source checkout (default: the one burn runs "
                                       "from)")
    args = parser.parse_args(argv)
    root = args.root or project_files.checkout_root()
    if root is None:
        parser.error("burn runs from an installed package: give --root, a source checkout")
    try:
        changed = generate(root)
    except (OSError, RegionError, ValueError) as exc:
        print("codegen: %s" % exc, file=sys.stderr)
        return 2
    for path in sorted(changed):
        print(("would change: %s" if args.check else "wrote %s") % path)
        if not args.check:
            write_text_atomic(os.path.join(root, path), changed[path])
    if not changed:
        print("codegen: every generated region is up to date")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
