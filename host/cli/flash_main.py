"""The `burn-flash` console command: the same as `burn flash`."""

import argparse
import sys

from burn.host.cli import cmd_flash, parse_args


def build_parser():
    """The argparse parser of `burn-flash`."""
    parser = argparse.ArgumentParser(
        prog="burn-flash",
        description="Put the burn core and a .bst model on a MicroPython board, run the "
                    "model's self-test there and report latency, heap and flash used. With "
                    "--firmware, first put MicroPython firmware (.uf2) on the board.")
    cmd_flash.add_arguments(parser)
    return parser


def main(argv=None):
    """Entry point of `burn-flash`; returns the exit status."""
    args = parse_args(build_parser(), argv)
    try:
        return args.run(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
