"""`burn compile`'s output folder: the generated C, the flex_c files the model needs, and the
packaging that PlatformIO, CMake (pico-sdk, Zephyr, ESP-IDF) and the Arduino IDE read.

    DIR/src/NAME.h, NAME.c       the model (emit_c.py)
    DIR/src/flex.h, flex/*.h     flex_c's public headers
    DIR/src/flex_c/...           the kernels' C files the model calls, and what they call
    DIR/library.json             PlatformIO
    DIR/CMakeLists.txt           CMake, as a plain library, a Zephyr library or an IDF component
    DIR/library.properties       Arduino
    DIR/README.md                how to call it, with a main.c per build system

The folder is written beside DIR under a temporary name and renamed into place, so a failure
leaves DIR as it was. An existing DIR is replaced only when an earlier `burn compile` wrote
it (its `.burn-compile` file says so).
"""

import json
import os
import re
import shutil
import tempfile
from pathlib import Path

from burn.host import project_files
from burn.host.compile.emit_c import CTYPES, emit
from burn.host.compile.trace import Call, CompileError, trace
from burn.host.flex import targets

# target: (flex_c opt folder or None for the portable reference kernels, the cross build whose
# objects tell what the kernels call, Arduino architectures, what it is for)
TARGETS = {
    "host": (None, ("cortex-m0plus", True), "*",
             "portable C99 (the reference kernels): any compiler, any CPU"),
    "cortex-m0plus": ("cortex_m0plus", ("cortex-m0plus", False),
                      "rp2040,samd,mbed_rp2040,mbed_nano",
                      "Cortex-M0/M0+ (RP2040, SAMD21, STM32G0)"),
    "cortex-m4f": ("cortex_m_dsp", ("cortex-m4f", False), "mbed_portenta,stm32,nrf52,teensy",
                   "Cortex-M4F/M7 with the DSP extension (STM32F4/F7/H7, nRF52, Teensy 4)"),
    "cortex-m33": ("cortex_m_dsp", ("cortex-m33", False), "rp2040,renesas_uno,stm32,nrf52",
                   "Cortex-M33 with the DSP extension (RP2350, STM32U5, nRF5340)"),
    "riscv32": ("riscv32", ("riscv32", False), "esp32",
                "RISC-V rv32imc (ESP32-C3/C6, the RP2350's Hazard3 cores)"),
}
MARKER = ".burn-compile"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_C_KEYWORDS = set("""auto break case char const continue default do double else enum extern
float for goto if inline int long register restrict return short signed sizeof static struct
switch typedef union unsigned void volatile while _Bool _Complex _Imaginary main""".split())


def check_name(name):
    """`name` if it can prefix C identifiers, else CompileError saying why."""
    if not _NAME.match(name or "") or name in _C_KEYWORDS or name.startswith("flex_"):
        raise CompileError("--name %r is not a C identifier (letters, digits and _, not "
                           "starting with a digit, not a C keyword, not flex_...)" % name)
    return name


def kernel_files(target, kernels):
    """{path inside src/flex_c: source path} of the flex_c C files that `kernels` need on
    `target`, the memory functions left to the C library."""
    _opt, (build_target, reference), _arch, _what = TARGETS[target]
    build = targets.build(build_target, reference=reference)
    root = Path(project_files.tree("flex_c")) / "src"
    files = {}
    for obj in build.needed(kernels):
        src = Path(build.source_of(obj))
        rel = src.relative_to(root)
        if rel.parts[0] != "freestanding":
            files[rel.as_posix()] = src
    return files


PORTABLE = """
/* burn compile: a library builds the same with any compiler, without the host build's x86
 * CPU dispatch. */
#ifndef FLEX_PORTABLE
#define FLEX_PORTABLE 1
#endif
"""


def _copy_headers(src_dir):
    flex_c = Path(project_files.tree("flex_c"))
    text = (flex_c / "include" / "flex.h").read_text()
    guard = "#define FLEX_H\n"
    (src_dir / "flex.h").write_text(text.replace(guard, guard + PORTABLE, 1))
    shutil.copytree(flex_c / "include" / "flex", src_dir / "flex")
    for header in (flex_c / "src").rglob("*.h"):
        dst = src_dir / "flex_c" / header.relative_to(flex_c / "src")
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(header, dst)


def compile_model(source, out_dir, target="host", name="model", tests=4, say=None):
    """Write the C library of a .bst (path or bytes) into `out_dir`; returns a dict of what
    was written (files, arena bytes, kernels, const bytes). CompileError for a bad name,
    target or model, or an `out_dir` that something else wrote."""
    say = say or (lambda text: None)
    check_name(name)
    if target not in TARGETS:
        raise CompileError("unknown --target %r; known: %s" % (target, ", ".join(TARGETS)))
    out = Path(out_dir)
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and
                                              not (out / MARKER).exists())):
        raise CompileError("%s exists and was not written by burn compile; give a new or "
                           "empty folder" % out)
    say("tracing the model's kernel calls on the host")
    t = trace(source, tests)
    kernels = sorted({s.name for s in t.steps if isinstance(s, Call)})
    say("writing %s.c (%d steps, %d kernels, %d self-tests)" % (name, len(t.steps),
                                                                len(kernels), len(t.tests)))
    header, code = emit(t, name)
    say("choosing the flex_c files the kernels need on %s" % target)
    files = kernel_files(target, kernels)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".%s-" % out.name, dir=out.parent))
    try:
        src = tmp / "src"
        src.mkdir()
        (src / (name + ".h")).write_text(header)
        (src / (name + ".c")).write_text(code)
        _copy_headers(src)
        for rel, path in files.items():
            (src / "flex_c" / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, src / "flex_c" / rel)
        _write_packaging(tmp, name, target, t, kernels)
        (tmp / MARKER).write_text("burn compile --target %s --name %s\n" % (target, name))
        if out.exists():
            shutil.rmtree(out)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    arena = int(re.search(r"_ARENA_BYTES (\d+)", header).group(1))
    return {"dir": str(out), "arena_bytes": arena, "kernels": kernels,
            "c_files": len(files) + 1, "tests": len(t.tests), "steps": len(t.steps),
            "inputs": [CTYPES[d] for _r, d, _s in t.inputs],
            "outputs": [CTYPES[d] for _r, d, _s in t.outputs]}


def _write_packaging(root, name, target, t, kernels):
    from burn.host.compile import readme

    _opt, _build, arch, what = TARGETS[target]
    version = "1.0.0"
    (root / "library.json").write_text(json.dumps({
        "name": name, "version": version,
        "description": "The %s model compiled to C by burn compile (%s)" % (name, what),
        "keywords": ["burn", "tinyml", "neural-network"], "frameworks": "*",
        "platforms": "*", "build": {"srcDir": "src", "includeDir": "src"}}, indent=2) + "\n")
    (root / "library.properties").write_text("\n".join([
        "name=%s" % name, "version=%s" % version, "author=burn compile",
        "maintainer=burn compile", "sentence=The %s model compiled to C (%s)." % (name, what),
        "paragraph=Calls flex_c kernels in plan order: %s." % ", ".join(kernels),
        "category=Data Processing", "url=https://github.com/", "architectures=%s" % arch,
        "includes=%s.h" % name, ""]))
    (root / "CMakeLists.txt").write_text(CMAKE % {"name": name})
    (root / "README.md").write_text(readme.text(name, target, what, t))


CMAKE = """# The %(name)s model compiled to C by burn compile. As a plain CMake library (pico-sdk,
# any CMake build): add_subdirectory(%(name)s) then target_link_libraries(app %(name)s).
# Under ESP-IDF (as a component) and Zephyr (as a module's library) it registers itself.
cmake_minimum_required(VERSION 3.13)
file(GLOB_RECURSE %(name)s_SOURCES CONFIGURE_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/src/*.c")
if(ESP_PLATFORM)
  idf_component_register(SRCS ${%(name)s_SOURCES} INCLUDE_DIRS "src")
elseif(ZEPHYR_BASE)
  zephyr_library_named(%(name)s)
  zephyr_library_sources(${%(name)s_SOURCES})
  zephyr_include_directories("${CMAKE_CURRENT_LIST_DIR}/src")
else()
  add_library(%(name)s STATIC ${%(name)s_SOURCES})
  target_include_directories(%(name)s PUBLIC "${CMAKE_CURRENT_LIST_DIR}/src")
  set_target_properties(%(name)s PROPERTIES C_STANDARD 99)
  if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    # a section per function and constant: a firmware linked with --gc-sections (the
    # pico-sdk's, most embedded builds') keeps only what it calls, e.g. no self-test vectors
    target_compile_options(%(name)s PRIVATE -ffunction-sections -fdata-sections)
  endif()
endif()
"""
