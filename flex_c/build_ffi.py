"""cffi out-of-line API build of flex_c into the extension module `burn._flex`.

Run at install time through setup.py's `cffi_modules`; `sources()` and `cdef_text()` are also
used by the cross-target and sanitizer builds so that every build compiles the same files.
"""

import os
import re

import cffi

HERE = os.path.dirname(os.path.abspath(__file__))
INCLUDE = os.path.join(HERE, "include")
HEADER = os.path.join(INCLUDE, "flex.h")


def sources(opt_target=None):
    """Absolute paths of the C files of one build: common/, then every ref/ kernel file,
    replaced by opt/<opt_target>/ of the same name where that exists, then the opt/ files
    that have no ref/ twin (their helpers)."""
    src = os.path.join(HERE, "src")
    common = sorted(os.path.join(src, "common", f) for f in os.listdir(os.path.join(src, "common"))
                    if f.endswith(".c"))
    opt_dir = os.path.join(src, "opt", opt_target) if opt_target else None
    kernels = []
    for f in sorted(os.listdir(os.path.join(src, "ref"))):
        if not f.endswith(".c"):
            continue
        opt = os.path.join(opt_dir, f) if opt_dir else None
        kernels.append(opt if opt and os.path.exists(opt) else os.path.join(src, "ref", f))
    extra = []
    if opt_dir and os.path.isdir(opt_dir):
        ref = set(os.listdir(os.path.join(src, "ref")))
        extra = sorted(os.path.join(opt_dir, f) for f in os.listdir(opt_dir)
                       if f.endswith(".c") and f not in ref)
    return common + kernels + extra


def cdef_text():
    """flex.h as cffi cdef: comments, include guards and C++ guards removed; every #define
    becomes `#define NAME ...` so the compiler supplies the value."""
    text = open(HEADER).read()
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
