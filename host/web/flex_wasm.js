// flex's wasm32 build (flex/flex.wasm) running a model's plan blob (burn.host.web.flex_plan):
// the blob's memory image is placed in the module's memory once, and an inference is one
// flex_plan_run call between copying the inputs in and the outputs out.
//
//   const module = await compileFlex("flex/flex.wasm");
//   const plan = await FlexPlan.load(module, blobBytes);
//   const outputs = plan.run([inputBytes]);   // Uint8Array per output; throws on a bad status
//
// Each FlexPlan has an instance of its own (its own memory), so models do not share state.

const MAGIC = "BFXW";
const ALIGN = 16;
const PAGE = 65536;
const align = (n) => Math.ceil(n / ALIGN) * ALIGN;

// flex.wasm compiled while it downloads; from its bytes where the server does not send it as
// application/wasm (which compileStreaming requires).
export async function compileFlex(url) {
  try {
    return await WebAssembly.compileStreaming(fetch(url));
  } catch {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`cannot fetch ${url}: ${response.status} ${response.statusText}`);
    return WebAssembly.compile(await response.arrayBuffer());
  }
}

function parse(blob) {
  const magic = String.fromCharCode(...blob.subarray(0, 4));
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  if (blob.length < 12 || magic !== MAGIC) throw new Error("not a flex plan blob");
  const version = view.getUint32(4, true);
  const n = view.getUint32(8, true);
  if (version !== 1 || 12 + n > blob.length) throw new Error(`flex plan blob of version ${version} or truncated`);
  const header = JSON.parse(new TextDecoder().decode(blob.subarray(12, 12 + n)));
  const start = align(12 + n);
  if (start + header.data_bytes > blob.length) throw new Error("flex plan blob truncated");
  return [header, blob.subarray(start, start + header.data_bytes)];
}

export class FlexPlan {
  static async load(module, blob) {
    const instance = await WebAssembly.instantiate(module, {});
    return new FlexPlan(instance.exports, ...parse(blob));
  }

  constructor(exports, header, image) {
    this.exports = exports;
    this.header = header;
    this.base = align(exports.__heap_base.value);
    this.table = align(this.base + header.memory_bytes);
    this.failed = this.table + 4 * header.table.length;
    const need = this.failed + 4;
    const memory = exports.memory;
    if (need > memory.buffer.byteLength) memory.grow(Math.ceil((need - memory.buffer.byteLength) / PAGE));
    this.bytes = new Uint8Array(memory.buffer);
    this.bytes.set(image, this.base);
    const table = new Uint32Array(memory.buffer, this.table, header.table.length);
    header.table.forEach((offset, k) => { table[k] = this.base + offset; });
    this.planMs = 0; // the last run's time: inputs in, the plan call, outputs out
  }

  run(inputs) {
    const h = this.header;
    if (inputs.length !== h.inputs.length) throw new Error(`expected ${h.inputs.length} inputs, got ${inputs.length}`);
    const start = performance.now();
    inputs.forEach((data, k) => {
      const [offset, n] = h.inputs[k];
      if (data.length !== n) throw new Error(`input ${k}: ${data.length} bytes, expected ${n}`);
      this.bytes.set(data, this.base + offset);
    });
    const status = this.exports.flex_plan_run(this.base, h.words, this.table, h.table.length, this.failed);
    if (status !== 0) {
      const step = new Int32Array(this.bytes.buffer, this.failed, 1)[0];
      throw new Error(`flex-wasm: plan step ${step} (${h.steps[step]}) failed with status ${status}`);
    }
    const outputs = h.outputs.map(([offset, n]) => this.bytes.slice(this.base + offset, this.base + offset + n));
    this.planMs = performance.now() - start;
    return outputs;
  }
}
