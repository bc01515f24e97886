"""int8 models on the emulated RP2040, one row per (model, runtime): cycles and ms per
inference, heap in use, flash bytes, bit-exactness with TFLM, and the unicorn kernel
estimate (benchmarks/flex_cortex_m.py) with the ratio board / estimate.

Models: the MLPerf Tiny KWS and ResNet-8 from $BURN_MODELS_DIR (benchmarks/model_files.py;
when one that is asked for is absent the run stops with status 2, and `--models mobilenet`
runs without them), the MobileNetV1-0.25 96x96 of tests/mobilenet_model.py, and any
.tflite / .bst given on the command line. Runtimes:

    plain       burn's firmware, plain Python kernels   (burn.load(path, "plain"))
    viper       burn's firmware, frozen viper kernels   (burn.load(path, "fast"))
    flex        burn's firmware, flex C module compiled in
    flex-stock  stock RPI_PICO firmware, core .mpy files + burnflex.mpy native module

Each firmware runs on its own emulated board (rp2040js) whose flash image is kept in the
cache (bench/ under $BURN_CACHE_DIR or ~/.cache/burn), so files already on it are not sent
again. Models go into the ROMFS partition (weights used in place) while they fit, else onto
the littlefs filesystem (weights streamed into layer buffers); the `where` column says which.
Cycles: time.ticks_us() around inference times machine.freq() / 1e6 (the emulator's timer
follows emulated cycles at 125 MHz; flash reads cost nothing extra there). Heap: gc.mem_alloc()
after loading the model and one inference, minus its value before `import burn`, after a soft
reset. Goals printed beside the figures:

    KWS and ResNet-8 on flex (both builds)   cycles <= 1.15 x the unicorn estimate
    MobileNet-class on flex                  <= 55 M cycles (0.44 s at 125 MHz)
    KWS heap in use                          <= TFLM's arena 24,272 B + 16 KB

The plain runtime is slow on the emulator (about 45 M emulated cycles per wall second: a
KWS inference takes minutes); every board run is bounded by --timeout.

Cores (`--cores 1,2`): the flex runtimes run on core 0 alone (burn.load(..., cores=1)) and
on both cores (burnflex splits the large ops between core 0 and core 1 where the firmware has
the second core); each model then gets its two-core speed-up, beside pico-tflmicro's
published person_detect times as the reference line. Two-core goals:

    MobileNet-class (person_detect's shape)  <= 36.7 M cycles (half of pico-tflmicro's 587 ms)
    KWS                                      <= 9.0 M cycles
    speed-up of the conv-heavy models        >= 1.8 x

Run: python benchmarks/rp2040_models.py [--models kws,mobilenet] [--runtimes flex,viper]
                                        [--cores 1,2] [--ops-from-models] [FILE ...]
(`--ops-from-models`: burn's firmware built for the models run, with control flow for a
model with resource variables, IF or WHILE, which the default firmware leaves out: such as
the streaming wake-word model that `python tests/tflite_tf_models.py DIR` writes as
DIR/wakeword_stream.tflite.)
"""

import argparse
import ast
import hashlib
import re
import sys
import time
from pathlib import Path

from burn.bst import BstFile
from burn.host import romfs
from burn.host.bst_writer import encode_bst
from burn.host.cache import cache_dir
from burn.host.importers.tflite import import_tflite
from burn.host.link import LinkError, LinkTimeout
from burn.host.link.files import remote_hashes
from burn.host.romfs import write as romfs_write

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

from flex_cortex_m import model_estimate  # noqa: E402
from mobilenet_model import mobilenet_v1  # noqa: E402
from model_files import MODELS_DIR, require  # noqa: E402

CLOCK_HZ = 125e6
DEFAULT_MODELS = {"kws": "kws_ref_model.tflite", "resnet8": "pretrainedResnet_quant.tflite",
                  "mobilenet": None}
# runtime -> (firmware flavour, burn.load variant)
RUNTIMES = {"plain": ("burn", "plain"), "viper": ("burn", "fast"), "flex": ("burn", "flex"),
            "flex-stock": ("stock", "flex")}
ESTIMATE_GOAL = 1.15
MOBILENET_GOAL = 55e6
KWS_HEAP_GOAL = 24272 + 16 * 1024
DUAL_GOALS = {"mobilenet": 36.7e6, "kws": 9.0e6}
SPEEDUP_GOAL = 1.8
# github.com/raspberrypi/pico-tflmicro, benchmark_results.txt: person_detect on a Pico
TFLMICRO_REFERENCE = ("pico-tflmicro's published person_detect on a real Pico "
                      "(benchmark_results.txt): 823 ms on one core, 587 ms on two "
                      "(102.9 M and 73.4 M cycles at 125 MHz)")
REMOTE_DIR = "/bench"


def say(text):
    """Progress, on stderr."""
    print("  " + text, file=sys.stderr, flush=True)


# ---- the models ---------------------------------------------------------------------------------


class Case:
    """One model: `name`, the `.bst` bytes, its first reference vector (input bytes, output
    values) or None, and the unicorn estimate (cycles, MACs) once made."""

    def __init__(self, name, data):
        self.name = name
        self.data = data
        self.reference = _first_vector(data)
        self.estimate = None
        self.where = None  # the path the board loads it from
        self.where_text = None


def _first_vector(data):
    """(input bytes, output list) of the file's first int8 reference vector, or None."""
    bst = BstFile(data, 64 << 20)
    bst.parse()
    if not bst.tests or len(bst.tests[0][0]) != 1 or bst.blob(bst.tests[0][1][0])[2] != "int8":
        return None
    ins, outs = bst.tests[0]
    return bytes(bst.blob_bytes(ins[0])), list(bst.blob_array(outs[0]))


def _bst_bytes(path, tests):
    data = Path(path).read_bytes()
    if path.suffix == ".bst":
        return data
    return encode_bst(import_tflite(data, tests=tests))


def load_cases(names, extra, tests):
    """The Cases of the default models named in `names` and of the files `extra`."""
    cases = []
    for name in names:
        if name == "mobilenet":
            say("building the MobileNetV1-0.25 96x96 model")
            cases.append(Case(name, encode_bst(import_tflite(mobilenet_v1(), tests=tests))))
            continue
        path = Path(MODELS_DIR, DEFAULT_MODELS[name])
        cases.append(Case(name, _bst_bytes(path, tests)))
    for path in extra:
        name = re.sub(r"[^A-Za-z0-9_-]", "_", path.stem)
        try:
            cases.append(Case(name, _bst_bytes(path, tests)))
        except (OSError, ValueError) as exc:
            print("%s: not benchmarked: %s" % (path, exc))
    return cases


# ---- the boards ---------------------------------------------------------------------------------


def firmware(flavour, ops=None):
    """The UF2 of burn's (or the stock) RP2040 firmware, built or taken from the cache;
    burn's with kernels `ops` (burn firmware build --ops-from) unless None."""
    from burn.host.firmware.build import build_firmware

    say("firmware (%s): building or taking it from the cache" % flavour)
    return build_firmware("rp2040", stock=flavour == "stock",
                          ops=ops if flavour != "stock" else None,
                          progress=lambda phase, percent=None: percent is None and say(phase)).uf2


def kernels_of_cases(cases):
    """The kernel selection (burn.host.firmware.ops_select) of the models of `cases`."""
    from burn.host.firmware import ops_select

    return ops_select.kernels_of([case.data for case in cases])


def put_files(link, files):
    """Send the files of {remote path: bytes} whose hash differs on the board."""
    have = remote_hashes(link, list(files))
    send = {remote: data for remote, data in files.items()
            if have.get(remote) != hashlib.sha256(data).hexdigest()}
    if send:
        say("sending %d files, %d bytes: %s" % (len(send), sum(map(len, send.values())),
                                                ", ".join(sorted(send))[:200]))
    for remote, data in send.items():
        link.put_file(data, remote)


def place_models(link, cases):
    """Put the models in the ROMFS partition in order while they fit, the rest on littlefs;
    set each case's `where` and `where_text`. Also sends each first reference input."""
    found = romfs_write.partition(link)
    in_rom = {}
    for case in cases:
        trial = dict(in_rom, **{case.name + ".bst": case.data})
        if found is not None and romfs.bytes_needed(map(len, trial.values()), found[1]) \
                <= found[0]:
            in_rom = trial
            case.where, case.where_text = "%s/%s.bst" % (romfs.ROM_MOUNT, case.name), "rom"
        else:
            case.where = "%s/%s.bst" % (REMOTE_DIR, case.name)
            case.where_text = "fs (no ROMFS partition)" if found is None else (
                "fs (over the %d KB ROMFS)" % (found[0] // 1024))
    if in_rom:
        say("ROMFS image: %s" % ", ".join(sorted(in_rom)))
        if romfs_write.deploy(link, in_rom):
            say("ROMFS partition written")
    files = {c.where: c.data for c in cases if c.where.startswith(REMOTE_DIR)}
    files.update({"%s/%s.in0" % (REMOTE_DIR, c.name): c.reference[0]
                  for c in cases if c.reference is not None})
    if files:
        link.exec("import os\ntry:\n os.mkdir(%r)\nexcept OSError:\n pass" % REMOTE_DIR)
        put_files(link, files)


def stock_software(link):
    """Put the core (.mpy) and burnflex.mpy on a stock firmware's filesystem."""
    from burn.host.deploy.board_software import plan_software
    from burn.host.deploy.probe import probe

    facts = probe(link)
    soft = plan_software(link, facts, facts.arch, say)
    if "/lib/burnflex.mpy" not in soft.files:
        print("flex-stock: no burnflex.mpy for this board: %s" % soft.flex_text)
    put_files(link, soft.files)


# ---- one measurement ----------------------------------------------------------------------------

_MEASURE = """
import gc, time, machine
gc.collect()
_h0 = gc.mem_alloc()
import burn
_r = {'freq': machine.freq()}
try:
    _m = burn.load(%(path)r, %(variant)r, cores=%(cores)r)
except (MemoryError, ValueError) as _e:
    _m = None
    _r['error'] = 'load: %%s: %%s' %% (type(_e).__name__, _e)
if _m is not None:
    _r['backend'] = _m.backend
    if %(self_test)r:
        try:
            _r['tests'] = _m.self_test()
        except ValueError as _e:
            _r['mismatch'] = str(_e)
        _t0 = time.ticks_ms()
        _t = time.ticks_us()
        _m.invoke()
        _r['us'] = time.ticks_diff(time.ticks_us(), _t)
    else:
        if %(vector)r:
            with open(%(vector)r, 'rb') as _f:
                _f.readinto(_m.input_buffer())
        _t0 = time.ticks_ms()
        _t = time.ticks_us()
        _m.invoke()
        _r['us'] = time.ticks_diff(time.ticks_us(), _t)
        _r['out'] = list(_m.outputs())
    gc.collect()
    _r['heap'] = gc.mem_alloc() - _h0
    _n = 1
    while _n < %(runs)d and time.ticks_diff(time.ticks_ms(), _t0) < 1000:
        _t = time.ticks_us()
        _m.invoke()
        _r['us'] = min(_r['us'], time.ticks_diff(time.ticks_us(), _t))
        _n += 1
    _r['runs'] = _n
    _r['cores'] = _m.info()['cores']['used']
    if _m._plan:
        _r['backend'] += ' (plan)'  # one burnflex.run_plan call an inference
print(repr(_r))
"""

_TIME_ONE = """
_t = time.ticks_us()
_m.invoke()
print(time.ticks_diff(time.ticks_us(), _t))
"""


def measure(link, case, variant, timeout, cores=None):
    """The board's figures for `case` under burn.load variant `variant` (a dict), or a dict
    with 'error'. The plain runtime runs the first reference vector once and is compared
    here; the others run the file's self-test, then the best of up to 3 timed runs (one
    when a run takes over a second)."""
    plain = variant == "plain"
    vector = "%s/%s.in0" % (REMOTE_DIR, case.name) if case.reference is not None else None
    code = _MEASURE % {"path": case.where, "variant": variant, "self_test": not plain,
                       "vector": vector, "runs": 1 if plain else 3, "cores": cores}
    link.soft_reset()
    try:
        found = ast.literal_eval(link.exec(code, timeout=timeout).strip().splitlines()[-1])
    except LinkTimeout:
        return {"error": "TIMEOUT: no result within %g s of wall time (raise --timeout)"
                % timeout}
    except LinkError as exc:
        return {"error": "board error: %s" % str(exc).strip().splitlines()[-1]}
    if "out" in found and case.reference is not None:
        want = case.reference[1]
        bad = [i for i, (g, w) in enumerate(zip(found["out"], want)) if g != w]
        if bad or len(found["out"]) != len(want):
            found["mismatch"] = "vector 0: output element %d is %r, TFLM's is %r" % (
                bad[0], found["out"][bad[0]], want[bad[0]]) if bad else "output length"
        else:
            found["tests"] = "vector 0"
    return found


def timer_check(board, link):
    """One more timed inference of the loaded model, bracketed by the emulator's own cycle
    counter: (cycles from ticks_us, counter delta for the whole REPL exchange)."""
    before = board.cycles()
    us = int(link.exec(_TIME_ONE, timeout=600).strip().splitlines()[-1])
    return round(us * CLOCK_HZ / 1e6), board.cycles() - before


# ---- the report ---------------------------------------------------------------------------------

HEADER = "%-10s %-10s %-11s %13s %9s %8s %8s %-24s %-28s %12s %6s  %s" % (
    "model", "runtime", "backend", "cycles", "ms@125", "heap", "flash", "where", "bit-exact",
    "estimate", "ratio", "goal")


def _goal(case, runtime, cycles, heap, cores):
    goals = []
    flex = runtime.startswith("flex")
    if flex and case.name in ("kws", "resnet8") and case.estimate and cycles:
        ratio = cycles / case.estimate[0]
        goals.append("ratio <= %.2f: %s" % (ESTIMATE_GOAL, "met" if ratio <= ESTIMATE_GOAL
                                             else "MISSED"))
    if flex and case.name == "mobilenet" and cycles and cores == 1:
        goals.append("<= 55 M cycles: %s" % ("met" if cycles <= MOBILENET_GOAL else "MISSED"))
    if flex and cores == 2 and case.name in DUAL_GOALS and cycles:
        goal = DUAL_GOALS[case.name]
        goals.append("<= %.1f M cycles: %s" % (goal / 1e6, "met" if cycles <= goal
                                                else "MISSED"))
    if case.name == "kws" and heap is not None:
        goals.append("heap <= %d: %s" % (KWS_HEAP_GOAL, "met" if heap <= KWS_HEAP_GOAL
                                          else "MISSED"))
    return "; ".join(goals)


def row(case, runtime, found, cores=1):
    """One line of the table."""
    estimate = case.estimate[0] if case.estimate else None
    if cores == 2:
        runtime += "/2 cores" if found.get("cores") == 2 else "/1 core"
    if "error" in found:
        return "%-10s %-10s %s" % (case.name, runtime, found["error"])
    cycles = round(found["us"] * found["freq"] / 1e6)
    if "mismatch" in found:
        exact = "NOT bit-exact: " + found["mismatch"]
    elif "tests" in found:
        exact = "yes (%s)" % (found["tests"] if isinstance(found["tests"], str)
                              else "%d vectors" % found["tests"])
    else:
        exact = "no reference vectors"
    return "%-10s %-10s %-11s %13s %9.1f %8d %8d %-24s %-28s %12s %6s  %s" % (
        case.name, runtime, found["backend"], "{:,}".format(cycles), cycles / CLOCK_HZ * 1e3,
        found["heap"], len(case.data), case.where_text, exact,
        "{:,}".format(estimate) if estimate else "-",
        "%.2f" % (cycles / estimate) if estimate else "-",
        _goal(case, runtime, cycles, found["heap"], cores))


# ---- the run ------------------------------------------------------------------------------------


def run_firmware(flavour, runtimes, cases, timeout, rows, cores=(1,), speedups=None,
                 ops=None):
    """Boot the emulated board of `flavour`, place the models and measure every (model,
    runtime); appends the lines to `rows` as they come."""
    from burn.host.emulator.board import EmulatedBoard
    from burn.host.link.link import Link

    image = cache_dir("bench") / ("rp2040-%s%s.img" % (flavour, "-ops" if ops else ""))
    with EmulatedBoard("rp2040", firmware=firmware(flavour, ops), flash_image=image) as board:
        link = Link(board.port)
        try:
            say("%s firmware running on the emulated RP2040 (flash image %s)" % (flavour, image))
            if flavour == "stock":
                stock_software(link)
            place_models(link, cases)
            checked = False
            for case in cases:
                for runtime in runtimes:
                    for n in cores if runtime.startswith("flex") else (1,):
                        say("%s on %s, %d core(s) ..." % (case.name, runtime, n))
                        start = time.monotonic()
                        found = measure(link, case, RUNTIMES[runtime][1], timeout, n)
                        say("  done in %.0f s of wall time" % (time.monotonic() - start))
                        line = row(case, runtime, found, n)
                        rows.append(line)
                        print(line, flush=True)
                        if speedups is not None and "us" in found:
                            speedups.setdefault((case.name, runtime), {})[n] = found["us"]
                    if not checked and "error" not in found and runtime != "plain":
                        ticks, counted = timer_check(board, link)
                        checked = True
                        print("timer check (%s, %s): ticks_us x 125 = %s cycles; the emulator's "
                              "counter saw %s for the whole REPL exchange around it"
                              % (case.name, runtime, "{:,}".format(ticks),
                                 "{:,}".format(counted)))
        finally:
            link.close()


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Goals: KWS/ResNet-8 flex <= 1.15x the unicorn estimate, MobileNet-class flex "
               "<= 55 M cycles, KWS heap <= 40,656 B. Flash images are kept in %s."
               % cache_dir("bench"))
    parser.add_argument("files", nargs="*", type=Path,
                        help="more models to run (.tflite, imported here, or .bst)")
    parser.add_argument("--models", default=",".join(DEFAULT_MODELS),
                        help="default models to run, comma-separated, from %s (default all; "
                             "'' for none)" % ", ".join(DEFAULT_MODELS))
    parser.add_argument("--runtimes", default=",".join(RUNTIMES),
                        help="comma-separated, from %s (default all)" % ", ".join(RUNTIMES))
    parser.add_argument("--timeout", type=float, default=900.0,
                        help="wall seconds one board run (load, check, time) may take "
                             "(default 900; the plain runtime needs minutes per model)")
    parser.add_argument("--cores", default="1",
                        help="comma-separated core counts for the flex runtimes: 1, 2 or 1,2 "
                             "(default 1; 1,2 reports each model's two-core speed-up)")
    parser.add_argument("--ops-from-models", action="store_true",
                        help="run burn's firmware built for the models run (burn firmware "
                             "build --ops-from): their kernels, and control flow for models "
                             "with variables, IF or WHILE, which the default leaves out")
    parser.add_argument("--tests", type=int, default=2,
                        help="TFLM reference vectors put into imported models (default 2)")
    args = parser.parse_args(argv)
    names = [n for n in args.models.split(",") if n]
    runtimes = [r for r in args.runtimes.split(",") if r]
    unknown = [n for n in names if n not in DEFAULT_MODELS] + [
        r for r in runtimes if r not in RUNTIMES]
    if unknown:
        parser.error("unknown model or runtime: %s" % ", ".join(unknown))
    cores = sorted({int(c) for c in args.cores.split(",") if c.strip()} if
                   set(args.cores.replace(",", "").strip()) <= set("12") else ())
    if not cores:
        parser.error("--cores takes 1, 2 or 1,2")
    require([DEFAULT_MODELS[n] for n in names if DEFAULT_MODELS[n]])
    cases = load_cases(names, args.files, args.tests)
    if not cases or not runtimes:
        print("nothing to run")
        return 1
    for case in cases:
        say("unicorn estimate of %s (flex kernels, Cortex-M0+ -Os)" % case.name)
        try:
            case.estimate = model_estimate(case.data)
        except Exception as exc:  # the board figures stand without it
            print("%s: no unicorn estimate: %s" % (case.name, exc))
    rows = []
    speedups = {}
    print(HEADER, flush=True)
    for flavour in ("burn", "stock"):
        chosen = [r for r in runtimes if RUNTIMES[r][0] == flavour]
        if not chosen:
            continue
        try:
            run_firmware(flavour, chosen, cases, args.timeout, rows, cores, speedups,
                         kernels_of_cases(cases) if args.ops_from_models else None)
        except Exception as exc:  # report the firmware's failure and go on with the other
            print("%s firmware: not measured: %s" % (flavour, exc))
    print("\n" + HEADER)
    print("\n".join(rows))
    for (name, runtime), us in sorted(speedups.items()):
        if 1 in us and 2 in us:
            ratio = us[1] / us[2]
            print("%s on %s: two-core speed-up %.2fx (goal >= %.1f: %s)" % (
                name, runtime, ratio, SPEEDUP_GOAL, "met" if ratio >= SPEEDUP_GOAL else "MISSED"))
    if 2 in cores:
        print("reference: " + TFLMICRO_REFERENCE)
    for case in cases:
        if case.estimate:
            print("%s: %s MACs, unicorn estimate %s cycles (%.2f per MAC)" % (
                case.name, "{:,}".format(case.estimate[1]), "{:,}".format(case.estimate[0]),
                case.estimate[0] / case.estimate[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
