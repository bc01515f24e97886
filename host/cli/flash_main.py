"""The `burn-flash` console command: the same as `burn flash`."""

import argparse
import sys

from burn.host.cli import cmd_flash


def main(argv=None):
    """Entry point of `burn-flash`; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="burn-flash",
        description="Put the burn core and a .bst model on a MicroPython board, run the "
                    "model's self-test there and report latency, heap and flash used. With "
                    "--firmware, first put MicroPython firmware (.uf2) on the board.")
    cmd_flash.add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
