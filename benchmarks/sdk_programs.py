"""The pico-sdk programs of benchmarks/compile_vs_tflm.py: one harness (tflm_peer/harness.c)
around burn compile's library, around TFLM's interpreter, or around nothing (the baseline),
written into a fixed folder per program under burn's cache so that a second model only
recompiles what changed, and built by burn.host.firmware.sdk_program.

TFLM is compiled from its sources as its Makefile would for `TARGET=cortex_m_generic
TARGET_ARCH=cortex-m0plus` (with `OPTIMIZED_KERNEL_DIR=cmsis_nn` for the CMSIS-NN build),
but with the pico-sdk program's compiler, build type and -mcpu: the micro framework
(tensorflow/lite/micro and its arena_allocator, memory_planner and tflite_bridge, less the
tests and test helpers, with cortex_m_generic's debug_log.cc), the shared TFLite sources
(tensorflow/ outside micro and experimental, less array.cc), the kernels of the model's ops
(each replaced by its kernels/cmsis_nn/ twin where there is one, beside CMSIS-NN's int8
sources), flatbuffers' headers, gemmlowp's fixedpoint and ruy's profiler header.
"""

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

from burn.host.cache import cache_dir

PEER = Path(__file__).resolve().parent / "tflm_peer"
DOWNLOADS = Path("tensorflow/lite/micro/tools/make/downloads")
# a file of each third-party checkout TFLM's sources include, under DOWNLOADS
THIRD_PARTY = ("flatbuffers/include/flatbuffers/flatbuffers.h", "gemmlowp/fixedpoint/fixedpoint.h",
               "ruy/ruy/profiler/instrumentation.h")
# TFLite op: (MicroMutableOpResolver method, the kernel sources under kernels/)
OPS = {
    "ADD": ("AddAdd", "add add_common"),
    "AVERAGE_POOL_2D": ("AddAveragePool2D", "pooling pooling_common"),
    "CONCATENATION": ("AddConcatenation", "concatenation"),
    "CONV_2D": ("AddConv2D", "conv conv_common"),
    "DEPTHWISE_CONV_2D": ("AddDepthwiseConv2D", "depthwise_conv depthwise_conv_common"),
    "DEQUANTIZE": ("AddDequantize", "dequantize dequantize_common"),
    "FULLY_CONNECTED": ("AddFullyConnected", "fully_connected fully_connected_common"),
    "MAX_POOL_2D": ("AddMaxPool2D", "pooling pooling_common"),
    "MEAN": ("AddMean", "reduce reduce_common"),
    "MUL": ("AddMul", "mul mul_common"),
    "PAD": ("AddPad", "pad pad_common"),
    "QUANTIZE": ("AddQuantize", "quantize quantize_common"),
    "RELU": ("AddRelu", "activations activations_common"),
    "RELU6": ("AddRelu6", "activations activations_common"),
    "RESHAPE": ("AddReshape", "reshape reshape_common"),
    "SOFTMAX": ("AddSoftmax", "softmax softmax_common"),
}
KERNEL_SUPPORT = ("kernel_util", "micro_tensor_utils")
# micro framework files that only TFLM's tests use
TEST_SUPPORT = ("test_helpers.cc", "test_helper_custom_ops.cc", "fake_micro_context.cc",
                "mock_micro_graph.cc")
# what TFLM's Makefile and cortex_m_generic target define, and -DCMSIS_NN for its kernels
DEFINES = ["TF_LITE_STATIC_MEMORY", "TF_LITE_DISABLE_X86_NEON", "TF_LITE_MCU_DEBUG_LOG"]
CMSIS_DEFINES = ["CMSIS_NN", "ARM_NN_ENABLE_F16=0", "ARM_NN_ENABLE_F32=0"]
# what the pico-sdk gives its own code (pico_standard_link), given to both libraries
SECTIONS = "-ffunction-sections -fdata-sections"
CMAKE = """cmake_minimum_required(VERSION 3.13)
set(CMAKE_BUILD_TYPE %(build_type)s)
include(${PICO_SDK_PATH}/pico_sdk_init.cmake)
project(%(name)s C CXX ASM)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
pico_sdk_init()
%(runtime)s
add_executable(%(name)s harness.c %(glue)s)
target_link_libraries(%(name)s pico_stdlib %(library)s)
pico_enable_stdio_uart(%(name)s 1)
pico_enable_stdio_usb(%(name)s 0)
"""
# TFLM's C++ flags reach the glue too (its function-local statics)
TFLM_GLUE = """set_source_files_properties(tflm_glue.cc PROPERTIES COMPILE_OPTIONS
  -fno-threadsafe-statics)"""
BURN_RUNTIME = """add_subdirectory(model)
target_compile_options(model PRIVATE %s)""" % SECTIONS
TFLM_RUNTIME = """include(${CMAKE_CURRENT_LIST_DIR}/tflm.cmake)
add_library(tflm STATIC ${TFLM_SOURCES})
target_include_directories(tflm PUBLIC ${TFLM_INCLUDES})
target_compile_definitions(tflm PUBLIC ${TFLM_DEFINES})
target_compile_options(tflm PRIVATE %s -fno-unwind-tables -fno-asynchronous-unwind-tables
  $<$<COMPILE_LANGUAGE:CXX>:-fno-rtti -fno-exceptions -fno-threadsafe-statics>)
%s""" % (SECTIONS, TFLM_GLUE)
BURN_CLI = [sys.executable, "-c", "import sys; from burn.host.cli import main; sys.exit(main())"]


class ProgramError(RuntimeError):
    """A model the programs cannot take (an op outside OPS, a burn compile refusal)."""


def _write(path, text):
    """Write `text` to `path` unless it holds it already (an unchanged file keeps its time,
    so make does not recompile it)."""
    data = text.encode() if isinstance(text, str) else text
    if not (path.is_file() and path.read_bytes() == data):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _folder(name, build_type, glue, runtime="", library="", sets=0, config=""):
    """The program folder `name` with the harness, `glue` and a bench_config.h."""
    folder = cache_dir("bench", "compile_vs_tflm", name)
    _write(folder / "CMakeLists.txt", CMAKE % {
        "name": name, "build_type": build_type, "runtime": runtime, "library": library,
        "glue": " ".join(glue)})
    for file in ("harness.c", "bench_model.h") + tuple(g for g in glue if (PEER / g).is_file()):
        _write(folder / file, (PEER / file).read_bytes())
    _write(folder / "bench_config.h", "#define BENCH_SETS %d\n%s" % (sets, config))
    return folder


def base_program(build_type, sets):
    """The folder of the baseline program: the harness with no model."""
    return _folder("cvt_base", build_type, ["base_glue.c"], sets=sets)


def burn_program(model, build_type, sets):
    """The folder of the program around `burn compile MODEL --target cortex-m0plus` (the
    library named `model`); ProgramError with burn compile's message when it refuses."""
    folder = _folder("cvt_burn", build_type, ["burn_glue.c"], BURN_RUNTIME, "model", sets)
    fresh = folder.parent / "cvt_burn_library"
    shutil.rmtree(fresh, ignore_errors=True)
    proc = subprocess.run(BURN_CLI + ["compile", str(model), "-o", str(fresh), "--name",
                                      "model", "--tests", "1", "--target", "cortex-m0plus"],
                          capture_output=True, text=True, timeout=1800)
    if proc.returncode:
        said = proc.stderr.strip().splitlines() or ["exit status %d" % proc.returncode]
        raise ProgramError("burn compile %s: %s" % (model.name, said[-1]))
    old = {p.relative_to(folder / "model") for p in (folder / "model").rglob("*")
           if p.is_file()} if (folder / "model").is_dir() else set()
    new = {p.relative_to(fresh) for p in fresh.rglob("*") if p.is_file()}
    for rel in old - new:
        (folder / "model" / rel).unlink()
    for rel in new:
        _write(folder / "model" / rel, (fresh / rel).read_bytes())
    shutil.rmtree(fresh)
    return folder


def tflm_program(tflm, model, ops, build_type, sets, arena, cmsis_nn=None):
    """The folder of the program around TFLM's interpreter for the .tflite `model` whose ops
    are `ops`, with an arena of `arena` bytes; TFLM's reference kernels, or CMSIS-NN's from
    the checkout `cmsis_nn`. ProgramError names an op this benchmark cannot register."""
    unknown = sorted(set(ops) - set(OPS))
    if unknown:
        raise ProgramError("no resolver entry for %s (benchmarks/sdk_programs.py OPS)"
                           % ", ".join(unknown))
    name = "cvt_tflm_cmsis_nn" if cmsis_nn else "cvt_tflm_ref"
    adds = " ".join("(r).%s();" % OPS[op][0] for op in sorted(ops))
    config = ("#define BENCH_ARENA_BYTES %d\n#define BENCH_OP_COUNT %d\n"
              "#define BENCH_ADD_OPS(r) do { %s } while (0)\n" % (arena, len(ops), adds))
    folder = _folder(name, build_type, ["tflm_glue.cc", "model_data.cc"], TFLM_RUNTIME,
                     "tflm", sets, config)
    _write(folder / "tflm.cmake", _tflm_cmake(tflm, ops, cmsis_nn))
    _write(folder / "model_data.cc", _c_array(Path(model).read_bytes()))
    return folder


def tflm_sources(tflm, ops, cmsis_nn=None):
    """The TFLM (and CMSIS-NN) source files a program for `ops` compiles, sorted."""
    micro = tflm / "tensorflow" / "lite" / "micro"
    sources = []
    for sub in ("", "arena_allocator", "memory_planner", "tflite_bridge"):
        sources += [p for p in (micro / sub).glob("*.cc")
                    if not p.name.endswith("_test.cc") and p.name not in TEST_SUPPORT
                    and p.name != "debug_log.cc"]
    sources.append(micro / "cortex_m_generic" / "debug_log.cc")
    for p in (tflm / "tensorflow").rglob("*.c*"):
        rel = p.relative_to(tflm / "tensorflow").parts
        if p.suffix in (".c", ".cc") and rel[:2] not in (("lite", "micro"),
                                                          ("lite", "experimental")) \
                and rel != ("lite", "array.cc"):
            sources.append(p)
    stems = set(KERNEL_SUPPORT)
    for op in ops:
        stems.update(OPS[op][1].split())
    for stem in stems:
        twin = micro / "kernels" / "cmsis_nn" / (stem + ".cc")
        sources.append(twin if cmsis_nn and twin.is_file() else micro / "kernels" / (stem + ".cc"))
    if cmsis_nn:
        sources += [p for p in (cmsis_nn / "Source").rglob("*.c")
                    if not p.name.endswith(("_f16.c", "_f32.c"))
                    and p.name != "arm_nntables_flt.c"]
    return sorted(sources)


def _tflm_cmake(tflm, ops, cmsis_nn):
    """tflm.cmake: the sources, include folders and defines, and a digest of the sources (so
    that the program's cache key follows the checkout)."""
    sources = tflm_sources(tflm, ops, cmsis_nn)
    digest = hashlib.sha256()
    for path in sources:
        digest.update(str(path).encode() + b"\0" + path.read_bytes())
    includes = [tflm, tflm / DOWNLOADS / "flatbuffers" / "include", tflm / DOWNLOADS / "gemmlowp",
                tflm / DOWNLOADS / "ruy"]
    defines = list(DEFINES)
    if cmsis_nn:
        includes += [cmsis_nn, cmsis_nn / "Include"]
        defines += CMSIS_DEFINES
    return ("# sources digest %s\nset(TFLM_SOURCES\n%s)\nset(TFLM_INCLUDES\n%s)\n"
            "set(TFLM_DEFINES %s)\n" % (
                digest.hexdigest()[:16], "".join("  %s\n" % p for p in sources),
                "".join("  %s\n" % p for p in includes), " ".join(defines)))


def _c_array(data):
    """model_data.cc: the .tflite bytes as TFLM's examples hold them (const, 16-aligned)."""
    rows = ["  " + ",".join("0x%02x" % b for b in data[i:i + 16]) + ",\n"
            for i in range(0, len(data), 16)]
    return ("extern const unsigned char bench_model_data[];\n"
            "alignas(16) const unsigned char bench_model_data[] = {\n%s};\n" % "".join(rows))
