"""Seeded mutation fuzz of `burn import`: bit flips, byte overwrites and truncations of a
.tflite file, each fed to the `import` subcommand.

Every case must end in one of two ways: exit status 0 with a `.bst` that `burn.load`
accepts, or exit status 1 with one clean `burn import: ...` line and nothing left on disk.
Anything else is counted: a traceback (an exception escaped the command), a hang (a case
ran past its time limit) or a crash (the process died).

The cases run in one child process that loops; the parent watches it with a per-case time
limit, and when the child dies or hangs it records that case and starts a new child at the
next one. Case `i` depends only on (seed, i), so a restart replays nothing.

    python tests/importer_fuzz.py --cases 500 --seed 1 [--model kws_ref_model.tflite]
"""

import argparse
import io
import json
import os
import random
import select
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stderr
from pathlib import Path

TESTS = Path(__file__).resolve().parent
OUTCOMES = ("bst", "error", "traceback", "hang", "crash")
_WORDS = (0, 1, 0x7F, 0x80, 0xFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFF, 0x10000)


def structure_positions(data):
    """Byte positions outside the constant buffers' data: the flatbuffer tables, where a
    mutation changes shapes, indices and options rather than weights."""
    import tflite

    model = tflite.Model.GetRootAsModel(data, 0)
    inside = bytearray(len(data))
    for i in range(model.BuffersLength()):
        b = model.Buffers(i)
        o = b._tab.Offset(4)
        if o:
            start = b._tab.Vector(o)
            inside[start:start + b.DataLength()] = b"\x01" * b.DataLength()
    return [p for p in range(len(data)) if not inside[p]]


def mutate(data, structure, seed, case):
    """The bytes of case `case`: a deterministic mutation of `data`."""
    rng = random.Random(seed * 1000003 + case)
    out = bytearray(data)

    def pos():
        return rng.choice(structure) if rng.random() < 0.7 else rng.randrange(len(out))

    kind = rng.choice(("flip", "overwrite", "word", "truncate", "mixed"))
    if kind in ("flip", "mixed"):
        for _ in range(rng.randint(1, 6)):
            out[pos()] ^= 1 << rng.randrange(8)
    if kind in ("overwrite", "mixed"):
        for _ in range(rng.randint(1, 4)):
            out[pos()] = rng.randrange(256)
    if kind == "word":
        p = min(pos(), len(out) - 4)
        out[p:p + 4] = rng.choice(_WORDS).to_bytes(4, "little")
    if kind in ("truncate", "mixed") and rng.random() < (1.0 if kind == "truncate" else 0.3):
        out = out[:rng.randrange(len(out))]
    return bytes(out)


def run_import(parser, data, folder, source, output, extra, check):
    """(outcome, detail) of `burn import SOURCE -o OUTPUT EXTRA...` with `data` as the
    source file, in `folder`. `check(out)` raises when a written file is wrong and returns
    the names of the files the import should have left."""
    src = Path(folder) / source
    out = Path(folder) / output
    src.write_bytes(data)
    err = io.StringIO()
    try:
        with redirect_stderr(err):
            args = parser.parse_args(["import", str(src), "-o", str(out), *extra])
            rc = args.run(args)
    except BaseException as e:  # any escape is what this fuzz counts
        return "traceback", "%s: %s" % (type(e).__name__, str(e)[:200])
    left = sorted(p.name for p in Path(folder).iterdir() if p.name != source)
    lines = [ln for ln in err.getvalue().splitlines() if not ln.startswith("  ")]
    if "Traceback" in err.getvalue():
        return "traceback", err.getvalue()[-300:]
    if rc == 0:
        try:
            wanted = check(out)
        except Exception as e:  # the check reports every failure
            return "traceback", "written file rejected: %s: %s" % (type(e).__name__, e)
        return ("bst", "") if left == wanted else ("traceback", "files left: %s" % left)
    if rc != 1 or left or len(lines) != 1 or not lines[0].startswith("burn import: "):
        return "traceback", "rc %r, files %s, stderr %r" % (rc, left, err.getvalue()[-300:])
    return "error", lines[0][:300]


def check_bst(out):
    """A written .bst must load."""
    import burn

    burn.load(str(out))
    return [out.name]


def child(args, positions=None, run_case=None):
    """Loop over cases [first, cases), printing BEGIN/END lines for the watching parent.
    `positions(data)` and `run_case(parser, data, case, folder)` default to this file's
    .tflite ones."""
    from burn.host.cli import build_parser

    def tflite_case(parser, data, case, folder):
        tests = 1 if args.tflm_every and case % args.tflm_every == 0 else 0
        return run_import(parser, data, folder, "m.tflite", "m.bst", ["--tests", str(tests)],
                          check_bst)

    # The protocol gets its own copy of stdout; what the command prints goes nowhere.
    proto = os.fdopen(os.dup(1), "w")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    data = Path(args.model).read_bytes()
    structure = (positions or structure_positions)(data)
    parser = build_parser()
    with tempfile.TemporaryDirectory() as folder:
        for case in range(args.first, args.cases):
            print("BEGIN %d" % case, file=proto, flush=True)
            outcome, detail = (run_case or tflite_case)(
                parser, mutate(data, structure, args.seed, case), case, folder)
            for p in Path(folder).iterdir():
                p.unlink()
            print("END %d %s" % (case, json.dumps([outcome, detail])), file=proto, flush=True)


def _readline(proc, deadline):
    """The child's next stdout line, or None when it does not come before `deadline`."""
    remaining = deadline - time.monotonic()
    if remaining <= 0 or not select.select([proc.stdout], [], [], remaining)[0]:
        return None
    return proc.stdout.readline()


def fuzz(model, cases, seed=1, tflm_every=10, case_timeout=20.0, script=None):
    """Run the fuzz over `model` (a path); returns ({outcome: count}, [bad cases]).
    `script` is the child's program (default this file; tests/onnx_fuzz.py for ONNX)."""
    counts = dict.fromkeys(OUTCOMES, 0)
    bad = []
    case = 0
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(TESTS)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    while case < cases:
        cmd = [sys.executable, script or __file__, "--child", "--model", str(model), "--cases",
               str(cases), "--first", str(case), "--seed", str(seed), "--tflm-every",
               str(tflm_every)]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True, env=env)
        started = None
        outcome = None
        while True:
            # Starting the child (imports) gets its own allowance on top of a case's.
            limit = case_timeout if started else case_timeout + 30
            line = _readline(proc, time.monotonic() + limit)
            if line is None:
                outcome = ("hang", "no answer in %.0f s" % limit)
                proc.kill()
                break
            if not line:
                outcome = ("crash", "exit status %s" % proc.wait())
                break
            word, num, *rest = line.split(" ", 2)
            case = int(num)
            if word == "BEGIN":
                started = True
                continue
            result, detail = json.loads(rest[0])
            counts[result] += 1
            if result not in ("bst", "error"):
                bad.append((case, result, detail))
            case += 1
            if case >= cases:
                break
        proc.wait()
        if outcome is not None and case < cases:
            counts[outcome[0]] += 1
            bad.append((case, outcome[0], outcome[1]))
            case += 1
    return counts, bad


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default=None, help="the .tflite to mutate (default: the KWS "
                   "reference model, or a small builder-made model when it is absent)")
    p.add_argument("--cases", type=int, default=500)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--tflm-every", type=int, default=10,
                   help="every Nth case also runs TFLM reference tests (0: never)")
    p.add_argument("--case-timeout", type=float, default=20.0)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args)
        return 0
    with tempfile.TemporaryDirectory() as folder:
        model = args.model or fuzz_model(folder)
        t0 = time.monotonic()
        counts, bad = fuzz(model, args.cases, args.seed, args.tflm_every, args.case_timeout)
    for case, outcome, detail in bad:
        print("case %d: %s: %s" % (case, outcome, detail))
    print("%s: %d cases in %.1f s: %s" % (Path(model).name, args.cases,
                                        time.monotonic() - t0, counts))
    return 1 if bad else 0


def fuzz_model(folder):
    """The KWS reference model when present, else a small builder-made int8 CNN written
    into `folder`; returns its path."""
    sys.path.insert(0, str(TESTS))
    from reference_models import MODELS

    kws = MODELS / "kws_ref_model.tflite"
    if kws.is_file():
        return kws
    from tflite_models import small_cnn

    path = Path(folder) / "small_cnn.tflite"
    path.write_bytes(small_cnn())
    return path


if __name__ == "__main__":
    sys.exit(main())
