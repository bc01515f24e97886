"""Which C files make up one build of flex_c: the single selection rule that the cffi host
build, the cross builds, the sanitizer build, the MicroPython module and the firmware share.

A build compiles common/ and every ref/ file (the reference kernels). The kernels that a
target may optimise are compiled in ref/ under their own names (flex__ref_*, ref/ref.h); each
entry/ file gives them their public names, unless opt/<target>/ has a file of the same name,
which then defines those public kernels itself (calling the flex__ref_* ones for the cases it
leaves to the reference). The opt/<target>/ files that have no entry/ twin are its helpers.
An opt folder may stand on another (BASES): it has its base's files but those it replaces
with a file of the same name. extra/ holds the kernels of the optional ops
(burn.graph.ops.OPTIONAL): every build has them but those that must stay small without them
(`extra=False`, the armv6m native module). Builds for a CPU without a floating-point unit
leave out the float files (`is_float`); builds without a C library add freestanding/ (memcpy
and friends) and leave out the opt helpers that need one (HOSTED). Files of different folders
may share a name: `object_name` tells their objects apart. The public header, flex.h, is a
list of parts (include/flex/*.h); `header_text` gives it as one text.

No dependency beyond the standard library, so make and cmake can call it:

    python3 flex_c/sources.py cortex_m0plus --no-float     # one path per line
    python3 flex_c/sources.py none --freestanding --sep ';'
"""

import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")
INCLUDE = os.path.join(HERE, "include")
HEADER = os.path.join(INCLUDE, "flex.h")

# opt folder: the folder whose files it has unless it replaces them. opt/portable holds plain
# C helpers of every CPU's kernels (the patch gather); the Cortex-M0+ kernels are Thumb-1
# code that every M-profile core runs; the DSP ones replace the dot products; the Helium
# (MVE) ones replace the DSP kernels where they have their own. wasm32 (SIMD128) builds the
# host kernels, written for the vectorizer (their x86-64 paths compile only on x86-64).
BASES = {"cortex_m_mve": "cortex_m_dsp", "cortex_m_dsp": "cortex_m0plus",
         "cortex_m0plus": "portable", "riscv32": "portable", "aarch64": "portable",
         "wasm32": "host"}

# opt files that need a hosted C library (malloc): left out of freestanding builds.
HOSTED = ("plan_fast.c",)


def opt_targets():
    """Names of the opt/ folders (the optimised kernel sets), sorted."""
    opt = os.path.join(SRC, "opt")
    return sorted(d for d in os.listdir(opt) if os.path.isdir(os.path.join(opt, d)))


def is_float(path):
    """True for a file that holds float32 code: the float kernels (f32_*), the float math
    (fmath) and the float <-> int8 and int16 conversions (s8_quantize, s16_quantize)."""
    name = os.path.splitext(os.path.basename(path))[0]
    return name.startswith("f32_") or name in ("fmath", "s8_quantize", "s16_quantize")


def _c_files(folder):
    return sorted(f for f in os.listdir(folder) if f.endswith(".c"))


def object_name(path):
    """Name of a source's object, unique within a build: its path under src/ without .c
    ("ref/s8_conv", "opt/cortex_m0plus/s8_conv")."""
    return os.path.splitext(os.path.relpath(path, SRC))[0].replace(os.sep, "/")


def _opt_files(opt_target):
    """{file name: its folder} of an opt folder's C files, its base's included."""
    if not opt_target:
        return {}
    files = _opt_files(BASES.get(opt_target))
    folder = os.path.join(SRC, "opt", opt_target)
    if os.path.isdir(folder):
        files.update((f, folder) for f in _c_files(folder))
    return files


def sources(opt_target=None, float_kernels=True, freestanding=False, extra=True):
    """Absolute paths of the C files of one build (see the module docstring). `opt_target`
    names an opt/ folder; None, or a target with no folder yet, gives the reference
    kernels alone."""
    def folder(name):
        path = os.path.join(SRC, name)
        return [os.path.join(path, f) for f in _c_files(path)] if os.path.isdir(path) else []

    entry_dir = os.path.join(SRC, "entry")
    opt = _opt_files(opt_target)
    entry = _c_files(entry_dir)
    entries = [os.path.join(opt.get(f, entry_dir), f) for f in entry]
    helpers = [os.path.join(opt[f], f) for f in sorted(set(opt) - set(entry))
               if not (freestanding and f in HOSTED)]
    paths = folder("common") + folder("ref") + entries + helpers
    if extra:
        paths += folder("extra")
    if freestanding:
        paths += folder("freestanding")
    return paths if float_kernels else [p for p in paths if not is_float(p)]


def header_text():
    """flex.h with each of its parts (an `#include "flex/NAME.h"` line) written in where it
    is included: the whole public API as one text, for the tools that parse it."""
    def part(match):
        with open(os.path.join(INCLUDE, match.group(1))) as f:
            return f.read()

    with open(HEADER) as f:
        return re.sub(r'^#include "(flex/\w+\.h)"$', part, f.read(), flags=re.M)


def main(argv=None):
    """Command line: print the sources of one build, for make and cmake."""
    parser = argparse.ArgumentParser(
        description="Print the C files of one flex_c build (absolute paths).")
    parser.add_argument("opt_target", help="an opt/ folder (%s) or 'none' for the reference "
                        "kernels" % ", ".join(opt_targets()))
    parser.add_argument("--no-float", action="store_true",
                        help="leave out the float32 files (CPUs without an FPU)")
    parser.add_argument("--freestanding", action="store_true",
                        help="add src/freestanding (memcpy, memset, ...) for builds "
                        "without a C library")
    parser.add_argument("--no-extra", action="store_true",
                        help="leave out src/extra, the kernels of the optional ops")
    parser.add_argument("--sep", default="\n", help="separator between paths (default: "
                        "newline; cmake wants ';')")
    args = parser.parse_args(argv)
    target = None if args.opt_target == "none" else args.opt_target
    if target is not None and target not in opt_targets():
        parser.error("unknown opt target %r; known: none, %s" % (target,
                                                                  ", ".join(opt_targets())))
    paths = sources(target, not args.no_float, args.freestanding, not args.no_extra)
    sys.stdout.write(args.sep.join(paths) + ("\n" if args.sep == "\n" else ""))


if __name__ == "__main__":
    main()
