"""`burn flex build --target NAME`: cross-compile flex_c, report code size per object and per
op group."""

import os
import shutil

from burn.host.flex import targets


def register(subparsers):
    """Add the `flex` subcommand."""
    p = subparsers.add_parser("flex", help="build the flex_c kernel library for a target")
    sub = p.add_subparsers(dest="flex_command", metavar="ACTION", required=True)
    b = sub.add_parser("build", help="cross-compile flex_c into a static library")
    b.add_argument("--target", required=True, choices=sorted(targets.TARGETS))
    b.add_argument("--opt", default="-Os", choices=["-Os", "-O2", "-O3", "-Oz"],
                   help="optimisation level (default -Os)")
    b.add_argument("-o", "--output", help="copy the static library to this path")
    b.add_argument("--functions", action="store_true", help="list every function's size")
    b.set_defaults(run=run_build)


def run_build(args):
    """Build, print the size table and the libc check; exit status 1 if libc is needed."""
    try:
        result = targets.build(args.target, args.opt)
    except targets.BuildError as e:
        print(str(e))
        return 1
    total = 0
    print("%-38s %8s" % ("object", "bytes"))
    for name, size, functions in result.sizes():
        total += size
        print("%-38s %8d" % (name, size))
        if args.functions:
            for fn, fsize in sorted(functions.items()):
                print("    %-32s %6d" % (fn, fsize))
    print("%-38s %8d" % ("total", total))
    print("%-38s %8d" % ("int8 kernels", result.int8_size()))
    print()
    print("%-22s %8s %8s" % ("op group", "int8", "float"))
    for group, int8, fp in result.group_sizes():
        print("%-22s %8d %8d" % (group, int8, fp))
    print()
    library = result.library
    if args.output:
        tmp = args.output + ".tmp"
        shutil.copyfile(result.library, tmp)
        os.replace(tmp, args.output)
        library = args.output
    print("library: " + library)
    missing = result.libc_symbols()
    if missing:
        print("needs C library symbols: " + ", ".join(missing))
        return 1
    print("libc check: no C library symbols needed")
    return 0
