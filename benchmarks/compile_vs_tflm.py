"""burn compile against TFLM on the emulated RP2040 (Cortex-M0+): flash, RAM and cycles of
one model in two C programs built the same way, and whether their outputs agree bit for bit.

For each model the script builds pico-sdk programs (benchmarks/sdk_programs.py) with the
firmware's toolchain (arm-none-eabi-gcc, -mcpu=cortex-m0plus -mthumb, the pico-sdk's build
type: MinSizeRel, -Os, unless --build-type says otherwise) around one harness
(benchmarks/tflm_peer/harness.c):

    burn            `burn compile MODEL --target cortex-m0plus` (the library's CMakeLists
                    added with add_subdirectory; its static arena)
    TFLM reference  MicroInterpreter + MicroMutableOpResolver with only the model's ops, the
                    .tflite as a const array, TFLM's reference kernels
    TFLM CMSIS-NN   the same with tensorflow/lite/micro/kernels/cmsis_nn/ in place of the
                    reference kernels it replaces, and CMSIS-NN's int8 sources
    baseline        the harness alone

Both libraries get the flags the pico-sdk gives its own code (-ffunction-sections
-fdata-sections, linked with --gc-sections); TFLM (and the file that sets it up) also gets
its Makefile's -DTF_LITE_STATIC_MEMORY -DTF_LITE_DISABLE_X86_NEON -DTF_LITE_MCU_DEBUG_LOG,
C++17, -fno-rtti -fno-exceptions -fno-threadsafe-statics -fno-unwind-tables (and -DCMSIS_NN
with CMSIS-NN). TFLM's arena is sized as a user would size it: a first build with a 232 KiB
arena reports arena_used_bytes() after AllocateTensors, and the measured build has that
rounded up to a whole KiB, or, where AllocateTensors fails in that (arena_used_bytes()
leaves out the memory planner's scratch), the next whole KiB in which it succeeds. burn's
library keeps one self-test vector (the least burn compile writes); nothing calls its
self-test, so the linker drops it.

Each program runs on the emulated RP2040 (burn.host.emulator.program, 125 MHz): it fills the
input from a seeded xorshift32 (the same three inputs in every program), runs three
inferences and prints each one's outputs, time (time_us_64 around the call; cycles = us x
125) and stack depth. Figures, per program, with the baseline's subtracted:

    flash   what the image stores in flash (code, read-only data: kernels, weights or the
            .tflite, and the initial values of .data), minus the baseline's: the pico-sdk
            runtime, stdio and the harness are counted in neither
    arena   burn's MODEL_ARENA_BYTES; TFLM's arena array (its used bytes in brackets)
    static  .data + .bss beside the arena, minus the baseline's: input and output buffers
            (burn), the interpreter, resolver and other statics (TFLM)
    stack   the deepest stack the runtime's calls used (setup, and each inference), found by
            painting the stack below the caller's frame before the call and reading back
            how far it was overwritten
    RAM     arena + static + stack (+ any C heap the program took: none here)
    cycles  the second inference (the first is the warm-up)

The script checks the outputs of all three programs agree bit for bit on every input, and
prints one table per model with the ratios burn / TFLM reference and burn / TFLM CMSIS-NN
beside the targets (flash <= 0.65, RAM <= 0.6 of TFLM's; cycles <= 0.5 of TFLM CMSIS-NN's
on KWS and person_detect). A model whose program does not fit the RP2040 (2 MB flash,
264 KB SRAM) is reported as such.

The peers are not part of burn. --tflm DIR or $BURN_TFLM names a checkout of
github.com/tensorflow/tflite-micro whose downloads folder holds what its Makefile's
`third_party_downloads` would put there (the script compiles the sources itself and
downloads nothing):

    DIR/                                                  tensorflow/tflite-micro
    DIR/tensorflow/lite/micro/tools/make/downloads/
        flatbuffers/   google/flatbuffers at the tag flatbuffers_download.sh names (v25.9.23),
                       with TFLM's tools/make/flatbuffers.patch applied
        gemmlowp/      google/gemmlowp at the commit third_party_downloads.inc names
        ruy/           google/ruy at the commit third_party_downloads.inc names (only its
                       ruy/profiler/instrumentation.h is read)
        cmsis_nn/      ARM-software/CMSIS-NN (optional; --cmsis-nn DIR or $BURN_CMSIS_NN
                       name another checkout)

Without the TFLM checkout the script stops with status 2; without CMSIS-NN it measures the
reference kernels only and says so. Models: KWS (MLPerf Tiny, from $BURN_MODELS_DIR:
benchmarks/model_files.py), hello_world_int8.tflite and person_detect.tflite from the TFLM
checkout.

Run: python benchmarks/compile_vs_tflm.py [--tflm DIR] [--cmsis-nn DIR]
         [--models kws,hello_world,person_detect] [--build-type MinSizeRel|Release]
"""

import argparse
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import peer_build
import sdk_programs
from model_files import PERSON_DETECT, require
from peer_build import PeerMissing

from burn.host.emulator import EmulatorError
from burn.host.emulator.program import run_program
from burn.host.firmware import FirmwareError
from burn.host.firmware.sdk_program import build_sdk_program
from burn.host.firmware.sizes import section_kinds
from burn.host.flex.elf import Elf
from burn.host.importers.tflite_read import read_tflite

MODELS = {"kws": None,  # from $BURN_MODELS_DIR
          "hello_world": "tensorflow/lite/micro/examples/hello_world/models/"
                         "hello_world_int8.tflite",
          "person_detect": PERSON_DETECT}
CYCLE_MODELS = ("kws", "person_detect")  # the models the cycles target is set for
SETS = 3
SIZING_ARENA = 232 * 1024
FLASH_BYTES, SRAM_BYTES = 2 * 1024 * 1024, 264 * 1024
MAX_CYCLES = 50_000_000_000
TARGETS = {"flash": 0.65, "RAM": 0.6, "cycles": 0.5}


@dataclass
class Measure:
    """One program's figures: whole-image `flash` and static RAM (`static`), what it
    printed (`arena`, `arena_used`, `stack`, `heap`, `us` of each run, `outputs` per input,
    the clock, any other `log` line) and how the run went (`setup`, `done`: 0 when they
    succeeded)."""

    flash: int
    static: int
    clock: int = 0
    setup: int = -1
    done: int = -1
    arena: int = 0
    arena_used: int = 0
    stack: int = 0
    heap: int = 0
    us: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    log: list = field(default_factory=list)

    def cycles(self):
        """Cycles of the second inference (the first warms up), or None."""
        return self.us[1] * self.clock // 1_000_000 if len(self.us) > 1 else None


def measure(folder, timeout):
    """Build the program in `folder`, run it on the emulated RP2040, read its figures;
    FirmwareError when it does not build, EmulatorError when it does not run to its end."""
    uf2 = build_sdk_program(folder)
    elf = Elf((uf2.parent / (folder.name + ".elf")).read_bytes())
    kinds = section_kinds(elf)
    size = {k: sum(s.size for s in elf.sections if kinds.get(s.name) == k)
            for k in ("text", "data", "bss")}
    m = Measure(size["text"] + size["data"], size["data"] + size["bss"])
    run = run_program(uf2, max_cycles=MAX_CYCLES, timeout=timeout)
    for line in run.output.replace("\r", "").splitlines():
        word = line.split()
        if len(word) == 2 and word[0] in ("clock", "arena", "arena_used", "heap", "done"):
            setattr(m, word[0], int(word[1]))
        elif word[:1] == ["setup"]:
            m.setup, m.stack = int(word[1]), max(m.stack, int(word[3]))
        elif word[:1] == ["run"] and word[3] == "0":
            m.us.append(int(word[5]))
            m.stack = max(m.stack, int(word[7]))
        elif word[:1] == ["out"]:
            m.outputs.append([int(v) for v in word[2:]])
        elif line:
            m.log.append(line)
    if (run.reason, run.code) != ("breakpoint", 0) or (m.done and not m.setup):
        raise EmulatorError("%s ended with %s %s, status %d:\n%s" % (
            folder.name, run.reason, run.code, m.done, run.output[-2000:]))
    return m


def tflm_measure(tflm, model, ops, args, cmsis_nn):
    """TFLM's program for `model` with the smallest whole-KiB arena, from arena_used_bytes()
    rounded up, in which AllocateTensors succeeds. (Measure, None), or (None, why it does
    not fit)."""
    def build(arena, sets):
        return measure(sdk_programs.tflm_program(tflm, model, ops, args.build_type, sets, arena,
                                                 cmsis_nn), args.timeout)

    sizing = build(SIZING_ARENA, 0)
    if sizing.setup:
        return None, ("does not fit the RP2040: AllocateTensors fails in a %d KiB arena"
                      % (SIZING_ARENA // 1024))
    arena = -(-sizing.arena_used // 1024) * 1024
    while build(arena, 0).setup:  # arena_used_bytes() leaves out the planner's scratch
        arena += 1024
    m = build(arena, SETS)
    m.arena_used = sizing.arena_used
    return (None, "failed: AllocateTensors fails in the sized arena") if m.setup else (m, None)


def figures(m, base):
    """(flash, arena, static, stack, RAM, cycles) of `m` beside the baseline `base`."""
    static = m.static - base.static - m.arena
    return (m.flash - base.flash, m.arena, static, m.stack, m.arena + static + m.stack + m.heap,
            m.cycles())


def _fits(m):
    """Why the whole program `m` does not fit the RP2040, or None."""
    if m.flash > FLASH_BYTES:
        return "does not fit the RP2040: flash %d B > %d B" % (m.flash, FLASH_BYTES)
    if m.static + m.stack > SRAM_BYTES:
        return "does not fit the RP2040: RAM %d B > %d B" % (m.static + m.stack, SRAM_BYTES)
    return None


def _why(exc):
    """One line saying why a program failed: the linker's overflow when it does not fit."""
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    overflow = [line for line in lines if "overflow" in line]
    if overflow:
        return "does not fit the RP2040: " + overflow[0]
    errors = [line for line in lines if "error" in line.lower()]
    return "failed: " + (errors or lines or ["?"])[0]


def _n(v):
    return "-" if v is None else "{:,}".format(v)


def report(name, ops, rows, base, notes):
    """Print the table of one model: a row per runtime, ratio rows, targets and notes."""
    print("\n%s (%s)" % (name, ", ".join(ops)))
    head = ("", "flash B", "arena B", "static B", "stack B", "RAM B", "cycles", "outputs")
    fmt = "%-21s %9s %16s %8s %7s %8s %12s  %s"
    print(fmt % head)
    burn = rows.get("burn")
    for label, m in rows.items():
        if m is None:
            continue
        f = figures(m, base)
        arena = _n(f[1]) + (" (%s)" % _n(m.arena_used) if m.arena_used else "")
        same = "reference" if label == "burn" else (
            "bit-exact" if burn and m.outputs == burn.outputs else "DIFFER")
        print(fmt % (label, _n(f[0]), arena, _n(f[2]), _n(f[3]), _n(f[4]), _n(f[5]), same))
    for label in ("TFLM reference", "TFLM CMSIS-NN"):
        if burn and rows.get(label):
            b, t = figures(burn, base), figures(rows[label], base)
            ratio = ["%.2f" % (b[i] / t[i]) if b[i] is not None and t[i] else "-"
                     for i in range(6)]
            print(fmt % (("burn / " + label,) + tuple(ratio) + ("",)))
    for line in targets(name, rows, base) + notes:
        print("  " + line)


def targets(name, rows, base):
    """One line per target: the measured ratio and whether it is met."""
    burn, lines = rows.get("burn"), []
    if not burn:
        return lines
    b = figures(burn, base)
    for label in ("TFLM reference", "TFLM CMSIS-NN"):
        t = rows.get(label)
        if not t:
            continue
        t = figures(t, base)
        for what, i in (("flash", 0), ("RAM", 4)):
            ratio = b[i] / t[i]
            lines.append("%s vs %s: %.2f, target <= %.2f: %s" % (
                what, label, ratio, TARGETS[what], "met" if ratio <= TARGETS[what]
                else "NOT met"))
        if label == "TFLM CMSIS-NN" and name in CYCLE_MODELS and b[5] and t[5]:
            ratio = b[5] / t[5]
            lines.append("cycles vs TFLM CMSIS-NN: %.2f, target <= %.2f: %s" % (
                ratio, TARGETS["cycles"], "met" if ratio <= TARGETS["cycles"]
                else "NOT met"))
    exact = all(m.outputs == burn.outputs for label, m in rows.items() if m and label != "burn")
    lines.append("outputs bit-exact with TFLM on %d inputs: %s" % (
        len(burn.outputs), "met" if exact and burn.outputs else "NOT met"))
    return lines


def bench(name, path, args, base, tflm, cmsis_nn):
    """Measure `name` (the .tflite at `path`) in every program and print its table."""
    ops = sorted({op.name for op in read_tflite(path.read_bytes()).ops})
    rows, notes = {}, []
    builds = [("burn", None), ("TFLM reference", None)]
    if cmsis_nn:
        builds.append(("TFLM CMSIS-NN", cmsis_nn))
    for label, nn in builds:
        print("%s: %s" % (name, label), file=sys.stderr)
        try:
            if label == "burn":
                m, why = measure(sdk_programs.burn_program(path, args.build_type, SETS),
                                 args.timeout), None
            else:
                m, why = tflm_measure(tflm, path, ops, args, nn)
        except (FirmwareError, EmulatorError, sdk_programs.ProgramError) as exc:
            m, why = None, _why(exc)
        why = why or (_fits(m) if m else None)
        if why:
            notes.append("%s: %s" % (label, why))
        rows[label] = None if why else m
        if m and not why:
            notes.append("%s: whole program %s B flash, %s B static RAM%s" % (
                label, _n(m.flash), _n(m.static), "".join("; printed " + x for x in m.log)))
    report(name, ops, rows, base, notes)


def find_tflm(path):
    """The TFLM checkout from `path` or $BURN_TFLM, with the third-party code it reads;
    PeerMissing says what is missing."""
    tflm = Path(peer_build.locate(path, "BURN_TFLM", "tensorflow/lite/micro/micro_interpreter.h", (
        "TFLM", "clone https://github.com/tensorflow/tflite-micro, lay out its downloads "
                "folder as benchmarks/compile_vs_tflm.py says and pass --tflm DIR")))
    for part in sdk_programs.THIRD_PARTY:
        if not (tflm / sdk_programs.DOWNLOADS / part).is_file():
            raise PeerMissing("%s lacks %s (benchmarks/compile_vs_tflm.py says where it "
                              "comes from)" % (tflm, sdk_programs.DOWNLOADS / part))
    return tflm


def main():
    """Parse the options, find the peers and the models, measure each model."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tflm", metavar="DIR", help="a tflite-micro checkout "
                        "(default $BURN_TFLM)")
    parser.add_argument("--cmsis-nn", metavar="DIR", help="a CMSIS-NN checkout (default "
                        "$BURN_CMSIS_NN, else the TFLM checkout's downloads/cmsis_nn)")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--build-type", default="MinSizeRel",
                        choices=("MinSizeRel", "Release"))
    parser.add_argument("--timeout", type=float, default=3600,
                        help="seconds of wall time per emulator run")
    args = parser.parse_args()
    names = [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error("unknown model %s (choose from %s)" % (",".join(unknown), ",".join(MODELS)))
    try:
        tflm = find_tflm(args.tflm)
    except PeerMissing as exc:
        print("compile_vs_tflm: %s" % exc, file=sys.stderr)
        return 2
    cmsis_nn, without = None, None
    beside = tflm / sdk_programs.DOWNLOADS / "cmsis_nn"
    beside = str(beside) if beside.is_dir() and not os.environ.get("BURN_CMSIS_NN") else None
    try:
        cmsis_nn = Path(peer_build.locate(
            args.cmsis_nn or beside, "BURN_CMSIS_NN", "Include/arm_nnfunctions.h",
            ("CMSIS-NN", "pass --cmsis-nn DIR")))
    except PeerMissing as exc:
        without = "TFLM's reference kernels only: %s" % exc
        print("compile_vs_tflm: %s" % without, file=sys.stderr)
    paths = {n: (require(["kws_ref_model.tflite"])[0] if MODELS[n] is None else tflm / MODELS[n])
             for n in names}
    print("Cortex-M0+ (emulated RP2040), pico-sdk %s build, %d seeded inputs per model; "
          "flash and static RAM beside the baseline program's" % (args.build_type, SETS))
    if without:
        print(without)
    base = measure(sdk_programs.base_program(args.build_type, SETS), args.timeout)
    print("baseline (pico-sdk runtime, stdio, harness): %s B flash, %s B static RAM" % (
        _n(base.flash), _n(base.static)))
    for name in names:
        bench(name, paths[name], args, base, tflm, cmsis_nn)
    return 0


if __name__ == "__main__":
    sys.exit(main())
