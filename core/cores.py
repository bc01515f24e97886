"""Both cores of the board for a model that runs as one flex plan (burnflex.run_plan): the
arguments of the run, and what `Model.info()` says of it.

Loaded only on a firmware whose burnflex has the second core (burnflex.cores(); burn.model
handles one core itself). Such a firmware splits each large
convolution, depthwise convolution and fully connected step between core 0 and core 1
(flex_plan_run_on, docs/boards.md "Both cores"); the run writes how into `record`, four
words per plan step. `burn.load(..., cores=1)` keeps core 1 out."""

from array import array

from burn.shape import numel

SPARE_BYTES = 2048  # output rows a part writes aside when they overlay the other's input
_SPLITS = ("conv2d", "depthwise_conv2d", "fully_connected")  # the kinds whose steps split
_HOW = ("one core", "rows", "pixels", "features")
_WHY = ("op does not split", "small", "shape", "in place", "core 1 busy")


def plan_args(model, plan):
    """burnflex.bind_plan's seven arguments for `plan` (words, pointers) of `model` on two
    cores."""
    steps = len(model._steps) + len(model._outputs)
    model._split = array("i", bytes(16 * steps))
    return (plan[0], plan[1], 2, model._split, bytearray(SPARE_BYTES), model._arena["int8"],
            free_regions(model))


def free_regions(model):
    """array('i') of two words per plan step (the model's steps, then its output copies):
    the byte offset and length of the largest region of the int8 arena that no tensor live
    at that step holds (made, read then or read later, or a model output), for the steps
    that may split; 0, 0 for the others. A split step may put the rows of one core's part
    that would overwrite the other's input there."""
    tensors, steps = model.tensors, model._steps
    made = {t: -1 for t, _shape in model._bst.inputs}
    last = {}
    for k, s in enumerate(steps):
        for t in s.outs:
            made.setdefault(t, k)
        for t in s.ins:
            last[t] = k
    for t, _shape in model._bst.outputs:
        last[t] = len(steps)
    # (start, end in the arena, first step, last step) of each int8 tensor, by start
    lives = sorted((tensors[t][2], tensors[t][2] + numel(tensors[t][0]), made[t],
                    last.get(t, made[t])) for t in made if tensors[t][1] == "int8")
    free = array("i", bytes(8 * (len(steps) + len(model._outputs))))
    size = len(model._arena["int8"])
    for k, s in enumerate(steps):
        if s.kind not in _SPLITS:
            continue
        spans = [(lo, hi) for lo, hi, first, until in lives if first <= k <= until]
        at = best = end = 0
        for lo, hi in spans + [(size, size)]:
            if lo - end > best:
                at, best = end, lo - end
            end = hi if hi > end else end
        free[2 * k], free[2 * k + 1] = at, best
    return free


def _split_text(rec):
    how, first, total, head = rec
    if how == 0:
        return "one core: " + (_WHY[first] if 0 <= first < len(_WHY) else "?")
    text = "%s 0-%d | %d-%d" % (_HOW[how] if how < len(_HOW) else "?", first - 1, first,
                                total - 1)
    return text + (" (%d aside)" % head if head else "")


def describe(model, ops, state):
    """The `cores` entry of model.info() on a firmware whose burnflex.cores() is `state`
    (built with two), setting each op's `split` in `ops`."""
    built, usable, why = state[0], state[1], state[2]
    record = model._split
    split = False
    for k, op in enumerate(ops):
        op["split"] = None
        if record is not None and model.last_us >= 0:
            rec = record[4 * k:4 * k + 4]
            op["split"] = _split_text(rec)
            split = split or rec[0] != 0
    if model._cores == 1:
        why = "asked for one core (burn.load(..., cores=1))"
    elif not model._plan:
        why = "the model runs op by op, not as one flex plan"
    elif usable < 2:
        pass
    elif record is not None and model.last_us >= 0 and not split:
        why = "no op of this model splits"
    return {"used": 2 if split else 1, "built": built, "why": None if split else why,
            "core1_stack_bytes": state[4]}
