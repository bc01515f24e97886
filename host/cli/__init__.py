"""The `burn` command. Each subcommand lives in `cmd_<name>.py` here and is found by name."""

import argparse
import importlib
import pkgutil
import sys

import burn


def _subcommand_modules():
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("cmd_"):
            yield importlib.import_module(__name__ + "." + info.name)


def build_parser():
    """The argparse parser with every discovered subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="burn",
        description="Train models on the host and run them on MicroPython microcontrollers.",
    )
    parser.add_argument("--version", action="version", version="burn " + burn.__version__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _subcommand_modules():
        module.register(sub)
    return parser


def add_check(parser, check):
    """Have `parse_args` call `check(args)` after `parser` (a subcommand's) parsed: a message
    it returns is that parser's usage error (one line, exit status 2), as a bad value is."""
    def run_check(args):
        problem = check(args)
        if problem:
            parser.error(problem)
    parser.set_defaults(check_combination=run_check)


def parse_args(parser, argv=None):
    """`argv` parsed by `parser`, then checked by the subcommand's add_check function; exits
    with status 2 and a usage line for a bad value or combination."""
    args = parser.parse_args(argv)
    check = getattr(args, "check_combination", None)
    if check is not None:
        check(args)
    return args


def main(argv=None):
    """Entry point of the `burn` console command; returns the exit status."""
    parser = build_parser()
    args = parse_args(parser, argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 0
    try:
        return args.run(args) or 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
