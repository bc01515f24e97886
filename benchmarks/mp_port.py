"""What the footprint benchmarks (core_footprint, nn_footprint) share: their --heap option
and the MicroPython unix port they measure on."""

import argparse
import sys

from burn.host.mpy import unix as mp_unix


def heap_parser(doc):
    """An argument parser described by the first line of `doc`, with --heap (the heap cap
    of the MicroPython runs)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--heap", default=mp_unix.DEFAULT_HEAP, help="MicroPython heap cap")
    return parser


def unix_port():
    """(version, architecture) of the MicroPython unix port, or None after saying on stderr
    that it is missing."""
    binary = mp_unix.find_micropython()
    if binary is None:
        print("micropython (the MicroPython unix port) not found", file=sys.stderr)
        return None
    version, _, arch = mp_unix.port_info(binary)
    return version, arch
