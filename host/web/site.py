"""`burn web build`: a static site that runs burn's core in the browser.

The site holds MicroPython's WebAssembly port (the pinned npm package, from burn's cache:
burn.host.mpy.webassembly), burn's core as .py files under lib/burn/, the page's Python side
(lib/burn_page.py), index.html, burn_web.js and flex_wasm.js, flex's wasm32 build as
flex/flex.wasm (burn.host.flex.wasm_lib: the project's zig cross build, cached), the models
under models/ (a .tflite is imported and written as .bst here) each with its flex plan blob
models/NAME.flex when every op has a flex plan step (burn.host.web.flex_plan), and
site.json, which lists the core files and the models for the page (a model's "plan", or
null and "plan_why"). It is written into a temporary folder beside the target and renamed
into place at the end, so a failed build leaves nothing half-written.
"""

import json
import os
import shutil
import tempfile
from pathlib import Path

import burn
from burn.host.flex.wasm_lib import module_path
from burn.host.mpy import webassembly
from burn.host.web import pico_site
from burn.host.web.flex_plan import NoPlan, plan_blob

HERE = Path(__file__).resolve().parent
PAGE_FILES = ("index.html", "burn_web.js", "flex_wasm.js")  # beside this module
FLEX_WASM = "flex/flex.wasm"
FLEX_OPT = "-O2"  # KWS under Node.js 20 about 3x as fast as at -Os; 157 KB stripped, -Os 99 KB
PAGE_MODULE = HERE / "burn_page.py"
PORT_FILES = ("micropython.mjs", "micropython.wasm")
HEAP_BYTES = 16 << 20  # MicroPython's heap in the page
DEFAULT_TESTS = 2  # self-test vectors made when a .tflite is imported


class WebBuildError(ValueError):
    """The site cannot be built; the message says why."""


def _check_target(out, force):
    if out.exists() and not out.is_dir():
        raise WebBuildError("%s exists and is not a folder" % out)
    if out.is_dir() and any(out.iterdir()) and not force:
        raise WebBuildError("%s exists and is not empty; pass --force to replace it" % out)


def model_bytes(path, tests=DEFAULT_TESTS):
    """The .bst bytes of model file `path`: a .bst as it is, a .tflite imported by burn's
    importer with `tests` self-test vectors. The model must load on the core's plain kernels
    (those the page runs): WebBuildError naming the file otherwise."""
    path = Path(path)
    try:
        data = path.read_bytes()
        if path.suffix.lower() == ".tflite":
            from burn.host.bst_writer import encode_bst
            from burn.host.importers.tflite import import_tflite
            data = encode_bst(import_tflite(data, tests=tests))
        elif path.suffix.lower() != ".bst":
            raise WebBuildError("a model must be a .bst or .tflite file")
        burn.load(data, variant="plain").close()
    except (OSError, ValueError) as exc:
        raise WebBuildError("%s: %s" % (path, exc)) from None
    return data


def _site_name(path, taken):
    stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in Path(path).stem) or "model"
    name = stem + ".bst"
    if name in taken:
        raise WebBuildError("two models would both be models/%s; rename one" % name)
    taken.add(name)
    return name


def _write_site(root, models, tests, log):
    port = Path(webassembly.ensure_port(log)).parent
    (root / "micropython").mkdir()
    for name in PORT_FILES:
        shutil.copy(port / name, root / "micropython" / name)
    core = []
    for src, dst in webassembly.core_files():
        target = root / dst.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, target)
        core.append(dst[len(webassembly.CORE_ROOT) + 1:])
    shutil.copy(PAGE_MODULE, root / "lib" / PAGE_MODULE.name)
    for name in PAGE_FILES:
        shutil.copy(HERE / name, root / name)
    (root / "flex").mkdir()
    shutil.copy(module_path(FLEX_OPT, strip=True), root / FLEX_WASM)
    shipped, taken = [], set()
    if models:
        (root / "models").mkdir()
    for path in models:
        log("adding model %s" % path)
        data = model_bytes(path, tests)
        name = _site_name(path, taken)
        (root / "models" / name).write_bytes(data)
        entry = {"name": Path(name).stem, "url": "models/" + name, "bytes": len(data),
                 "plan": None}
        try:
            blob = plan_blob(data)
        except NoPlan as exc:
            entry["plan_why"] = str(exc)
            log("%s runs on the plain kernels in the page: %s" % (name, exc))
        else:
            entry["plan"] = "models/%s.flex" % Path(name).stem
            (root / entry["plan"]).write_bytes(blob)
        shipped.append(entry)
    site = {"burn": burn.__version__, "port": webassembly.VERSION, "heap": HEAP_BYTES,
            "flex": FLEX_WASM, "core": core, "models": shipped}
    (root / "site.json").write_text(json.dumps(site, indent=1) + "\n")
    return site


def build_site(out, models=(), force=False, tests=DEFAULT_TESTS, log=None, pico=None):
    """Write the site into folder `out` (see the module docstring) with `models` (paths of
    .bst or .tflite files); returns site.json's contents. An existing non-empty `out` is
    replaced only with `force`. WebBuildError for a bad model or target, WebAssemblyError
    when the port cannot be installed. `pico`: the emulated Pico's firmware (a UF2 path,
    None for the cached build when there is one, False for none; burn.host.web.pico_site
    .add_to_site, which raises PicoBuildError or EmulatorError for a given UF2)."""
    log = log or (lambda text: None)
    out = Path(out)
    _check_target(out, force)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".%s-" % out.name, dir=out.parent))
    old = None
    try:
        site = _write_site(tmp, models, tests, log)
        pico_site.add_to_site(tmp, pico, site["models"], log)
        os.chmod(tmp, 0o755)  # mkdtemp's 0700 would keep a web server of another user out
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=".%s-old-" % out.name, dir=out.parent))
            os.replace(out, old / out.name)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if old is not None and not out.exists():  # put the earlier site back
            os.replace(old / out.name, out)
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    return site


def site_bytes(root, models=True):
    """Total bytes of the files in site folder `root`; without models/ when `models` is
    false."""
    root = Path(root)
    return sum(p.stat().st_size for p in root.rglob("*")
               if p.is_file() and (models or p.relative_to(root).parts[0] != "models"))
