// The page of `burn web build`: starts MicroPython's WebAssembly port, puts burn's core and
// the page's Python side (lib/burn_page.py) into its filesystem, and runs the model the user
// chooses on random inputs or on its self-test vectors. A shipped model with a flex plan blob
// (site.json's "plan") runs on flex's wasm32 build (flex_wasm.js: one flex_plan_run call per
// inference, driven by burn_page's Model); any other runs on the core's plain Python kernels,
// and the page says which ran and why.
//
// Query parameters: model=URL loads that .bst file at start (else the first shipped model);
// selftest=1 then runs its self-test vectors, run=1 one inference on random inputs;
// kernels=plain keeps every model on the plain Python kernels (for comparison). The
// outcome goes into #result ("self-test passed: 2/2", or "error: ..."). window.burnTimings
// holds runtimeMs (the runtime and burn imported) and firstInferenceMs (the first inference
// done), both in ms since the page's navigation started, the last inference's ms
// (lastInferenceMs; lastPlanMs, the flex_plan_run call with its copies, on flex-wasm) and
// the kernels that ran it (runtime: "flex-wasm" or "plain").
import { loadMicroPython } from "./micropython/micropython.mjs";
import { compileFlex, FlexPlan } from "./flex_wasm.js";

const $ = (id) => document.getElementById(id);
const timings = (window.burnTimings = {});
const CURRENT = "/models/current.bst"; // the loaded model's file in the port's filesystem
let mp = null;
let page = null; // the burn_page module
let loaded = false;
let seed = 1;
let flexModule = null; // flex.wasm compiled, or the reason it is not there
let plan = null; // the loaded model's FlexPlan, or null on the plain kernels
let plainWhy = ""; // why the loaded model runs on the plain kernels
let models = []; // site.json's models

const HEX = [...Array(256).keys()].map((b) => b.toString(16).padStart(2, "0"));
const toHex = (bytes) => Array.from(bytes, (b) => HEX[b]).join("");
function fromHex(text) {
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.substr(2 * i, 2), 16);
  return out;
}

// burn_page's flex invoke calls this: the inputs' bytes in, the outputs' bytes out (hex).
const runPlan = (text) => JSON.stringify(plan.run(JSON.parse(text).map(fromHex)).map(toHex));

function show(id, text, cls) {
  $(id).textContent = text;
  if (cls !== undefined) $(id).className = cls;
}

function errorText(error) {
  if (error && error.name === "PythonError") {
    const lines = error.message.trim().split("\n");
    return lines[lines.length - 1];
  }
  return String((error && error.message) || error);
}

// Python runs on this thread: let the browser draw the status line first.
const paint = () => new Promise((resolve) => setTimeout(resolve, 30));

function setBusy(busy) {
  for (const id of ["model", "file"]) $(id).disabled = busy;
  for (const id of ["run", "selftest"]) $(id).disabled = busy || !loaded;
}

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`cannot fetch ${url}: ${response.status} ${response.statusText}`);
  return new Uint8Array(await response.arrayBuffer());
}

function writeFile(path, data) {
  let at = "";
  for (const part of path.split("/").slice(1, -1)) {
    at += "/" + part;
    if (!mp.FS.analyzePath(at).exists) mp.FS.mkdir(at);
  }
  mp.FS.writeFile(path, data);
}

async function startRuntime() {
  const response = await fetch("site.json");
  if (!response.ok) throw new Error(`cannot fetch site.json: ${response.status}`);
  const site = await response.json();
  models = site.models;
  const flex = site.flex ? compileFlex(site.flex).catch((error) => errorText(error)) : null;
  mp = await loadMicroPython({
    heapsize: site.heap,
    stdout: (line) => console.log(line),
    stderr: (line) => console.error(line),
  });
  const files = site.core.map((rel) => ["lib/burn/" + rel, "/lib/burn/" + rel]);
  files.push(["lib/burn_page.py", "/lib/burn_page.py"]);
  const contents = await Promise.all(files.map(([url]) => fetchBytes(url)));
  files.forEach(([, path], k) => writeFile(path, contents[k]));
  page = mp.pyimport("burn_page");
  flexModule = flex === null ? "the site has no flex.wasm" : await flex;
  timings.runtimeMs = performance.now();
  for (const model of site.models) addOption(model.url, `${model.name} (${model.bytes} bytes)`);
  return site;
}

function addOption(url, label) {
  if ([...$("model").options].some((o) => o.value === url)) return;
  const option = document.createElement("option");
  option.value = url;
  option.textContent = label;
  $("model").append(option);
}

function describe(name, info) {
  const io = (items) => items.map((t) => `${t.shape.join("x")} ${t.dtype}`).join(", ");
  return [
    `${name}: ${info.ops} ops (${info.kinds.join(", ")}), ${info.params} parameters, ${info.macs} MACs`,
    `inputs ${io(info.inputs)}; outputs ${io(info.outputs)}`,
    `arena ${info.arena_bytes} bytes, file ${info.flash_bytes} bytes, kernels: ${info.backend}`,
    `self-test vectors: ${info.tests}` + (info.labels.length ? `; labels: ${info.labels.join(", ")}` : ""),
  ].join("\n");
}

// The FlexPlan of the shipped model at `url`, or null with the reason in plainWhy.
async function flexPlan(url) {
  const shipped = models.find((m) => m.url === url);
  if (new URLSearchParams(location.search).get("kernels") === "plain") plainWhy = "kernels=plain in the query";
  else if (!shipped) plainWhy = "not a model shipped with the site, so it has no flex plan";
  else if (!shipped.plan) plainWhy = shipped.plan_why;
  else if (typeof flexModule === "string") plainWhy = `flex.wasm did not load: ${flexModule}`;
  else return FlexPlan.load(flexModule, await fetchBytes(shipped.plan));
  return null;
}

async function loadModel(name, getBytes, url) {
  loaded = false;
  plan = null;
  setBusy(true);
  for (const id of ["result", "latency", "outputs", "info", "runtime"]) show(id, "");
  show("status", `loading ${name} ...`);
  await paint();
  try {
    writeFile(CURRENT, await getBytes());
    plan = await flexPlan(url);
    show("info", describe(name, JSON.parse(plan ? page.load(CURRENT, runPlan) : page.load(CURRENT))));
    timings.runtime = plan ? "flex-wasm" : "plain";
    show("runtime", plan ? `runs on flex-wasm: flex's wasm32 build, the whole model in one ` +
      `flex_plan_run call (${plan.header.steps.length} steps)` :
      `runs on the plain Python kernels: ${plainWhy}`);
    loaded = true;
    show("status", `${name} loaded`);
  } catch (error) {
    show("status", `cannot load ${name}; choose another model`);
    show("result", `error: cannot load ${name}: ${errorText(error)}`, "bad");
  }
  setBusy(false);
  return loaded;
}

function inferenceDone(ms) {
  timings.lastInferenceMs = ms;
  timings.lastPlanMs = plan ? plan.planMs : undefined;
  if (timings.firstInferenceMs === undefined) {
    timings.firstInferenceMs = performance.now();
    show("timings", `runtime and burn ready ${timings.runtimeMs.toFixed(0)} ms after the ` +
      `page started loading; first inference done at ${timings.firstInferenceMs.toFixed(0)} ms`);
  }
  // MicroPython's clock in the port has millisecond steps: on flex-wasm, JavaScript's times
  // the plan call, and the Python around it is given as the clock saw it.
  show("latency", plan ? `inference: ${plan.planMs.toFixed(2)} ms on flex-wasm (the ` +
    `flex_plan_run call with its copies; ${ms < 1 ? "under 1" : ms.toFixed(0)} ms with ` +
    `the Python around it, by MicroPython's millisecond clock)` :
    `inference: ${ms.toFixed(1)} ms on the plain Python kernels`);
}

async function task(what, body, failure) {
  setBusy(true);
  show("result", "");
  show("status", `${what} ...`);
  await paint();
  try {
    body();
    show("status", "ready");
  } catch (error) {
    show("status", "ready");
    show("result", `${failure}: ${errorText(error)}`, "bad");
  }
  setBusy(false);
}

const runRandom = () => task("running one inference on random inputs", () => {
  const r = JSON.parse(page.run_random(seed++));
  inferenceDone(r.ms);
  show("result", `top class ${r.top}` + (r.label === null ? "" : `: ${r.label}`), "ok");
  show("outputs", r.outputs.map((values, k) => `output ${k} (${r.lengths[k]} values): ` +
    values.join(", ") + (r.lengths[k] > values.length ? ", ..." : "")).join("\n"));
}, "error");

const selfTest = () => task("running the self-test vectors", () => {
  const r = JSON.parse(page.self_test());
  if (r.total === 0) {
    show("result", "this model has no self-test vectors", "bad");
    return;
  }
  inferenceDone(r.ms);
  show("result", `self-test passed: ${r.ran}/${r.total}`, "ok");
}, "self-test failed");

$("model").addEventListener("change", () => {
  const url = $("model").value;
  loadModel(url.split("/").pop(), () => fetchBytes(url), url);
});
$("file").addEventListener("change", () => {
  const file = $("file").files[0];
  if (file) loadModel(file.name, async () => new Uint8Array(await file.arrayBuffer()), null);
});
$("run").addEventListener("click", runRandom);
$("selftest").addEventListener("click", selfTest);

async function main() {
  const params = new URLSearchParams(location.search);
  setBusy(true);
  let site;
  try {
    site = await startRuntime();
  } catch (error) {
    show("status", "the runtime did not start");
    show("result", `error: ${errorText(error)}`, "bad");
    return;
  }
  show("status", "ready");
  setBusy(false);
  const url = params.get("model") || (site.models.length ? site.models[0].url : null);
  if (url === null) return;
  addOption(url, url);
  $("model").value = url;
  if (!(await loadModel(url.split("/").pop(), () => fetchBytes(url), url))) return;
  if (params.get("selftest") === "1") await selfTest();
  if (params.get("run") === "1") await runRandom();
}

main();
