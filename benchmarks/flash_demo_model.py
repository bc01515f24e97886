"""Flashing the demo model to a virtual RP2040: time and bytes of the first flash, of a
flash with nothing changed and of a flash after a one-weight change; on-device latency and
heap during inference against the model's arena.

Run: python benchmarks/flash_demo_model.py [--epochs 6]
"""

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from burn.host.board_session import open_board
from burn.host.bst_writer import write_bst
from burn.host.demo import train
from burn.host.deploy import flash
from burn.host.export import add_reference_tests, quantize


def export_pair(folder, epochs):
    """The demo model as int8 .bst, and the same with one int8 weight changed by one."""
    model, train_set, _ = train(epochs, lambda text: None)
    x, _ = train_set.batch(np.arange(256))
    graph = quantize(model, x)
    first = Path(folder) / "digits.bst"
    write_bst(graph, first)
    w = graph.ops[0].consts["w"].reshape(-1)
    w[0] = w[0] - 1 if w[0] > -127 else w[0] + 1
    add_reference_tests(graph, x[:3])
    changed = Path(folder) / "digits_one_weight.bst"
    write_bst(graph, changed)
    return str(first), str(changed)


def timed_flash(session, path, label):
    start = time.monotonic()
    report = flash(session, path)
    seconds = time.monotonic() - start
    s = report.sent
    print("%-22s %6.2f s in all (%5.2f s sending)  %3d files  %8d payload bytes  %8d bytes on "
          "the wire  self-test %s" % (label, seconds, s.seconds, len(s.sent), s.payload_bytes,
                                      s.wire_bytes, "ok" if report.ok else "FAILED"))
    return report


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=6)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        first, changed = export_pair(folder, args.epochs)
        with open_board(virtual=True, board="rp2040") as session:
            print("virtual rp2040; model %d bytes" % Path(first).stat().st_size)
            timed_flash(session, first, "first flash")
            timed_flash(session, first, "again, unchanged")
            report = timed_flash(session, changed, "one weight changed")
    m = report.measured
    print("latency on the virtual board: %.3f ms mean, %.3f ms best (%d runs)"
          % (m["latency_us"] / 1000, m["latency_min_us"] / 1000, m["runs"]))
    print("heap during inference: %d bytes in use of %d; the model holds %d bytes (arena %d, "
          "buffers %d); runtime and kernels %d; an inference allocates %d"
          % (m["heap_model"] + m["heap_inference"], report.facts.heap_total,
             m["heap_model"] - m["heap_kernels"], report.model.arena_bytes,
             report.model.buffer_bytes, m["heap_kernels"] - m["heap_start"],
             m["heap_inference"]))


if __name__ == "__main__":
    main()
