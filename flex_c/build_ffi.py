"""cffi out-of-line API build of flex_c into the extension module `burn._flex`.

Run at install time through setup.py's `cffi_modules`; the file selection is `sources.py`'s
(shared by every build), and `cdef_text()` also serves the sanitizer build.
"""

import os
import re
import sys

import cffi

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # setuptools runs this file by path; sources.py sits beside it
from sources import INCLUDE, header_text, sources  # noqa: E402


def cdef_text():
    """flex.h and its parts as cffi cdef: comments, include guards and C++ guards removed;
    every #define becomes `#define NAME ...` so the compiler supplies the value."""
    text = header_text()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"#ifdef __cplusplus.*?#endif", "", text, flags=re.S)
    out = []
    for line in text.splitlines():
        m = re.match(r"\s*#define\s+(FLEX_\w+)\s+\S", line)
        if m and m.group(1) != "FLEX_H":
            out.append("#define " + m.group(1) + " ...")
        elif not line.lstrip().startswith("#"):
            out.append(line)
    return "\n".join(out)


def _relative(paths):
    # setuptools wants source paths relative to the project root (the build's cwd)
    root = os.getcwd()
    return [os.path.relpath(p, root) if p.startswith(root) else p for p in paths]


ffibuilder = cffi.FFI()
ffibuilder.cdef(cdef_text())
ffibuilder.set_source(
    "burn._flex",
    '#include "flex.h"',
    sources=_relative(sources("host")),
    include_dirs=[os.path.relpath(INCLUDE, os.getcwd()) if INCLUDE.startswith(os.getcwd())
                  else INCLUDE],
    extra_compile_args=["-std=c99", "-O3", "-fno-math-errno", "-fno-wrapv",
                        "-fno-tree-loop-distribute-patterns"],
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
