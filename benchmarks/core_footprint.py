"""Footprint of the core on MicroPython.

Measures, on the real MicroPython unix port with the board's heap cap, the heap taken by
`import burn` (gc.mem_alloc() difference) from `.py` sources and from `.mpy` files compiled
for the port's own arch (at burn.host.mpy's default -O level), the heap the first tensor
adds (it loads the pure backend), and the size of the core compiled with
`mpy-cross -march=armv6m` (the RP2040's Cortex-M0+). Goal: `import burn` from .mpy takes at
most 20 KB of heap.

The unix port is a 64-bit build and loads .mpy bytecode into the heap, so its numbers are an
upper bound for a 32-bit board, where frozen bytecode stays in flash. MicroPython interns
names in qstr pools that grow in steps (the fourth, ~1.9 KB here, is allocated at about 140
qstrs), so a few more names can move the figure by a step: the qstr line shows where it is.

Run: python benchmarks/core_footprint.py [--heap 192k] [--top 8]
"""

import sys
import tempfile

from mp_port import heap_parser, unix_port

from burn.host import mpy
from burn.host.mpy import unix as mp_unix

GOAL_BYTES = 20 * 1024
BOARD_ARCH = "armv6m"

MEASURE = """
import gc
gc.collect()
before = gc.mem_alloc()
{statement}
gc.collect()
print(gc.mem_alloc() - before)
"""


def import_heap(statement, path, heap):
    """Heap bytes that `statement` keeps allocated on MicroPython, or the error text."""
    proc = mp_unix.run_code(MEASURE.format(statement=statement), [path], heap=heap)
    if proc.returncode != 0:
        return "failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1]
    return int(proc.stdout.split()[-1])


def qstr_info(statement, path, heap):
    """MicroPython's qstr pool summary after `statement`, e.g. 'n_pool=3, n_qstr=136'."""
    proc = mp_unix.run_code(statement + "\nimport micropython\nmicropython.qstr_info()",
                            [path], heap=heap)
    if proc.returncode != 0:
        return "?"
    return " ".join(part.rstrip(",") for part in proc.stdout.split()[2:4])


def loaded_modules(path, heap):
    """Names of the burn modules that `import burn` loads on MicroPython."""
    proc = mp_unix.run_code(
        "import sys, burn\nprint(' '.join(sorted(k for k in sys.modules if 'burn' in k)))",
        [path], heap=heap,
    )
    return proc.stdout.split() if proc.returncode == 0 else ["(import failed)"]


def kb(value):
    """Bytes as 'N.N KB'; error text passes through."""
    return f"{value / 1024:.1f} KB" if isinstance(value, int) else value


def main(argv=None):
    """Measure and print the table."""
    parser = heap_parser(__doc__)
    parser.add_argument("--top", type=int, default=8, help="largest .mpy files to list")
    args = parser.parse_args(argv)
    port = unix_port()
    if port is None:
        return 1
    version, port_arch = port
    host_build = mpy.compile_core(port_arch or "x64")
    board_build = mpy.compile_core(BOARD_ARCH)
    sources = mpy.source_files(mp_unix.core_dir())
    source_bytes = sum((mp_unix.core_dir() / rel).stat().st_size for rel in sources)
    with tempfile.TemporaryDirectory() as tmp:
        from_py = import_heap("import burn", mp_unix.link_core(tmp), args.heap)
    from_mpy = import_heap("import burn", host_build.root, args.heap)
    with_nn = import_heap("import burn\nfrom burn import nn", host_build.root, args.heap)
    first = import_heap("import burn\nx = burn.tensor([1.0, 2.0])", host_build.root, args.heap)
    arch = f"{host_build.arch}, -O{mpy.DEFAULT_OPT}"
    rows = [
        ("MicroPython", f"{version} ({port_arch}), heap {args.heap}"),
        ("import burn, from .py", kb(from_py)),
        (f"import burn, from .mpy ({arch})", kb(from_mpy)),
        ("  qstr pools after it", qstr_info("import burn", host_build.root, args.heap)),
        (f"import burn + first tensor, from .mpy ({arch})", kb(first)),
        (f"import burn + burn.nn, from .mpy ({arch})", kb(with_nn)),
        ("core sources (.py)", f"{kb(source_bytes)} in {len(sources)} files"),
        (f"core compiled ({BOARD_ARCH} .mpy)",
         f"{kb(board_build.total_size)} in {len(board_build.files)} files"),
    ]
    width = max(len(label) for label, _ in rows) + 2
    for label, value in rows:
        print(label.ljust(width) + value)
    verdict = "met" if isinstance(from_mpy, int) and from_mpy <= GOAL_BYTES else "NOT met"
    print(f"goal: import burn from .mpy <= {kb(GOAL_BYTES)}: {verdict}")
    print("import burn loads: " + " ".join(loaded_modules(host_build.root, args.heap)))
    print(f"\nlargest {BOARD_ARCH} .mpy files:")
    for name, size in sorted(board_build.files, key=lambda f: -f[1])[:args.top]:
        print(f"  {name.ljust(width - 2)}{kb(size)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
