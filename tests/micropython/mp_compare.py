"""Run on MicroPython: every case of a kernel_cases.py file through burnflex and through the
plain burn.graph kernel, and report per kernel, one JSON line each (prefixed MARK):
- {"kernel", "cases", "exact", "close", "first"}: outputs equal bit for bit (`exact`),
  within float tolerance (`close`), and the first case that was neither;
- {"kernel", "alloc"}: bytes gc.mem_alloc() grew over 5 calls made with the heap locked
  (-1 when a call allocated, which the lock turns into MemoryError);
- {"kernel", "short"}: the error text of a call with an output one element short.

Usage: micropython mp_compare.py CASES_FILE MODULE_DIR
Case i of a kernel passes its buffers in one of four containers (i % 4): array, bytes /
bytearray (int8 inputs), or a memoryview slice of a longer array. A case whose output is
marked "below" (board_kernel_cases.in_place) runs the C kernel twice, the second time with its
output over its first input as an in-place arena places it, and counts as two; the plain
kernel computes the reference once, out of place.
"""

import gc
import json
import sys
from array import array
from binascii import unhexlify

import micropython

MARK = "@@burnflex@@"
ROOM = 3  # elements before and after a memoryview slice


def container(spec, variant):
    """The input buffer of `spec` in the container of `variant`."""
    data = unhexlify(spec["hex"])
    t = spec["t"]
    if variant == 1 and t == "b":
        return data
    if variant == 3 and t == "b":
        return bytearray(data)
    if variant == 2:
        items = array(t, data)
        big = array(t, [0] * ROOM)
        big.extend(items)
        big.extend(array(t, [0] * ROOM))
        return memoryview(big)[ROOM:ROOM + len(items)]
    return array(t, data)


def output(spec, variant, short=0):
    """A fresh output buffer, filled with a pattern (so that untouched cells compare too)."""
    n = spec["out"] - short
    fill = [(i * 37) % 101 - 50 for i in range(n + 2 * ROOM)]
    big = array(spec["t"], fill)
    if variant == 2:
        return memoryview(big)[ROOM:ROOM + n]
    return array(spec["t"], fill[:n])


def overlapped(data, spec):
    """(input, output) memoryviews of one array: the output `spec["below"]` elements below
    the input, which holds `data`."""
    below, n = spec["below"], spec["out"]
    shared = array(spec["t"], bytes(max(below + len(data), n)))
    view = memoryview(shared)
    view[below:below + len(data)] = data
    return view[below:below + len(data)], view[:n]


def build(args, variant, short=0, in_place=False):
    """(argument list, index of the output, whether the output is float) of a case; with
    `in_place`, an output that has a "below" field overlaps the first argument."""
    built, at, is_float = [], -1, False
    for a in args:
        if isinstance(a, dict) and "out" in a and in_place and "below" in a:
            at = len(built)
            built[0], y = overlapped(array(a["t"], unhexlify(args[0]["hex"])), a)
            built.append(y)
        elif isinstance(a, dict) and "out" in a:
            at, is_float = len(built), a["t"] == "f"
            built.append(output(a, variant, short))
        elif isinstance(a, dict) and "list" in a:
            built.append([container(s, variant) for s in a["list"]])
        elif isinstance(a, dict):
            built.append(container(a, variant))
        else:
            built.append(a)
    return built, at, is_float


def same(a, b, tolerant):
    """(bit-exact, within tolerance) of two outputs."""
    if bytes(a) == bytes(b):
        return True, True
    if not tolerant:
        return False, False
    top = max([1.0] + [abs(v) for v in a])
    for x, y in zip(a, b):
        if abs(x - y) > 1e-5 * top + 1e-5 * abs(x):
            return False, False
    return False, True


def caller(n):
    """f(a[0], ..., a[n-1]) without a star call, which allocates on MicroPython."""
    ns = {}
    exec("def call(f, a):\n    f(" + ", ".join("a[%d]" % i for i in range(n)) + ")\n", ns)
    return ns["call"]


def allocation(fn, args):
    call = caller(len(args))
    call(fn, args)
    gc.collect()
    before = gc.mem_alloc()
    micropython.heap_lock()
    try:
        for _ in range(5):
            call(fn, args)
    except MemoryError:
        return -1
    finally:
        micropython.heap_unlock()
    return gc.mem_alloc() - before


def report(**fields):
    print(MARK, json.dumps(fields))


def finish(state):
    kernel, module, first_args, stats = state
    fn = getattr(module, kernel)
    report(kernel=kernel, cases=stats[0], exact=stats[1], close=stats[2], first=stats[3])
    args = build(first_args, 0)[0]
    report(kernel=kernel, alloc=allocation(fn, args))
    args = build(first_args, 0, short=1)[0]
    try:
        fn(*args)
        report(kernel=kernel, short="no error")
    except ValueError as e:
        report(kernel=kernel, short=str(e))


def main(cases_path, module_dir):
    sys.path.insert(0, module_dir)
    import burnflex

    state = None
    with open(cases_path) as f:
        while True:
            line = f.readline()
            if not line:
                break
            kernel, mod_name, plain_name, args = json.loads(line)
            if state is None or state[0] != kernel:
                if state is not None:
                    finish(state)
                state = (kernel, burnflex, args, [0, 0, 0, None])
            __import__("burn.graph." + mod_name)
            plain = getattr(sys.modules["burn.graph." + mod_name], plain_name)
            stats = state[3]
            variant = stats[0] % 4
            ref, at, is_float = build(args, variant)
            plain(*ref)
            for in_place in (False, True) if "below" in args[at] else (False,):
                ours = build(args, variant, in_place=in_place)[0]
                getattr(burnflex, kernel)(*ours)
                exact, close = same(ref[at], ours[at], is_float)
                stats[0] += 1
                stats[1] += exact
                stats[2] += close
                if not close and stats[3] is None:
                    stats[3] = "case %d%s: want %s got %s" % (
                        stats[0] - 1, " (in place)" if in_place else "", list(ref[at]),
                        list(ours[at]))
            gc.collect()
    if state is not None:
        finish(state)
    report(done=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
