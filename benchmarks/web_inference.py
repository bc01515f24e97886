"""burn in the browser against onnxruntime-web: int8 inference latency in headless Chromium.

usage: python benchmarks/web_inference.py [--runs 25] [--rounds 20] [--loads 3]

In one Chromium session, on a site that `burn web build` wrote with the MLPerf Tiny models
found (KWS; ResNet-8 when present; docs/reference-models.md) and TFLM's person_detect.tflite
(MobileNetV1-0.25 on a 96x96x1 image, from the TFLM checkout at $BURN_TFLM:
benchmarks/model_files.py; left out with a note when that is not set or lacks the file), each
model is timed on:
  - flex-wasm: the site's flex.wasm running the model's plan blob (burn_web's flex_wasm.js,
    the input copied in, one flex_plan_run call, the outputs copied out);
  - onnxruntime-web's wasm backend, one thread, on the model's ONNX twins (the same int8
    weights and scales: benchmarks/onnx_twin.py), with uint8 activations (the form its
    quantized kernels are fast on; the ratio is against this one) and with TFLite's int8
    activations, session.run with a tensor of the input;
  - the page itself (index.html?model=...&run=1): the inference as burn's Model runs it on
    MicroPython's WebAssembly port, on flex-wasm, then with kernels=plain on the plain
    Python kernels;
on the model's first self-test input, `--runs` inferences after 20 warm-up runs, in
`--rounds` alternating rounds (the median round is reported, and the fastest: on a busy host
the fastest rounds are those least disturbed, which short rounds make likelier). The page is
also loaded `--loads` times for the time from navigation to the first inference done, and the
site's size is reported (without the models and the emulated Pico, whose pico/ folder holds a
ROMFS image of each model, and in all). flex-wasm's outputs must equal TFLM's (the .bst's
vectors) bit for bit; onnxruntime's are reported as how many elements differ and by how many
LSB at most.
Goal: flex-wasm <= 1.0x onnxruntime-web; first inference <= 2 s after page load.
onnxruntime-web (pinned below) is installed with npm into burn's cache on first use.
Exit status 2 when KWS, Chromium or npm is missing.
"""

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from model_files import MODELS_DIR, PERSON_DETECT, require, tflm_model
from onnx_twin import onnx_twin

import burn
from burn.host.cache import cache_dir
from burn.host.importers.tflite import import_tflite
from burn.host.node import ensure_package
from burn.host.web.browser import BrowserMissing, headless_chromium
from burn.host.web.serve import serve_in_thread
from burn.host.web.site import build_site, site_bytes

ORT_WEB = ("onnxruntime-web", "1.30.0")
ORT_FORMS = {"uint8": "u8", "int8": "s8"}  # the twins' activations
ORT_FILES = ("ort.wasm.min.mjs", "ort-wasm-simd-threaded.mjs", "ort-wasm-simd-threaded.wasm")
MODELS = (("kws", "kws_ref_model.tflite"), ("resnet8", "pretrainedResnet_quant.tflite"))
PAGE = """<!doctype html><meta charset="utf-8"><title>flex-wasm vs onnxruntime-web</title>
<script type="module" src="bench.js"></script>
"""


def _ort_dist():
    package, version = ORT_WEB
    folder = Path(cache_dir("onnxruntime-web")) / ("%s-%s" % (package, version))
    return ensure_package(package, version, folder, "dist/" + ORT_FILES[0]).parent


def _models():
    """([(name, path)], [note]): KWS (required), the others found, and a note for each of
    the TFLM checkout's models left out."""
    require([MODELS[0][1]])
    models = [(name, MODELS_DIR / f) for name, f in MODELS if (MODELS_DIR / f).is_file()]
    person, why = tflm_model(PERSON_DETECT)
    if person:
        return models + [("person", person)], []
    return models, ["person_detect left out: " + why]


def _write_site(root, models, log):
    """Build the site with `models`, then add the benchmark page, the ONNX twins and
    onnxruntime-web; returns (the site's bytes without models and the emulated Pico, the
    Pico's (with its ROMFS image of each model), all of them; the cases)."""
    site = build_site(root, [path for _name, path in models], tests=1, log=log)
    pico = sum(f.stat().st_size for f in (root / "pico").rglob("*") if f.is_file())
    sizes = site_bytes(root, models=False) - pico, pico, site_bytes(root)
    bench = root / "bench"
    bench.mkdir()
    (root / "ort").mkdir()
    for name in ORT_FILES:
        shutil.copy(_ort_dist() / name, root / "ort" / name)
    shutil.copy(Path(__file__).with_suffix(".js"), bench / "bench.js")
    (bench / "index.html").write_text(PAGE)
    cases = []
    for (name, path), entry in zip(models, site["models"]):
        if entry["plan"] is None:
            log("%s: no flex plan (%s); left out" % (name, entry["plan_why"]))
            continue
        graph = import_tflite(path.read_bytes(), tests=1)
        onnx = {form: "%s.%s.onnx" % (name, form) for form in ORT_FORMS}
        for form, file in onnx.items():
            (bench / file).write_bytes(onnx_twin(graph, form))
        n, h, w, c = graph.inputs[0][1]
        ins, outs = graph.tests[0]
        cases.append({"name": name, "plan": entry["plan"], "onnx": onnx,
                      "model": entry["url"],
                      "onnx_shape": [n, 1, h, w] if c == 1 else [n, h, w, c],
                      "input": [int(v) for v in ins[0].reshape(-1)],
                      "expected": [int(v) for v in outs[0].reshape(-1)]})
    return sizes, cases


def _poll(drv, script, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = drv.execute_script(script)
        if value:
            return value
        time.sleep(0.2)
    raise SystemExit("the page did not finish within %d s: %r" % (
        timeout, drv.get_log("browser")[-5:]))


def _page_run(drv, url):
    """window.burnTimings once the page at `url` shows its first inference's top class."""
    drv.get(url)
    text = _poll(drv, "const r = document.getElementById('result').textContent; "
                 "return r.startsWith('top class') || r.startsWith('error') ? r : null", 300)
    if not text.startswith("top class"):
        raise SystemExit("the page at %s says: %s" % (url, text))
    return drv.execute_script("return window.burnTimings")


def _agreement(got, want):
    diffs = [abs(a - b) for a, b in zip(got, want)]
    return sum(d > 0 for d in diffs), max(diffs)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=25)
    p.add_argument("--rounds", type=int, default=20)
    p.add_argument("--loads", type=int, default=3)
    args = p.parse_args()
    log = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731
    models, left_out = _models()
    for note in left_out:
        log(note)
    tmp = Path(tempfile.mkdtemp(prefix="burn-web-bench-"))
    try:
        drv = headless_chromium()
    except BrowserMissing as exc:
        print("web_inference.py: %s" % exc, file=sys.stderr)
        sys.exit(2)
    server = None
    try:
        (bare, pico, full), cases = _write_site(tmp / "site", models, log)
        (tmp / "site" / "bench" / "cases.json").write_text(json.dumps(
            {"cases": cases, "rounds": args.rounds, "runs": args.runs}))
        server = serve_in_thread(tmp / "site")
        url = "http://127.0.0.1:%d/" % server.server_address[1]
        kws = url + "index.html?model=%s&run=1" % cases[0]["model"]
        first = [_page_run(drv, kws)["firstInferenceMs"] for _ in range(args.loads)]
        drv.get(url + "bench/index.html")
        result = _poll(drv, "return window.benchResult", 600)
        if "error" in result:
            raise SystemExit("the benchmark page failed: " + result["error"])
        print("headless Chromium %s, burn %s; %d runs per round, median of %d rounds" % (
            drv.capabilities.get("browserVersion"), burn.__version__, args.runs, args.rounds))
        print("%-8s %14s %14s %14s %11s %9s %10s  %s" % (
            "model", "flex-wasm", "ort u8", "ort s8", "ratio", "page flex", "page plain",
            "outputs against TFLM's"))
        for case, r in zip(cases, result["results"]):
            ms = {k: statistics.median(r[k]) for k in ["flex", *ORT_FORMS]}
            best = {k: min(r[k]) for k in ["flex", *ORT_FORMS]}
            if r["out"]["flex"] != case["expected"]:
                raise SystemExit("%s: flex-wasm's outputs differ from TFLM's" % case["name"])
            page = _page_run(drv, url + "index.html?model=%s&run=1" % case["model"])
            plain = _page_run(drv, url + "index.html?model=%s&run=1&kernels=plain"
                              % case["model"])
            notes = []
            for form in ORT_FORMS:
                n, lsb = _agreement(r["out"][form], case["expected"])
                notes.append("ort %s: %d of %d differ (max %d LSB)" % (
                    ORT_FORMS[form], n, len(case["expected"]), lsb))
            pair = lambda k, ms=ms, best=best: "%6.3f (%6.3f)" % (ms[k], best[k])  # noqa: E731
            print("%-8s %s %s %s %4.2f (%4.2f) %9.0f %10.0f  flex-wasm equal; %s" % (
                case["name"], pair("flex"), pair("uint8"), pair("int8"),
                ms["flex"] / ms["uint8"], best["flex"] / best["uint8"],
                page["lastInferenceMs"], plain["lastInferenceMs"], "; ".join(notes)))
        print("(ms per inference: median round (fastest round); ratio flex-wasm / ort u8; "
              "the page's figures are one inference each, by MicroPython's ms clock)")
        print("first KWS inference done after page load (flex-wasm, %d loads): %s ms" % (
            args.loads, ", ".join("%.0f" % t for t in first)))
        print("site: %d bytes without models and the emulated Pico (flex.wasm %d), %d in "
              "all (the Pico %d)" % (bare, (tmp / "site" / "flex" / "flex.wasm").stat().st_size,
                                     full, pico))
        for note in left_out:
            print(note)
    finally:
        drv.quit()
        if server is not None:
            server.shutdown()
            server.server_close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
