"""Foreign state dicts (numpy arrays by name) loaded into a burn.nn model, with a report.

Names go through, in order: the removal of a `module.` prefix that every key has and the
model lacks (PyTorch's DataParallel), the caller's regular-expression renames, and the
closing of `nn.Sequential` index gaps (a checkpoint whose layers are numbered 0, 3, 6 loads
into a model numbered 0, 1, 2, level by level, when both have as many numbered children).

burn.nn keeps PyTorch's layouts (Linear [out, in], Conv2d [out, in/groups, kh, kw],
BatchNorm's running statistics), so values are copied as they are, with two adapters:
dtypes (float64/float16/bfloat16 to float32; int64 to int32, range-checked, as for
BatchNorm's `num_batches_tracked`) and shapes that differ only by axes of size 1 (a 1x1
convolution's [out, in, 1, 1] weight into a Linear, a scalar into a [1] tensor).
"""

import re

import numpy as np

from ..convert import to_tensor


class LoadReport:
    """What `load_state` did: `applied` (model keys loaded), `missing` (model keys the
    state lacks, left as they were), `unexpected` (state keys, after renaming, the model
    lacks), `renamed` [(state key, model key)], `adapted` [(model key, what was done)]."""

    def __init__(self):
        self.applied = []
        self.missing = []
        self.unexpected = []
        self.renamed = []
        self.adapted = []

    def __str__(self):
        lines = ["applied %d tensors, %d missing, %d unexpected" % (
            len(self.applied), len(self.missing), len(self.unexpected))]
        for title, items in (("missing", self.missing), ("unexpected", self.unexpected),
                             ("renamed", ["%s -> %s" % p for p in self.renamed]),
                             ("adapted", ["%s: %s" % p for p in self.adapted])):
            if items:
                lines.append("  %s: %s" % (title, ", ".join(items)))
        return "\n".join(lines)


def compile_remap(remap):
    """[(compiled pattern, replacement)] of (regex, replacement) pairs; ValueError for a
    bad pair or pattern."""
    rules = []
    for rule in remap:
        if not (isinstance(rule, (tuple, list)) and len(rule) == 2):
            raise ValueError("remap: each rule is a (pattern, replacement) pair, got %r"
                             % (rule,))
        try:
            rules.append((re.compile(rule[0]), rule[1]))
        except re.error as e:
            raise ValueError("remap: bad regular expression %r: %s" % (rule[0], e)) from None
    return rules


def _numbered(keys, depth):
    """{parent segments: set of numeric child indices at `depth`}."""
    groups = {}
    for segs in keys:
        if len(segs) > depth + 1 and segs[depth].isdigit():
            groups.setdefault(tuple(segs[:depth]), set()).add(int(segs[depth]))
    return groups


def close_gaps(names, model_names):
    """{name: new name}: numbered children renumbered to the model's numbers where a parent
    has as many numbered children in both but different numbers."""
    segs = {n: n.split(".") for n in names}
    model = [n.split(".") for n in model_names]
    depth = 0
    while any(len(s) > depth + 1 for s in segs.values()):
        ours, theirs = _numbered(segs.values(), depth), _numbered(model, depth)
        for parent, have in ours.items():
            want = theirs.get(parent)
            if want is None or have == want or len(have) != len(want):
                continue
            move = dict(zip(sorted(have), sorted(want)))
            for s in segs.values():
                if (len(s) > depth + 1 and tuple(s[:depth]) == parent and
                        s[depth].isdigit()):
                    s[depth] = str(move[int(s[depth])])
        depth += 1
    return {n: ".".join(s) for n, s in segs.items()}


def _renamed(state, model_keys, remap, gaps):
    rules = compile_remap(remap)
    names = {k: k for k in state}
    if names and all(k.startswith("module.") for k in names) and not any(
            k.startswith("module.") for k in model_keys):
        names = {k: k[len("module."):] for k in names}
    for key, new in names.items():
        for pattern, repl in rules:
            new = pattern.sub(repl, new)
        names[key] = new
    if gaps:
        moved = close_gaps(names.values(), model_keys)
        names = {k: moved[n] for k, n in names.items()}
    seen = {}
    for key, new in names.items():
        if new in seen:
            raise ValueError("remap: %s and %s both become %s" % (seen[new], key, new))
        seen[new] = key
    return names


def _adapt(key, value, like, adapted):
    """`value` (numpy) in the shape and dtype of the model's tensor `like`."""
    a = np.asarray(value)
    shape = tuple(like.shape)
    if a.shape != shape:
        if a.size != int(np.prod(shape)) or \
                [d for d in a.shape if d != 1] != [d for d in shape if d != 1]:
            raise ValueError("size mismatch for %s: the state has %s, the model %s"
                             % (key, a.shape, shape))
        adapted.append((key, "reshaped %s -> %s" % (a.shape, shape)))
        a = a.reshape(shape)
    want = like.dtype.name
    if want == "float32" and a.dtype != np.float32:
        if a.dtype.kind != "f":
            raise ValueError("%s: %s values for a float32 tensor" % (key, a.dtype))
        adapted.append((key, "%s -> float32" % a.dtype))
    elif want == "int32" and a.dtype != np.int32:
        if a.dtype.kind not in "iu" or (a.size and (a.min() < -2**31 or a.max() >= 2**31)):
            raise ValueError("%s: %s values do not fit int32" % (key, a.dtype))
        adapted.append((key, "%s -> int32" % a.dtype))
    return to_tensor(a).to(like.dtype, like.device)


def load_state(model, state, remap=(), close_gaps=True, strict=False):
    """Load {name: numpy array} into the burn.nn `model` and return a LoadReport.

    `remap` is a list of (regular expression, replacement) applied with re.sub in order.
    Every value is checked before the model changes; a shape that does not fit is a
    ValueError naming the key. With `strict`, missing or unexpected keys are a ValueError."""
    current = model.state_dict()
    names = _renamed(state, list(current), remap, close_gaps)
    report = LoadReport()
    report.renamed = [(k, n) for k, n in names.items() if k != n]
    ready = {}
    errors = []
    for key, new in names.items():
        if new not in current:
            report.unexpected.append(new)
            continue
        try:
            ready[new] = _adapt(new, state[key], current[new], report.adapted)
        except ValueError as e:
            errors.append(str(e))
    report.missing = [k for k in current if k not in ready]
    if errors:
        raise ValueError("; ".join(errors))
    if strict and (report.missing or report.unexpected):
        raise ValueError("the state does not fit the model: " + str(report).replace("\n", ";"))
    model.load_state_dict(ready, strict=False)
    report.applied = [k for k in current if k in ready]
    return report
