"""flex on the cores beyond the RP2040, against each core's peer library, in three tables:

1. Layers (conv, depthwise, fully connected of KWS, ResNet-8, MobileNetV1-0.25 and the AD
   autoencoder) in unicorn, per core: on the Cortex-M33 and the Cortex-M4F (which stands
   for the M7 too) flex's DSP kernels and CMSIS-NN's DSP path, on RISC-V (rv32imc) flex's
   kernels for it and esp-nn as an ESP32-C3 runs it; each pair built with the same compiler
   for the same core, on the same data; instructions per multiply-accumulate, estimated
   cycles where the core has a timing model (the M33 and M4F: burn.host.flex.m4_timing, the
   Cortex-M4's published timing), and whether the
   outputs agree bit for bit (benchmarks/chip_layers.py). The Cortex-M55 runs in QEMU's
   mps3-an547 instead (burn.host.flex.qemu_lib: unicorn has no MVE), flex's build for it
   against CMSIS-NN's MVE path; QEMU counts instructions, not cycles.
2. Models: one inference of KWS, ResNet-8 and a MobileNetV1-0.25 at 96x96 (person_detect's
   architecture, with seeded random weights: tests/mobilenet_model.py) through burn's
   runtime on flex in unicorn, every conv, depthwise and fully connected call also run on
   the peer (the same arguments); their instructions and cycles summed over those calls.
3. The int8 models on the QEMU boards (docs/boards.md, "QEMU boards"), one row per (board,
   model): instructions per inference on flex, bit-exactness with TFLM's reference vectors
   and bytes allocated per inference, each measured on burn's firmware for the board.

Tables 1 and 2 need the peers' checkouts (--cmsis-nn DIR or $BURN_CMSIS_NN,
benchmarks/cmsis_nn.py; --esp-nn DIR or $BURN_ESP_NN, benchmarks/esp_nn.py); without one
they show flex alone on that core and say so.

QEMU counts no cycles: burn runs it with `-icount shift=0`, one instruction per nanosecond
of the board's clock, so time.ticks_us() around one inference counts thousands of
instructions (burn.host.emulator.qemu.instructions). The firmware is built (or taken from
the cache) by `burn firmware build`; the models are the MLPerf Tiny KWS and ResNet-8 from
$BURN_MODELS_DIR (benchmarks/model_files.py) and the MobileNet above, sent into the board's
RAM.

Run: python benchmarks/chips.py [--cmsis-nn DIR] [--esp-nn DIR] [--cores cortex-m33,cortex-m55]
         [--boards qemu-m33,qemu-m7] [--models kws,resnet8,mobilenet] [--skip layers,models,boards]
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import chip_layers
import cmsis_nn
import esp_nn
import numpy as np
from mobilenet_model import mobilenet_v1
from model_files import require
from peer_build import PeerMissing

import burn
from burn.host.bst_writer import encode_bst
from burn.host.emulator import EmulatorError
from burn.host.emulator.qemu import QemuBoard, instructions, qemu_boards, send_bytes
from burn.host.firmware import FirmwareError
from burn.host.firmware.build import build_firmware
from burn.host.flex.emulated_arch import cost_model
from burn.host.flex.qemu_lib import MACHINES as QEMU_MACHINES
from burn.host.flex.runtime import use_flex
from burn.host.importers.tflite import import_tflite
from burn.host.link import connect

# model: its file in $BURN_MODELS_DIR, or None for the MobileNetV1-0.25 96x96 of
# tests/mobilenet_model.py (person_detect's shape, seeded random weights)
MODELS = {"kws": "kws_ref_model.tflite", "resnet8": "pretrainedResnet_quant.tflite",
          "mobilenet": None}
# emulated target: (its name in the tables, the peer's module, the peer's name)
CORES = {"cortex-m33": ("Cortex-M33", cmsis_nn, "CMSIS-NN (DSP)"),
         "cortex-m4f": ("Cortex-M4F", cmsis_nn, "CMSIS-NN (DSP)"),
         "cortex-m55": ("Cortex-M55", cmsis_nn, "CMSIS-NN (MVE)"),
         "riscv32": ("RISC-V rv32imc", esp_nn, "esp-nn (ESP32-C3)")}
TESTS = 2  # TFLM reference vectors stored in each model

_MEASURE = """
import burn, gc, time
m = burn.load(data)
n = m.self_test()
m.invoke()
m.invoke()
gc.collect()
a = gc.mem_alloc()
m.invoke()
alloc = gc.mem_alloc() - a
t = time.ticks_us()
m.invoke()
print(repr((n, alloc, time.ticks_diff(time.ticks_us(), t))))
del m, data
gc.collect()
"""


def _names(text, known, what):
    names = text.split(",")
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit("chips.py: unknown %s %s; known: %s"
                         % (what, ", ".join(unknown), ", ".join(known)))
    return names


def measure(board, models):
    """[(model, tests passed, bytes allocated, instructions)] of `models` ({name: .bst
    bytes}) on burn's firmware for QEMU board `board`."""
    image = build_firmware(board).elf
    rows = []
    with QemuBoard(board, firmware=image) as running, connect(running.port) as link:
        for name, data in models.items():
            send_bytes(link, "data", data)
            tests, alloc, ticks = link.exec_literal(_MEASURE, timeout=600)
            rows.append((name, tests, alloc, instructions(ticks)))
    return rows


def _ratio(a, b):
    return "%.2f" % (a / b) if b else "-"


def _cycles(value, timed, spec):
    return format(value, spec) if timed else "-"


def _timed(target):
    """Whether `target`'s emulator estimates cycles (unicorn's cores with a timing model)."""
    return target not in QEMU_MACHINES and cost_model(target)[1]


def _emulator(target):
    return "QEMU" if target in QEMU_MACHINES else "unicorn"


def print_layers(target, peer):
    """Table 1 for emulated core `target` (flex alone when `peer` is None)."""
    title, _module, peer_name = CORES[target]
    timed = _timed(target)
    print("Layers on the %s (%s), per multiply-accumulate: instructions%s; peer: %s"
          % (title, _emulator(target), ", estimated cycles" if timed else " (no cycle model)",
             peer_name))
    print("%-36s %9s %7s %7s %7s %7s %6s %6s %6s" % (
        "layer", "MACs", "flex i", "flex c", "peer i", "peer c", "i/i", "c/c", "equal"))
    if peer is None:
        flex = chip_layers.Counted(chip_layers.emulated(target))
        rng = np.random.default_rng(0)
        for name, kind, geometry in chip_layers.LAYERS:
            layer = chip_layers.Layer(kind, geometry, rng)
            flex.reset()
            layer.run_flex(flex)
            c = flex.counter
            print("%-36s %9d %7.2f %7s" % (name, layer.macs, c.instructions / layer.macs,
                                           _cycles(c.cycles / layer.macs, timed, ".2f")))
        return
    for name, macs, f, p, equal in chip_layers.compare(chip_layers.emulated(target), peer):
        print("%-36s %9d %7.2f %7s %7.2f %7s %6s %6s %6s" % (
            name, macs, f[0], _cycles(f[1], timed, ".2f"), p[0], _cycles(p[1], timed, ".2f"),
            _ratio(f[0], p[0]), _ratio(f[1], p[1]) if timed else "-",
            "yes" if equal else "NO"))


def print_models(target, models, peer):
    """Table 2 for emulated core `target`: conv, depthwise and fully connected calls of each
    model."""
    title, _module, peer_name = CORES[target]
    timed = _timed(target)
    print("Models on the %s (%s): conv, depthwise and fully connected calls of one "
          "inference; peer: %s" % (title, _emulator(target), peer_name))
    print("%-9s %13s %13s %13s %13s %6s %6s %6s" % (
        "model", "flex instr", "flex cycles", "peer instr", "peer cycles", "i/i", "c/c",
        "equal"))
    flex = chip_layers.emulated(target)
    for name, data in models.items():
        if peer is None:
            lib = chip_layers.Counted(flex)
            model = use_flex(burn.load(data), lib)
            x = np.zeros(int(np.prod(model.info()["inputs"][0]["shape"])), np.int8)
            model.run(x)
            lib.reset()
            model.run(x)
            print("%-9s %13s %13s" % (name, "{:,}".format(lib.counter.instructions),
                                      _cycles(lib.counter.cycles, timed, ",")))
            continue
        side = chip_layers.compare_model(data, flex, peer)
        f, p = side.flex, side.peer
        print("%-9s %13s %13s %13s %13s %6s %6s %6s" % (
            name, "{:,}".format(f.instructions), _cycles(f.cycles, timed, ","),
            "{:,}".format(p.instructions), _cycles(p.cycles, timed, ","),
            _ratio(f.instructions, p.instructions),
            _ratio(f.cycles, p.cycles) if timed else "-", "yes" if side.equal else "NO"))


def print_boards(boards, models):
    """Table 3; 1 when a board fails."""
    print("%-9s %-8s %16s %9s %12s" % ("board", "model", "instructions", "TFLM", "alloc B/inf"))
    status = 0
    for board in boards:
        try:
            rows = measure(board, models)
        except (FirmwareError, EmulatorError) as exc:
            print("%-9s %s" % (board, exc), file=sys.stderr)
            status = 1
            continue
        for name, tests, alloc, count in rows:
            print("%-9s %-8s %16s %9s %12d" % (board, name, "{:,}".format(count),
                                              "%d/%d" % (tests, TESTS), alloc))
    return status


def main(argv=None):
    """Measure and print the tables; 1 when a board fails, 2 when a model is missing."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", default=",".join(qemu_boards()))
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--cmsis-nn", metavar="DIR",
                        help="a CMSIS-NN checkout, the Cortex-M33's peer in tables 1 and 2 "
                        "(default: $BURN_CMSIS_NN)")
    parser.add_argument("--esp-nn", metavar="DIR",
                        help="an esp-nn checkout, RISC-V's peer in tables 1 and 2 (default: "
                        "$BURN_ESP_NN)")
    parser.add_argument("--cores", default=",".join(CORES),
                        help="the emulated cores of tables 1 and 2 (comma-separated)")
    parser.add_argument("--skip", default="", help="tables to leave out: layers, models, "
                        "boards (comma-separated)")
    args = parser.parse_args(argv)
    skip = _names(args.skip, ["layers", "models", "boards"], "table") if args.skip else []
    boards = _names(args.boards, qemu_boards(), "board")
    cores = _names(args.cores, list(CORES), "core")
    chosen = _names(args.models, list(MODELS), "model")
    paths = dict(zip([n for n in chosen if MODELS[n]],
                     require([MODELS[n] for n in chosen if MODELS[n]])))
    models = {n: encode_bst(import_tflite(paths[n].read_bytes() if n in paths
                                          else mobilenet_v1(), tests=TESTS))
              for n in chosen}
    checkouts = {cmsis_nn: args.cmsis_nn, esp_nn: args.esp_nn}
    for target in cores if "layers" not in skip or "models" not in skip else ():
        module = CORES[target][1]
        peer = None
        try:
            peer = module.emulated(module.find(checkouts[module]), target)
        except PeerMissing as exc:
            print("chips.py: %s; tables 1 and 2 show flex alone on the %s"
                  % (exc, CORES[target][0]), file=sys.stderr)
        if "layers" not in skip:
            print_layers(target, peer)
            print()
        if "models" not in skip:
            print_models(target, models, peer)
            print()
    return 0 if "boards" in skip else print_boards(boards, models)


if __name__ == "__main__":
    sys.exit(main())
