"""Footprint and speed of burn.nn on MicroPython.

On the real MicroPython unix port (heap capped like a board), with the core compiled to
`.mpy` for the port's arch, measures the heap that stays allocated (gc.mem_alloc()
difference) by `import burn` plus a first tensor, by importing each layer's module, by
building a small CNN and by its first forward pass (which also loads the conv/pool/norm
ops); and the time of one eval-mode forward pass. The unix port is 64-bit and keeps .mpy
bytecode in the heap, so these are upper bounds for a 32-bit board.

Run: python benchmarks/nn_footprint.py [--heap 192k]
"""

import sys

from mp_port import heap_parser, unix_port

from burn.host import mpy
from burn.host.mpy import unix as mp_unix

LAYER_MODULES = ("module", "init", "linear", "conv", "norm", "activation", "pooling",
                 "flatten", "container", "dropout", "embedding", "functional")

SCRIPT = """
import gc, time
import burn
from burn import nn
def used():
    gc.collect()
    return gc.mem_alloc()
x = burn.randn((1, 1, 8, 8))   # loads the pure backend, which is not nn's to count
print("import burn + first tensor", used())
for name in {modules!r}:
    before = used()
    __import__("burn.nn." + name)
    print("import burn.nn." + name, used() - before)
before = used()
model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                      nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64, 10)).eval()
print("build CNN (weights {weights} bytes)", used() - before)
before = used()
model(x)
print("first forward (loads ops)", used() - before)
start = time.ticks_us()
for _ in range(5):
    model(x)
print("forward time us", time.ticks_diff(time.ticks_us(), start) // 5)
gc.collect()
print("heap free after", gc.mem_free())
"""


def main(argv=None):
    """Measure and print one line per figure."""
    parser = heap_parser(__doc__)
    args = parser.parse_args(argv)
    port = unix_port()
    if port is None:
        return 1
    version, arch = port
    build = mpy.compile_core(arch or "x64")
    weights = 4 * (4 * 9 + 4 + 4 + 4 + 64 * 10 + 10)
    code = SCRIPT.format(modules=LAYER_MODULES, weights=weights)
    proc = mp_unix.run_code(code, [build.root], heap=args.heap, timeout=120)
    print("MicroPython " + version + " (" + str(arch) + "), heap " + args.heap + ", .mpy core")
    if proc.returncode != 0:
        print(proc.stdout + proc.stderr, file=sys.stderr)
        return 1
    for line in proc.stdout.splitlines():
        label, _, value = line.rpartition(" ")
        unit = " us" if "time" in label else " bytes"
        print("  " + label.ljust(44) + value.rjust(8) + unit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
