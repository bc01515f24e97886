// Runs flex_c's WebAssembly build for burn.host.flex.wasm_lib: one module instance, driven by
// JSON lines on stdin, one answer line on stdout per request.
//
//   node wasm_runner.mjs FLEX_WASM
//
// Request {"call": NAME, "args": [numbers], "floats": [indices of f32 arguments],
//          "writes": [[address, base64]], "reads": [[address, bytes]], "top": address}
// writes the bytes (growing the memory to `top` first), calls the export and answers
// {"status": int32, "reads": [base64]}; {"error": text} when the call traps or the export is
// missing. The first line answered is {"heap_base": address, "exports": [names]}.

import fs from 'node:fs';
import readline from 'node:readline';

const module = new WebAssembly.Module(fs.readFileSync(process.argv[2]));
const instance = new WebAssembly.Instance(module, {});
const { memory } = instance.exports;
const PAGE = 65536;

function answer(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

answer({
  heap_base: instance.exports.__heap_base.value,
  exports: Object.keys(instance.exports).filter((n) => typeof instance.exports[n] === 'function'),
});

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const req = JSON.parse(line);
  try {
    const fn = instance.exports[req.call];
    if (typeof fn !== 'function') throw new Error('the wasm build has no function ' + req.call);
    if (req.top > memory.buffer.byteLength) {
      memory.grow(Math.ceil((req.top - memory.buffer.byteLength) / PAGE));
    }
    for (const [addr, data] of req.writes) {
      new Uint8Array(memory.buffer).set(Buffer.from(data, 'base64'), addr);
    }
    const status = fn(...req.args) | 0;
    const reads = req.reads.map(([addr, n]) =>
      Buffer.from(new Uint8Array(memory.buffer, addr, n)).toString('base64'));
    answer({ status, reads });
  } catch (e) {
    answer({ error: String(e && e.message ? e.message : e) });
  }
});
