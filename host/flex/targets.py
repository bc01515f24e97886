"""Cross builds of flex_c with `python -m ziglang cc`: a static library per target, its code
size per kernel, and a check that the objects need nothing from a C library.

Builds are cached under `cache_dir("flex")` (burn.host.cache), in <target><opt>-<hash>/
folders keyed by the sources and flags, so every checkout and install shares them.
"""

import hashlib
import os
import subprocess
import sys

from burn.host import project_files
from burn.host.cache import cache_dir
from burn.host.flex import op_groups, wasm
from burn.host.flex.elf import Elf

FLEX_C = str(project_files.tree("flex_c"))
COMMON_FLAGS = ["-std=c99", "-ffreestanding", "-fno-builtin", "-fno-math-errno",
                "-ffunction-sections", "-Wall", "-Werror", "-I" + os.path.join(FLEX_C, "include")]

# The emulator's image (Cortex-M, RISC-V and AArch64) keeps every kernel (no section GC)
# and its symbols (-g).
LINK_FLAGS = ["-g", "-nostartfiles", "-Wl,-T," + os.path.join(FLEX_C, "emulated.ld"),
              "-Wl,-e,flex_version", "-Wl,--no-gc-sections"]

# name: (zig target triple, cpu flags, opt folder, links an image for the emulator)
TARGETS = {
    "cortex-m0plus": ("thumb-freestanding-eabi", ["-mcpu=cortex_m0plus"], "cortex_m0plus",
                      True),
    "cortex-m4f": ("thumb-freestanding-eabihf", ["-mcpu=cortex_m4+vfp4d16sp"], "cortex_m_dsp",
                   True),
    "cortex-m33": ("thumb-freestanding-eabihf", ["-mcpu=cortex_m33+dsp+fp_armv8d16sp"],
                   "cortex_m_dsp", True),
    "cortex-m55": ("thumb-freestanding-eabihf", ["-mcpu=cortex_m55+mve_fp"], "cortex_m_mve",
                   True),
    "riscv32": ("riscv32-freestanding-none", ["-mcpu=generic_rv32+m+c"], "riscv32", True),
    # Armv8.2-A with the dot-product extension (SDOT), as the Cortex-A55/A76 have; no
    # unwind tables (freestanding C unwinds nothing; they were 13.7 KB of the image)
    "aarch64": ("aarch64-freestanding-none",
                ["-mcpu=cortex_a76", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables"],
                "aarch64", True),
    "wasm32": ("wasm32-freestanding", ["-msimd128"], "wasm32", False),
}

# Helpers a freestanding compiler may call that are not C-library functions.
_LIBC_INTERNALS = ("__errno", "__errno_location", "__stack_chk_fail", "__assert_fail",
                   "__memcpy_chk", "__memset_chk")


class BuildError(RuntimeError):
    """The cross compiler or archiver failed; the message holds its output."""


def _zig(args):
    cmd = [sys.executable, "-m", "ziglang"] + args
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode:
        raise BuildError(" ".join(args[:3]) + " failed:\n" + proc.stdout + proc.stderr)


def _flex_sources(flex_c=FLEX_C):
    """flex_c/sources.py (of the folder `flex_c`), the one file-selection rule of every
    flex_c build."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("flex_c_sources",
                                                  os.path.join(flex_c, "sources.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def header_text(flex_c=FLEX_C):
    """flex.h (of the folder `flex_c`) with its parts written in: the whole public C API as
    one text."""
    return _flex_sources(flex_c).header_text()


def _sources(target, reference=False):
    # Cross builds also carry the memory functions compilers may call (src/freestanding).
    return _flex_sources().sources(None if reference else TARGETS[target][2],
                                   freestanding=True)


def source_digest():
    """Hash of every file under flex_c/ (sources, headers, linker script), each named by its
    path inside flex_c/."""
    h = hashlib.sha256()
    for root, dirs, files in sorted(os.walk(FLEX_C)):
        dirs.sort()
        for name in sorted(files):
            if name.endswith((".c", ".h", ".ld")):
                path = os.path.join(root, name)
                with open(path, "rb") as f:
                    h.update(os.path.relpath(path, FLEX_C).encode() + b"\0" + f.read())
    return h.hexdigest()


class Build:
    """A finished build: `objects` {object name (flex_c/sources.py `object_name`): .o path},
    `library` (.a), `image` (linked ELF for the emulator, or None), `target`, `opt`."""

    def __init__(self, target, opt, folder, objects, library, image, reference=False):
        self.target, self.opt, self.folder, self.reference = target, opt, folder, reference
        self.objects, self.library, self.image = objects, library, image

    def sizes(self):
        """[(object name, code+rodata bytes, {function: bytes})] of every object (for
        wasm32, the object file's size and no function table)."""
        rows = []
        for name, path in sorted(self.objects.items()):
            if self.target == "wasm32":
                rows.append((name, os.path.getsize(path), {}))
                continue
            with open(path, "rb") as f:
                elf = Elf(f.read())
            rows.append((name, elf.alloc_size(), elf.functions()))
        return rows

    def int8_size(self):
        """Flash bytes of everything the int8 kernels need: every object but the float
        ones (flex_c/sources.py `is_float`: f32_*, fmath, s8_quantize)."""
        is_float = _flex_sources().is_float
        return sum(size for name, size, _f in self.sizes() if not is_float(name))

    def group_sizes(self):
        """[(op group, int8 bytes, float bytes)] of the objects (burn.host.flex.op_groups)."""
        return op_groups.group_sizes(self.sizes(), _flex_sources().is_float)

    def needed(self, symbols):
        """Names of the objects that define `symbols` and, in turn, what they call (ELF
        targets): the part of the build a program calling only `symbols` links."""
        defines, uses = {}, {}
        for name, path in self.objects.items():
            with open(path, "rb") as f:
                elf = Elf(f.read())
            uses[name] = elf.undefined()
            for s in elf.symbols:
                if s.section is not None and s.bind != 0 and s.name:
                    defines.setdefault(s.name, name)
        todo, keep = list(symbols), set()
        while todo:
            obj = defines.get(todo.pop())
            if obj is not None and obj not in keep:
                keep.add(obj)
                todo.extend(uses[obj])
        return sorted(keep)

    def source_of(self, name):
        """The C file that object `name` is compiled from."""
        for src in _sources(self.target, self.reference):
            if _flex_sources().object_name(src) == name:
                return src
        raise KeyError(name)

    def libc_symbols(self):
        """Undefined symbols of the objects that a C library would have to provide
        (compiler-runtime helpers such as __aeabi_* are allowed)."""
        defined, needed = set(), set()
        for path in self.objects.values():
            with open(path, "rb") as f:
                data = f.read()
            if self.target == "wasm32":
                needed.update(wasm.imports(data))
                defined.update(wasm.defined(data))
                continue
            elf = Elf(data)
            defined.update(s.name for s in elf.symbols if s.section is not None)
            needed.update(elf.undefined())
        # every flex_c symbol is named flex_*; wasm objects list cross-object calls as imports
        return sorted(n for n in needed - defined if not n.startswith("flex_") and (
            not n.startswith("__") or n.startswith(_LIBC_INTERNALS)))


def build(target, opt="-Os", force=False, reference=False):
    """Compile flex_c for `target` (a TARGETS key) at optimisation `opt`, with the target's
    optimised kernels or, with `reference`, the reference kernels alone; cached."""
    if target not in TARGETS:
        raise ValueError("unknown target %r; known: %s" % (target, ", ".join(sorted(TARGETS))))
    triple, cpu, _opt_dir, link = TARGETS[target]
    flags = ["-target", triple] + cpu + COMMON_FLAGS + [opt]
    srcs = _sources(target, reference)
    h = hashlib.sha256(" ".join(flags + LINK_FLAGS + ["ref" if reference else ""]).encode())
    h.update(source_digest().encode())
    folder = os.path.join(cache_dir("flex"), "%s%s%s-%s" % (
        target, "-ref" if reference else "", opt, h.hexdigest()[:16]))
    library = os.path.join(folder, "libflex.a")
    image = os.path.join(folder, "flex.elf") if link else None
    names = {src: _flex_sources().object_name(src) for src in srcs}
    # one flat folder and archive: "ref/s8_conv" is ref-s8_conv.o
    objects = {n: os.path.join(folder, n.replace("/", "-") + ".o") for n in names.values()}
    done = os.path.join(folder, "done")
    if force or not os.path.exists(done):
        tmp = folder + ".tmp%d" % os.getpid()
        os.makedirs(tmp, exist_ok=True)
        for src in srcs:
            obj = os.path.basename(objects[names[src]])
            _zig(["cc"] + flags + ["-c", src, "-o", os.path.join(tmp, obj)])
        objs = [os.path.join(tmp, os.path.basename(objects[n])) for n in sorted(objects)]
        _zig(["ar", "rcs", os.path.join(tmp, "libflex.a")] + objs)
        if link:
            _zig(["cc", "-target", triple] + cpu + [opt] + LINK_FLAGS +
                 ["-o", os.path.join(tmp, "flex.elf")] + objs)
        open(os.path.join(tmp, "done"), "w").close()
        import shutil

        if not force and os.path.exists(done):
            shutil.rmtree(tmp)  # another process built the same inputs meanwhile: keep theirs
        else:
            shutil.rmtree(folder, ignore_errors=True)
            os.replace(tmp, folder)
    return Build(target, opt, folder, objects, library, image, reference)
