"""`burn import model.pth -o weights.safetensors --model models.py:build`: a PyTorch
checkpoint (read without torch) or a safetensors file converted to a burn.nn state dict in
the safetensors format, loaded into the model first when --model names one."""

import sys
from pathlib import Path

SUFFIXES = (".pt", ".pth", ".safetensors")


def add_arguments(parser):
    """The options of weight imports, as one group of `burn import`'s parser."""
    g = parser.add_argument_group(
        "PyTorch checkpoints (.pt, .pth) and safetensors files",
        "read without torch (a checkpoint that asks to run code is refused) and written as "
        "a burn.nn state dict to -o FILE.safetensors (default: the input's name)")
    g.add_argument("--model", dest="factory", metavar="MODULE:FACTORY",
                   help="burn.nn model to load the weights into, e.g. models.py:build; the "
                   "report lists applied, missing, unexpected, renamed and adapted keys, "
                   "and the model's own state dict is written")
    g.add_argument("--key", help="the checkpoint entry holding the state dict (default: the "
                   "checkpoint itself, or its state_dict/model_state_dict/model entry)")
    g.add_argument("--remap", action="append", default=[], metavar="REGEX=REPLACEMENT",
                   help="rename keys with re.sub, in order; repeatable, e.g. "
                   r"--remap '^features\.=0.'")
    g.add_argument("--strict", action="store_true",
                   help="fail when the model has keys the weights lack, or the reverse")


def _rules(texts):
    rules = []
    for text in texts:
        pattern, sep, repl = text.rpartition("=")
        if not sep or not pattern:
            raise ValueError("--remap %r: expected REGEX=REPLACEMENT" % text)
        rules.append((pattern, repl))
    return rules


def _state(src, key):
    if src.suffix.lower() == ".safetensors":
        from burn.host.importers import safetensors_file
        return safetensors_file.read(src)[0]
    from burn.host.importers import torch_checkpoint
    return torch_checkpoint.state_dict(torch_checkpoint.read(src), key)


def _renamed(state, rules):
    from burn.host.importers.state_load import compile_remap

    compiled = compile_remap(rules)
    out = {}
    for key, value in state.items():
        for pattern, repl in compiled:
            key = pattern.sub(repl, key)
        if key in out:
            raise ValueError("--remap: two keys become %s" % key)
        out[key] = value
    return out


def run_weights(args):
    """Convert (and load into --model); exit status 1 with the reason on error."""
    from burn import nn
    from burn.host.export.source import load_factory
    from burn.host.importers import safetensors_file
    from burn.host.importers.state_load import load_state

    src = Path(args.model)
    out = Path(args.output) if args.output else src.with_suffix(".safetensors")
    try:
        if out.suffix != ".safetensors":
            raise ValueError("-o %s: weights are written as .safetensors" % out)
        rules = _rules(args.remap)
        state = _state(src, args.key)
        if args.factory:
            model = load_factory(args.factory)()
            if not isinstance(model, nn.Module):
                raise ValueError("%s returned %s, not a burn.nn Module"
                                 % (args.factory, type(model).__name__))
            report = load_state(model, state, remap=rules, strict=args.strict)
            print(report, file=sys.stderr)
            state = model
        else:
            state = _renamed(state, rules)
            report = None
        size = safetensors_file.save(state, out, metadata={"source": src.name})
    except (OSError, ValueError) as e:
        reason = " ".join(str(e).split())
        if not reason.startswith("%s: " % src):  # a reader's own message names the file
            reason = "%s: %s" % (src, reason)
        print("burn import: " + reason, file=sys.stderr)
        return 1
    count = len(report.applied) if report else len(state)
    print("wrote %s: %d bytes, %d tensors" % (out, size, count))
    return 0
