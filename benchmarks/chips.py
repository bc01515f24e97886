"""int8 models on the QEMU boards (docs/boards.md, "QEMU boards"), one row per (board,
model): instructions per inference on flex, bit-exactness with TFLM's reference vectors and
bytes allocated per inference, each measured on burn's firmware for the board.

QEMU counts no cycles: burn runs it with `-icount shift=0`, one instruction per nanosecond
of the board's clock, so time.ticks_us() around one inference counts thousands of
instructions (burn.host.emulator.qemu.instructions). The firmware is built (or taken from
the cache) by `burn firmware build`; the models are the MLPerf Tiny KWS and ResNet-8 from
$BURN_MODELS_DIR (benchmarks/model_files.py), sent into the board's RAM.

Run: python benchmarks/chips.py [--boards qemu-m33,qemu-m7] [--models kws,resnet8]
"""

import argparse
import sys

from model_files import require

from burn.host.bst_writer import encode_bst
from burn.host.emulator import EmulatorError
from burn.host.emulator.qemu import QemuBoard, instructions, qemu_boards, send_bytes
from burn.host.firmware import FirmwareError
from burn.host.firmware.build import build_firmware
from burn.host.importers.tflite import import_tflite
from burn.host.link import connect

MODELS = {"kws": "kws_ref_model.tflite", "resnet8": "pretrainedResnet_quant.tflite"}
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


def main(argv=None):
    """Measure and print the table; 1 when a board fails, 2 when a model is missing."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", default=",".join(qemu_boards()))
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args(argv)
    boards = _names(args.boards, qemu_boards(), "board")
    chosen = _names(args.models, list(MODELS), "model")
    paths = require([MODELS[n] for n in chosen])
    models = {n: encode_bst(import_tflite(p.read_bytes(), tests=TESTS))
              for n, p in zip(chosen, paths)}
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


if __name__ == "__main__":
    sys.exit(main())
