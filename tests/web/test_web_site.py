"""`burn web build` in a real browser: the site is built with the MLPerf Tiny KWS model and a
three-layer 16-unit MLP (both imported from TFLite at build time), served by
burn.host.web.serve from a free local port, and driven in headless Chromium through Selenium
and chromedriver. The page must pass KWS's TFLM reference vectors bit for bit on flex's
wasm32 build (the plan blob the site ships), show an error for a corrupt model and stay
usable after it, and take a .bst file the user picks (the MLP, on the plain Python kernels:
a picked file has no plan blob).

Skipped with the reason and the install line without Chromium and chromedriver, Selenium, or
the WebAssembly port and npm to install it into burn's cache."""

import json

import pytest
from mlp_model import TINY_SIZES, mlp
from reference_models import model_path

from burn.host.bst_writer import encode_bst
from burn.host.cli import main as burn_main
from burn.host.importers.tflite import import_tflite
from burn.host.mpy import webassembly
from burn.host.web.browser import BrowserMissing, headless_chromium
from burn.host.web.flex_plan import NoPlan, plan_blob, read_header
from burn.host.web.serve import serve_in_thread
from burn.host.web.site import WebBuildError, build_site, model_bytes, site_bytes

PAGE_TIMEOUT = 180  # seconds: the runtime starts, then the runs (seconds on the plain kernels)


def _port_or_skip():
    """Install the port into the cache if needed (the build copies it), or skip."""
    try:
        webassembly.installed() or webassembly.ensure_port(log=lambda text: None)
    except webassembly.WebAssemblyError as exc:
        pytest.skip("%s (install the port with: %s)" % (exc, webassembly.install_line()))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A site built with KWS as models/kws.bst and the MLP as models/tiny.bst (two self-test
    vectors each), served locally: (its folder, its base URL)."""
    _port_or_skip()
    tmp = tmp_path_factory.mktemp("web")
    kws = tmp / "kws.tflite"
    kws.symlink_to(model_path("kws_ref_model.tflite"))
    tiny = tmp / "tiny.tflite"
    tiny.write_bytes(mlp(TINY_SIZES))
    root = tmp / "site"
    build_site(root, [kws, tiny], tests=2)
    server = serve_in_thread(root)
    yield root, "http://127.0.0.1:%d/" % server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium driven by chromedriver, or skip with the install lines."""
    try:
        drv = headless_chromium()
    except BrowserMissing as exc:
        pytest.skip(str(exc))
    yield drv
    drv.quit()


def _wait(drv, element, done, timeout=PAGE_TIMEOUT):
    """The text of element id `element` once `done(text)` holds; fails with the page's
    state and console if it does not within `timeout` seconds."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    seen = []
    try:
        WebDriverWait(drv, timeout, poll_frequency=0.2).until(
            lambda d: done(seen.append(d.find_element("id", element).text) or seen[-1]))
    except TimeoutException:
        state = {i: drv.find_element("id", i).text for i in ("status", "result", "info")}
        pytest.fail("the page did not finish: %r; console: %r"
                    % (state, drv.get_log("browser")[-10:]))
    return seen[-1]


def _wait_result(drv, done):
    """The text of #result once `done(text)` holds."""
    return _wait(drv, "result", done)


def _wait_status(drv, text):
    """Wait until #status says `text`."""
    _wait(drv, "status", lambda t: t == text)


def _timings(drv):
    return drv.execute_script("return window.burnTimings")


def test_the_page_passes_kws_self_test_from_the_query(site, browser):
    _root, url = site
    browser.get(url + "index.html?model=models/kws.bst&selftest=1")
    text = _wait_result(browser, lambda t: t.startswith(("self-test", "error")))
    assert text == "self-test passed: 2/2"
    assert "kernels: flex-wasm" in browser.find_element("id", "info").text
    assert browser.find_element("id", "runtime").text.startswith(
        "runs on flex-wasm: flex's wasm32 build, the whole model in one flex_plan_run call")
    t = _timings(browser)
    assert t["runtime"] == "flex-wasm" and t["lastPlanMs"] >= 0
    assert browser.find_element("id", "latency").text.startswith("inference: ")
    print("KWS on flex-wasm in headless Chromium: runtime and burn ready %.0f ms after page "
          "load, self-test done at %.0f ms, %.2f ms per inference (%.2f ms in the plan call)"
          % (t["runtimeMs"], t["firstInferenceMs"], t["lastInferenceMs"], t["lastPlanMs"]))


def test_one_inference_on_random_inputs_shows_outputs_and_latency(site, browser):
    _root, url = site
    browser.get(url + "index.html?model=models/kws.bst&run=1")
    text = _wait_result(browser, lambda t: t.startswith(("top class", "error")))
    assert text.startswith("top class ")
    assert browser.find_element("id", "outputs").text.startswith("output 0 (12 values): ")
    assert browser.find_element("id", "latency").text.startswith("inference: ")
    t = _timings(browser)
    print("KWS in headless Chromium: first inference done %.0f ms after page load (%.1f ms "
          "for the inference)" % (t["firstInferenceMs"], t["lastInferenceMs"]))


def test_a_corrupt_model_shows_an_error_and_the_page_stays_usable(site, browser):
    root, url = site
    good = (root / "models" / "kws.bst").read_bytes()
    (root / "models" / "corrupt.bst").write_bytes(good[:64] + b"\xff" * 200)
    browser.get(url + "index.html?model=models/corrupt.bst&selftest=1")
    text = _wait_result(browser, lambda t: t.startswith(("self-test", "error")))
    assert text.startswith("error: cannot load corrupt.bst: ")
    assert browser.find_element("id", "selftest").get_attribute("disabled")
    # a shipped model, chosen in the list, loads and passes after the error
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element("id", "model")).select_by_value("models/tiny.bst")
    _wait_status(browser, "tiny.bst loaded")
    browser.find_element("id", "selftest").click()
    assert _wait_result(browser, lambda t: t.startswith(("self-test", "error"))) == (
        "self-test passed: 2/2")


def test_a_missing_model_says_so(site, browser):
    _root, url = site
    browser.get(url + "index.html?model=models/none.bst&selftest=1")
    text = _wait_result(browser, lambda t: t.startswith(("self-test", "error")))
    assert text == "error: cannot load none.bst: cannot fetch models/none.bst: 404 File not found"


def test_a_model_the_user_picks_runs(site, browser, tmp_path):
    root, url = site
    picked = tmp_path / "mine.bst"
    picked.write_bytes((root / "models" / "tiny.bst").read_bytes())
    broken = tmp_path / "broken.bst"
    broken.write_bytes(b"not a model at all")
    browser.get(url + "index.html")
    _wait_status(browser, "kws.bst loaded")
    browser.find_element("id", "file").send_keys(str(broken))
    assert _wait_result(browser, lambda t: t.startswith("error")).startswith(
        "error: cannot load broken.bst: ")
    browser.find_element("id", "file").send_keys(str(picked))
    _wait_status(browser, "mine.bst loaded")
    assert browser.find_element("id", "runtime").text == (
        "runs on the plain Python kernels: not a model shipped with the site, so it has no "
        "flex plan")
    browser.find_element("id", "selftest").click()
    assert _wait_result(browser, lambda t: t.startswith(("self-test", "error"))) == (
        "self-test passed: 2/2")


def test_the_site_holds_the_port_the_core_and_the_page(site):
    root, _url = site
    meta = json.loads((root / "site.json").read_text())
    assert meta["port"] == webassembly.VERSION
    assert meta["models"] == [{"name": name, "url": "models/%s.bst" % name,
                               "bytes": (root / "models" / ("%s.bst" % name)).stat().st_size,
                               "plan": "models/%s.flex" % name}
                              for name in ("kws", "tiny")]
    assert (root / meta["flex"]).read_bytes()[:4] == b"\0asm"
    for rel in meta["core"]:
        assert (root / "lib" / "burn" / rel).is_file()
    assert "__init__.py" in meta["core"] and "model.py" in meta["core"]
    for rel in ("index.html", "burn_web.js", "flex_wasm.js", "lib/burn_page.py",
                "micropython/micropython.mjs", "micropython/micropython.wasm"):
        assert (root / rel).is_file(), rel
    print("site without models: %d bytes" % site_bytes(root, models=False))


def test_the_server_gives_wasm_its_mime_type(site):
    _root, url = site
    from urllib.request import urlopen

    with urlopen(url + "micropython/micropython.wasm") as r:
        assert r.headers["Content-Type"] == "application/wasm"
    with urlopen(url + "burn_web.js") as r:
        assert r.headers["Content-Type"] == "text/javascript"


def test_build_refuses_a_non_empty_folder_and_bad_models_leaving_nothing(tmp_path, capsys):
    _port_or_skip()
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    assert burn_main(["web", "build", "-o", str(out)]) == 1
    assert "not empty; pass --force" in capsys.readouterr().err
    bad = tmp_path / "bad.bst"
    bad.write_bytes(b"BST?" + bytes(100))
    with pytest.raises(WebBuildError, match=r"bad\.bst"):
        build_site(out, [bad], force=True)
    assert [p.name for p in out.iterdir()] == ["keep.txt"]  # the old folder untouched
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    assert burn_main(["web", "build", "-o", str(out), "--force"]) == 0
    assert not (out / "keep.txt").exists() and (out / "site.json").is_file()


def test_help_explains_the_page_and_the_query(capsys):
    with pytest.raises(SystemExit) as exit_:
        burn_main(["web", "build", "--help"])
    out = capsys.readouterr().out
    assert exit_.value.code == 0 and "selftest=1" in out and "--force" in out


def test_the_page_module_runs_on_cpython_too(tmp_path):
    """burn_page (the page's Python side) on CPython: the same calls the page makes."""
    from burn.host.web import burn_page

    path = tmp_path / "kws.bst"
    path.write_bytes(model_bytes(model_path("kws_ref_model.tflite")))
    info = json.loads(burn_page.load(str(path)))
    assert info["tests"] == 2 and info["inputs"][0]["shape"] == [1, 49, 10, 1]
    out = json.loads(burn_page.run_random(1))
    assert out["lengths"] == [12] and len(out["outputs"][0]) == 12 and 0 <= out["top"] < 12
    assert json.loads(burn_page.self_test())["ran"] == 2
    bad = tmp_path / "bad.bst"
    bad.write_bytes(b"not a model")
    with pytest.raises(ValueError):
        burn_page.load(str(bad))
    with pytest.raises(ValueError, match="no model is loaded"):
        burn_page.self_test()


def test_the_page_module_runs_a_model_through_the_plan_call(tmp_path):
    """burn_page's flex invoke on CPython, with the host's flex build answering the page's
    plan call (inputs' bytes in, outputs' bytes out): Model.self_test passes on it, and an
    answer of the wrong size is a ValueError."""
    import numpy as np

    import burn
    from burn.host.flex.runtime import use_flex
    from burn.host.web import burn_page

    path = tmp_path / "kws.bst"
    path.write_bytes(model_bytes(model_path("kws_ref_model.tflite")))
    flex = use_flex(burn.load(path.read_bytes()))
    calls = []

    def run(text):
        x = np.frombuffer(bytes.fromhex(json.loads(text)[0]), np.int8)
        calls.append(x.size)
        return json.dumps([np.asarray(flex.run(x), np.int8).tobytes().hex()])

    assert json.loads(burn_page.load(str(path), run))["backend"] == "flex-wasm"
    assert json.loads(burn_page.self_test())["ran"] == 2 and calls == [490, 490]
    burn_page.load(str(path), lambda text: json.dumps(["00" * 11]))
    with pytest.raises(ValueError, match="flex-wasm output 0: 11 values, expected 12"):
        burn_page.run_random(1)


def test_plan_blobs_hold_the_model_or_say_why_not(tmp_path):
    """A plan blob's header places the arena, inputs and outputs inside its image; a model
    without self-test vectors (the trace runs one) gets none, with the reason."""
    tiny = tmp_path / "tiny.tflite"
    tiny.write_bytes(mlp(TINY_SIZES))
    header, image = read_header(plan_blob(model_bytes(tiny)))
    assert header["steps"][0] == "flex_s8_fully_connected" and len(image) == header["data_bytes"]
    for offset, nbytes in header["inputs"] + header["outputs"]:
        assert header["data_bytes"] <= offset and offset + nbytes <= header["memory_bytes"]
    with pytest.raises(NoPlan, match="no self-test vectors"):
        plan_blob(encode_bst(import_tflite(mlp(TINY_SIZES), tests=0)))
    with pytest.raises(ValueError, match="not a flex plan blob"):
        read_header(b"BST?" + bytes(20))

