// The page of benchmarks/web_inference.py (served from a site that `burn web build` wrote, as
// bench/bench.js): each model of bench/cases.json timed on flex-wasm (the site's flex.wasm and
// the model's plan blob, flex_wasm.js) and on onnxruntime-web's wasm backend with one thread
// (the model's ONNX twins: uint8 and int8 activations), on the model's first self-test input,
// in alternating rounds. The outcome goes into window.benchResult: per model, the
// milliseconds per inference of each round and the outputs (as int8) of each; or
// {error: text}.
import { compileFlex, FlexPlan } from "../flex_wasm.js";
import * as ort from "../ort/ort.wasm.min.mjs";

const WARM = 20;

async function timeRuns(run, runs) {
  for (let i = 0; i < WARM; i++) await run();
  const start = performance.now();
  for (let i = 0; i < runs; i++) await run();
  return (performance.now() - start) / runs;
}

async function bytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`cannot fetch ${url}: ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

async function bench() {
  const { cases, rounds, runs } = await (await fetch("cases.json")).json();
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmPaths = new URL("../ort/", location.href).href;
  const site = await (await fetch("../site.json")).json();
  const module = await compileFlex("../" + site.flex);
  const results = [];
  for (const c of cases) {
    const input = Int8Array.from(c.input);
    const plan = await FlexPlan.load(module, await bytes("../" + c.plan));
    const flexRun = () => plan.run([new Uint8Array(input.buffer)]);
    const r = { name: c.name, flex: [], out: { flex: Array.from(new Int8Array(flexRun()[0].buffer)) } };
    const sessions = {};
    for (const [form, url] of Object.entries(c.onnx)) {
      const session = await ort.InferenceSession.create(await bytes(url), {
        executionProviders: ["wasm"], graphOptimizationLevel: "all" });
      const x = form === "uint8" ? Uint8Array.from(input, (v) => v + 128) : input;
      const feed = { x: new ort.Tensor(form, x, c.onnx_shape) };
      sessions[form] = [session, () => session.run(feed)];
      const y = (await session.run(feed)).y.data;
      r.out[form] = Array.from(y, (v) => (form === "uint8" ? v - 128 : v));
      r[form] = [];
    }
    for (let k = 0; k < rounds; k++) {
      r.flex.push(await timeRuns(flexRun, runs));
      for (const [form, [, run]] of Object.entries(sessions)) r[form].push(await timeRuns(run, runs));
    }
    for (const [session] of Object.values(sessions)) await session.release();
    results.push(r);
  }
  return results;
}

bench().then((results) => { window.benchResult = { results }; },
  (error) => { window.benchResult = { error: String((error && error.stack) || error) }; });
