"""An AddressSanitizer + UndefinedBehaviorSanitizer build of flex_c for the kernel tests.

With BURN_FLEX_SANITIZE=1, `burn.host.flex.binding.host()` loads this build (cffi ABI mode)
instead of `burn._flex`. The process must start with the ASan runtime preloaded:
`sanitizer_env()` gives the environment for such a subprocess.
"""

import hashlib
import os
import subprocess

from burn.host.cache import cache_dir
from burn.host.flex.binding import HostLib
from burn.host.flex.targets import FLEX_C, header_text, source_digest

FLAGS = ["-std=c99", "-O1", "-g", "-fno-omit-frame-pointer", "-fno-math-errno",
         "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-shared", "-fPIC"]


def _sources_and_cdef():
    import sys

    sys.path.insert(0, FLEX_C)
    try:
        from build_ffi import cdef_text, sources
    finally:
        sys.path.remove(FLEX_C)
    return sources("host"), cdef_text()


def build_sanitized(cc="gcc"):
    """Path of the sanitized shared library (built once, cached by source hash)."""
    srcs, _cdef = _sources_and_cdef()
    h = hashlib.sha256(" ".join([cc] + FLAGS).encode())
    h.update(source_digest().encode())
    folder = os.path.join(cache_dir("flex"), "sanitize-" + h.hexdigest()[:16])
    lib = os.path.join(folder, "libflex_san.so")
    if not os.path.exists(lib):
        os.makedirs(folder, exist_ok=True)
        tmp = lib + ".tmp%d" % os.getpid()
        proc = subprocess.run([cc] + FLAGS + ["-I" + os.path.join(FLEX_C, "include"), "-o",
                                              tmp] + srcs, capture_output=True, text=True)
        if proc.returncode:
            raise RuntimeError("sanitizer build failed:\n" + proc.stderr)
        os.replace(tmp, lib)
    return lib


def sanitizer_env(cc="gcc"):
    """Environment for a child process that loads the sanitized build."""
    runtime = subprocess.run([cc, "-print-file-name=libasan.so"], capture_output=True,
                             text=True, check=True).stdout.strip()
    env = dict(os.environ)
    env.update(BURN_FLEX_SANITIZE="1", LD_PRELOAD=runtime,
               ASAN_OPTIONS="detect_leaks=0:abort_on_error=1",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    return env


class SanitizedLib(HostLib):
    """HostLib over the sanitized shared library."""

    name = "host-sanitized"

    def __init__(self):
        import cffi

        _srcs, cdef = _sources_and_cdef()
        self.ffi = cffi.FFI()
        # ABI mode cannot ask the compiler for the macro values: give the literal ones
        self.ffi.cdef(_literal_defines(cdef))
        self.lib = self.ffi.dlopen(build_sanitized())


def _literal_defines(cdef):
    import re

    values = dict(re.findall(r"#define\s+(FLEX_\w+)\s+\(?(-?\d+)\)?",
                             header_text()))
    return re.sub(r"#define (FLEX_\w+) \.\.\.",
                  lambda m: "#define %s %s" % (m.group(1), values[m.group(1)]), cdef)
