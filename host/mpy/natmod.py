"""The `burnflex` dynamic native module (.mpy): build it for an architecture, read .mpy
headers, and tell whether a board can load a given .mpy.

A build runs micropython/natmod/Makefile (MicroPython's py/dynruntime.mk) in a temporary
folder of the cache and keeps `burnflex.mpy` under `cache_dir("natmod", "<arch>-<key>")`,
where the key hashes the binding sources, the flex_c sources, the architecture, the
compiler and the MicroPython version, so an unchanged module is built once.
"""

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from burn.host import project_files, vendor
from burn.host.cache import cache_dir
from burn.host.firmware import ops_select
from burn.host.mpy.unix import NATIVE_ARCHES

BINDINGS = project_files.tree("micropython")
FLEX_C = project_files.tree("flex_c")
MODULE = "burnflex"
# natmod architectures that the Makefile knows, with their C compiler
ARCHES = {"x86": "gcc", "x64": "gcc", "armv6m": "arm-none-eabi-gcc",
          "armv7m": "arm-none-eabi-gcc", "armv7emsp": "arm-none-eabi-gcc",
          "armv7emdp": "arm-none-eabi-gcc", "rv32imc": "riscv64-unknown-elf-gcc"}
ARM_INSTALL = ("apt-get install -y gcc-arm-none-eabi libnewlib-arm-none-eabi "
               "libstdc++-arm-none-eabi-newlib")
RISCV_INSTALL = "apt-get install -y gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf"
# the microcontroller architectures: modules without the optional ops
_MCU_ARCHES = ("armv6m", "armv7m", "armv7emsp", "armv7emdp", "rv32imc")
_THUMB = ("armv6m", "armv7m", "armv7em", "armv7emsp", "armv7emdp")


class NatmodError(RuntimeError):
    """The native module cannot be built here; the message says why and what to do."""


class MissingTool(NatmodError):
    """A compiler or Python package that the build needs is not installed."""


def _compiler(arch):
    """Path of the C compiler for `arch`, or NatmodError with the install line."""
    if arch not in ARCHES:
        raise NatmodError("unknown natmod architecture %r; known: %s"
                          % (arch, ", ".join(sorted(ARCHES))))
    cc = shutil.which(ARCHES[arch])
    if cc is None:
        install = (ARM_INSTALL if ARCHES[arch].startswith("arm") else RISCV_INSTALL
                   if ARCHES[arch].startswith("riscv") else "apt-get install -y gcc")
        raise MissingTool("%s not found: building burnflex.mpy for %s needs it (%s)"
                          % (ARCHES[arch], arch, install))
    return cc


def _check_python_tools(arch):
    """mpy_ld needs pyelftools, and `ar` to link libgcc into the Arm builds."""
    missing = []
    for module, package in (("elftools", "pyelftools"), ("ar", "ar")):
        if package == "ar" and not arch.startswith("arm"):
            continue
        try:
            __import__(module)
        except ImportError:
            missing.append(package)
    if missing:
        raise MissingTool("MicroPython's mpy_ld.py needs the Python package(s) %s: "
                          "pip install %s" % (", ".join(missing), " ".join(missing)))


def _input_files():
    """Every file a build reads from this project: the bindings and flex_c."""
    files = sorted(p for p in BINDINGS.rglob("*") if p.suffix in (".c", ".h")
                   or p.name == "Makefile")
    files += sorted(p for p in FLEX_C.rglob("*") if p.suffix in (".c", ".h")
                    or p.name == "sources.py")
    return files


def kept_kernels(arch):
    """The BURNFLEX_OPS of the module for `arch`: on a microcontroller (armv*, rv32imc),
    whose module leaves out the optional ops (its Makefile), the default firmware's kernels;
    else "" (every kernel)."""
    kept = ops_select.default_kernels() if arch in _MCU_ARCHES else None
    return " ".join(kept or ())


def build_key(arch, tree, cc):
    """Hash of a build's inputs: sources, architecture, kept kernels, compiler, MicroPython
    version."""
    h = hashlib.sha256()
    version = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout
    h.update(("%s\0%s\0%s\0%s\0" % (arch, vendor.micropython_version(tree),
                                    version.splitlines()[0] if version else cc,
                                    kept_kernels(arch))).encode())
    for path in _input_files():
        # the trees sit side by side (the Makefile reaches ../../flex_c): name them from there
        h.update(str(path.relative_to(FLEX_C.parent)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def build_natmod(arch, micropython=None, log=None):
    """Path of burnflex.mpy for `arch` (x64, armv6m, armv7emsp, ...), built once per inputs.

    `micropython`: a MicroPython v1.28.0 tree or archive (default: burn.host.vendor's
    search). `log(text)` receives progress lines (default: stderr). Raises MissingTool (a
    compiler or package is missing), NatmodError (the build failed) or
    burn.host.vendor.VendorError (no MicroPython tree)."""
    log = log or (lambda text: print(text, file=sys.stderr))
    cc = _compiler(arch)
    _check_python_tools(arch)
    tree = vendor.micropython_source(micropython)
    folder = cache_dir("natmod", "%s-%s" % (arch, build_key(arch, tree, cc)[:16]))
    final = folder / (MODULE + ".mpy")
    if final.exists():
        return final
    log("building %s.mpy for %s (MicroPython %s) ..." % (MODULE, arch,
                                                       vendor.micropython_version(tree)))
    work = folder.parent / (".%s.build%d" % (folder.name, os.getpid()))
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    try:
        (work / "Makefile").write_text("include %s\n" % (BINDINGS / "natmod" / "Makefile"))
        proc = subprocess.run(["make", "MPY_DIR=%s" % tree, "ARCH=%s" % arch,
                               "PYTHON=%s" % sys.executable,
                               "BURNFLEX_OPS=%s" % kept_kernels(arch), "-j2"],
                              cwd=work, capture_output=True, text=True)
        if proc.returncode:
            tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-25:])
            raise NatmodError("building %s.mpy for %s failed:\n%s" % (MODULE, arch, tail))
        os.replace(work / (MODULE + ".mpy"), final)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    log("built %s (%d bytes)" % (final, final.stat().st_size))
    return final


def _arch_name(index):
    return NATIVE_ARCHES[index] if index < len(NATIVE_ARCHES) else "arch#%d" % index


def mpy_header(path_or_bytes):
    """(mpy version, sub-version, architecture name or None) of a .mpy file or its bytes.
    The architecture is None for bytecode-only files. ValueError if it is not a .mpy."""
    data = path_or_bytes
    if not isinstance(data, (bytes, bytearray, memoryview)):
        with open(data, "rb") as f:
            data = f.read(4)
    data = bytes(data[:4])
    if len(data) < 4 or data[0] != ord("M"):
        raise ValueError("not a .mpy file (no 'M' header)")
    arch = (data[2] >> 2) & 0x2F
    return data[1], data[2] & 3, _arch_name(arch) if arch else None


def _describe(version, sub, arch):
    return ".mpy v%d.%d, %s" % (version, sub, arch or "no native code")


def check_mpy_compatible(header, board_mpy):
    """None when a board whose `sys.implementation._mpy` is `board_mpy` can load a .mpy
    with `header` (mpy_header's tuple), else a message naming both sides' architecture and
    .mpy version. Follows MicroPython's loader: same version; native code also needs the
    same sub-version and the board's architecture (Thumb boards also load the older Thumb
    architectures, down to armv6m)."""
    version, sub, arch = header
    board = (board_mpy & 0xFF, (board_mpy >> 8) & 3,
             _arch_name((board_mpy >> 10) & 0x2F) if (board_mpy >> 10) & 0x2F else None)
    problem = None
    if version != board[0]:
        problem = ".mpy version differs"
    elif arch is not None:
        if sub != board[1]:
            problem = ".mpy sub-version differs"
        elif board[2] is None:
            problem = "the board's firmware cannot load native code"
        elif arch != board[2] and not (arch in _THUMB and board[2] in _THUMB and
                                       _THUMB.index(arch) <= _THUMB.index(board[2])):
            problem = "architecture differs"
    if problem is None:
        return None
    return "module is %s but the board takes %s: %s" % (_describe(*header), _describe(*board),
                                                        problem)


def main(argv=None):
    """`python -m burn.host.mpy.natmod ARCH`: build burnflex.mpy and copy it to micropython/build/
    (where micropython/package.json points `mpremote mip install`) or to --out."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m burn.host.mpy.natmod",
        description="Build the burnflex native module (.mpy) for one architecture, cached, "
        "and copy it where `mpremote mip install micropython/package.json` finds it.")
    parser.add_argument("arch", choices=sorted(ARCHES),
                        help="the board's .mpy architecture (RP2040: armv6m)")
    parser.add_argument("--micropython", help="MicroPython v1.28.0 source tree or .tar.xz "
                        "(default: $BURN_MICROPYTHON_SRC, the vendor folder, a git clone)")
    parser.add_argument("--out", default=str(BINDINGS / "build" / (MODULE + ".mpy")),
                        help="where to copy the .mpy (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        built = build_natmod(args.arch, args.micropython)
    except (NatmodError, vendor.VendorError) as e:
        parser.exit(1, "error: %s\n" % e)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp%d" % os.getpid())
    shutil.copyfile(built, tmp)
    os.replace(tmp, out)
    version, sub, arch = mpy_header(out)
    print("%s: %d bytes, .mpy v%d.%d, %s" % (out, out.stat().st_size, version, sub, arch))


if __name__ == "__main__":
    main()
