"""Seeded mutants of one `.bst` file, each loaded and run on this interpreter: CPython or the
MicroPython unix port (the script uses only what both have).

Usage: <python or micropython> bst_mutants.py MODEL SEED COUNT [VARIANT ...]

Mutations: bit flips anywhere, bit flips with the checksums made right again (in the JSON
header or the data section), truncations, fixed-header fields set to edge values, JSON
header values replaced by edge values, JSON keys or list items dropped, and tensors moved in
the arena (onto or near another tensor, or anywhere they fit), which the reader's plan check
must refuse unless every runtime computes the same; every edit of the JSON header is
written back with right checksums, so the reader's own checks meet it.
Each mutant is loaded with every VARIANT (default: plain and flex); a load must succeed or
raise ValueError, and every variant must agree. An accepted mutant runs one inference per
variant, which must not fail, and the outputs must be equal (int8) or close (float32).

Output: one line per failure, `MARK kind index mutation message`, and last a line
`MARK {summary as JSON}`: the count of each outcome, and of each outcome of the arena moves
alone ("moved, refused", ...).
"""

import binascii
import gc
import json
import struct
import sys
from array import array

import burn

MARK = "@@bst-mutants@@"
EDGES = (0, 1, -1, 2, 3, 4, 7, 8, 16, 31, 32, 127, 128, -128, -129, 255, 256, 4096, 65536,
         1 << 24, (1 << 24) + 1, 1 << 30, (1 << 31) - 1, 1 << 31, -(1 << 31), 1 << 32, 0.5,
         -1.5, 1e30, 1e-30, None, "x", [])
FIXED_EDGES = (0, 1, 3, 4, 16, 48, 1024, 65535, 1 << 20, 1 << 24, (1 << 31) - 1,
               0xFFFFFFFF)


class Rng:
    """xorshift32: the same mutants on both interpreters for one seed."""

    def __init__(self, seed):
        self.state = (seed * 2654435761 + 12345) & 0xFFFFFFFF or 1

    def below(self, n):
        """A number in [0, n)."""
        x = self.state
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.state = x
        return x % n


def fix_crcs(data):
    """Make both checksums of `data` (a bytearray) right, where its offsets allow."""
    if len(data) < 48:
        return data
    doff = struct.unpack_from("<I", data, 16)[0]
    if 16 <= doff <= len(data):
        struct.pack_into("<I", data, 24, binascii.crc32(memoryview(data)[doff:]) & 0xFFFFFFFF)
        struct.pack_into("<I", data, 12, binascii.crc32(memoryview(data)[16:doff]) & 0xFFFFFFFF)
    return data


def header_of(data):
    """The JSON header of a well-formed file."""
    hlen = struct.unpack_from("<I", data, 8)[0]
    return json.loads(bytes(data[48:48 + hlen]))


def with_header(data, header):
    """`data` with its JSON header replaced by `header`, offsets and checksums right."""
    doff = struct.unpack_from("<I", data, 16)[0]
    text = json.dumps(header).encode()
    new_doff = (48 + len(text) + 15) // 16 * 16
    out = bytearray(new_doff + len(data) - doff)  # one allocation: the heap may be small
    out[:48] = data[:48]
    struct.pack_into("<I", out, 8, len(text))
    struct.pack_into("<I", out, 16, new_doff)
    out[48:48 + len(text)] = text
    out[new_doff:] = memoryview(data)[doff:]
    return fix_crcs(out)


def _visit(node, path, k, containers):
    """Walk `node` (dict keys sorted: the same order on both interpreters, and after a
    dropped key is put back), counting `k` down at each scalar leaf (with
    `containers`: at each container below the root): (the path where it reached 0, 0), or
    (None, what is left of k). Nothing is kept per node: the heap may be a board's."""
    if isinstance(node, (dict, list)) == containers and (path or not containers):
        if k == 0:
            return path, 0
        k -= 1
    if isinstance(node, dict):
        keys = sorted(node)
    elif isinstance(node, list):
        keys = range(len(node))
    else:
        return None, k
    for key in keys:
        found, k = _visit(node[key], path + (key,), k, containers)
        if found is not None:
            return found, k
    return None, k


def count_paths(header, containers):
    """How many scalar leaves (or containers below the root) `header` has."""
    return -1 - _visit(header, (), -1, containers)[1]


def nth_path(header, k, containers):
    """The path of `header`'s k-th scalar leaf (or container below the root)."""
    return _visit(header, (), k, containers)[0]


def parent(header, path):
    node = header
    for key in path[:-1]:
        node = node[key]
    return node


def edge(rng, old):
    """An edge value, or one near the old value."""
    pick = rng.below(len(EDGES) + 4)
    if pick < len(EDGES) or not isinstance(old, int):
        return EDGES[pick % len(EDGES)]
    return (old + 1, old - 1, old * 2, old // 2)[pick - len(EDGES)]


def mutate(rng, base, header, scalars, containers):
    """One mutant of `base`: (bytes, description); `scalars` and `containers` are how many
    scalar leaves and containers `header` has (count_paths)."""
    kind = rng.below(12)
    data = bytearray(base)
    if kind >= 10:
        return move_tensor(rng, data, header)
    if kind == 0:
        bits = 1 + rng.below(4)
        for _ in range(bits):
            bit = rng.below(len(data) * 8)
            data[bit // 8] ^= 1 << (bit % 8)
        return data, "flip %d bits" % bits
    if kind == 1:
        doff = struct.unpack_from("<I", data, 16)[0]
        hlen = struct.unpack_from("<I", data, 8)[0]
        lo, hi = (48, 48 + hlen) if rng.below(2) else (doff, len(data))
        pos = lo + rng.below(hi - lo)
        data[pos] ^= 1 << rng.below(8)
        return fix_crcs(data), "flip byte %d, checksums fixed" % pos
    if kind == 2:
        n = rng.below(len(data))
        return data[:n], "truncate to %d" % n
    if kind == 3:
        field = 28 + 4 * rng.below(5)
        value = FIXED_EDGES[rng.below(len(FIXED_EDGES))]
        struct.pack_into("<I", data, field, value)
        return fix_crcs(data), "fixed field %d = %d" % (field, value)
    if kind == 4 and containers:
        path = nth_path(header, rng.below(containers), True)
        node = parent(header, path)
        saved = node[path[-1]]
        del node[path[-1]]
        try:
            return with_header(data, header), "drop %r" % (path,)
        finally:
            if isinstance(node, list):
                node.insert(path[-1], saved)
            else:
                node[path[-1]] = saved
    path = nth_path(header, rng.below(scalars), False)
    node = parent(header, path)
    saved = node[path[-1]]
    node[path[-1]] = edge(rng, saved)
    try:
        return with_header(data, header), "set %r = %r" % (path, node[path[-1]])
    finally:
        node[path[-1]] = saved


def move_tensor(rng, data, header):
    """`data` with one tensor's arena offset moved onto or near another tensor of its dtype,
    or to any aligned offset where it fits: (bytes, description)."""
    tensors = header["tensors"]
    t = tensors[rng.below(len(tensors))]
    size = 1 if t["dtype"] == "int8" else 4
    arena = header.get("arena_int32", 0) if t["dtype"] == "int32" else \
        struct.unpack_from("<I", data, 28 if size == 1 else 32)[0]
    room = arena - size * numel(t["shape"])
    peers = [u for u in tensors if u["dtype"] == t["dtype"] and u is not t]
    if peers and rng.below(3):
        offset = peers[rng.below(len(peers))]["arena"] + size * (rng.below(17) - 8)
    else:
        offset = size * rng.below(room // size + 1)
    offset = min(max(offset, 0), room)
    saved = t["arena"]
    t["arena"] = offset
    try:
        return with_header(data, header), "move tensor %d from %d to %d" % (
            tensors.index(t), saved, offset)
    finally:
        t["arena"] = saved


def numel(shape):
    """Element count of `shape`."""
    n = 1
    for d in shape:
        n *= d
    return n


def sample(spec):
    """A fixed input for one input spec of Model.info()."""
    n = numel(spec["shape"])
    if spec["dtype"] == "int8":
        return array("b", [(i * 37) % 256 - 128 for i in range(n)])
    if spec["dtype"] == "int32":  # positions: within any table
        return array("i", [i % 2 for i in range(n)])
    return array("f", [((i * 37) % 256 - 128) / 64.0 for i in range(n)])


def infer(model):
    """The outputs, as lists, of one inference on fixed inputs."""
    xs = [sample(spec) for spec in model.info()["inputs"]]
    out = model.run(xs[0] if len(xs) == 1 else xs)
    return [list(o) for o in out] if isinstance(out, tuple) else [list(out)]


def same(a, b):
    """Outputs equal (ints) or close (floats; NaN equals NaN)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if len(x) != len(y):
            return False
        for u, v in zip(x, y):
            if u != v and not (u != u and v != v) and \
                    not (isinstance(u, float) and abs(u - v) <= 1e-4 + 1e-3 * abs(u)):
                return False
    return True


def try_one(data, variants):
    """(outcome, message): "refused", "accepted", or a failure kind."""
    outputs = []
    refused = []
    for variant in variants:
        try:
            model = burn.load(data, variant=variant)
        except ValueError as e:
            refused.append(str(e))
            continue
        except Exception as e:  # anything else is a failure to report
            return "traceback", "%s load: %s: %s" % (variant, type(e).__name__, e)
        try:
            outputs.append(infer(model))
        except Exception as e:
            return "run-error", "%s run: %s: %s" % (variant, type(e).__name__, e)
        finally:
            model = None
            gc.collect()
    if refused and outputs:
        return "disagree", "refused by one variant only: " + refused[0]
    if refused:
        return "refused", refused[0]
    for out in outputs[1:]:
        if not same(outputs[0], out):
            return "mismatch", "outputs differ"
    return "accepted", ""


def main(argv):
    """Run COUNT mutants of MODEL with SEED; print failures and the summary."""
    with open(argv[1], "rb") as f:
        base = f.read()
    seed, count = int(argv[2]), int(argv[3])
    variants = argv[4:] or ["plain", "flex"]
    header = header_of(base)
    scalars, containers = count_paths(header, False), count_paths(header, True)
    # The unmutated file first: it must run, and it imports every kernel module before the
    # heap fills with mutants.
    kind, message = try_one(base, variants)
    if kind != "accepted":
        print(MARK, "base", kind, message)
        return
    if hasattr(gc, "freeze"):  # CPython: keep its many long-lived objects out of collections
        gc.freeze()
    rng = Rng(seed)
    counts = {}
    for i in range(count):
        data, what = mutate(rng, base, header, scalars, containers)
        kind, message = try_one(bytes(data), variants)
        data = None
        gc.collect()
        counts[kind] = counts.get(kind, 0) + 1
        if what.startswith("move"):
            counts["moved, " + kind] = counts.get("moved, " + kind, 0) + 1
        if kind not in ("refused", "accepted"):
            print(MARK, kind, i, what, "|", message[:200])
    counts["mutants"] = count
    print(MARK, json.dumps(counts))


if __name__ == "__main__":
    main(sys.argv)
