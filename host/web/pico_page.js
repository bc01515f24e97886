// The page's emulated Raspberry Pi Pico (the section #pico of index.html): burn's RP2040
// firmware on rp2040js in a Web Worker (pico_worker.js), its USB serial REPL in a terminal
// (xterm.js), the current model flashed into its ROMFS and its self-test run through the raw
// REPL (pico_repl.js), the board's latency in cycles shown beside the browser's. A real board
// can take the emulated one's place through Web Serial (pico_serial.js, experimental).
//
// pico.json (written by burn web build, burn.host.web.pico_site) says what the site holds;
// in a site without the board it says why, and the section shows that.
//
// The model flashed is the page's current one: a shipped model (its ROMFS image made by burn
// web build) or a file the user picked (its image made in the page by burn's own ROMFS
// writer, burn_romfs.py, on MicroPython's WebAssembly port).
//
// Query parameters: pico=1 boots the emulated board at start; picotest=1 boots it, flashes
// the model (model=URL, else the first shipped one) and runs its self-test. The outcome goes
// into #pico-result ("board self-test passed: 2 vectors, 1234 cycles per inference", or
// "error: ..."); window.burnPico holds bootMs (the board answered at ">>>", in ms since the
// page started loading), selfTestMs, the board's last measurements (measured), screen()
// (the terminal's text) and withRawRepl(body): body(repl) run with pico_repl.js's RawRepl
// on the current board, the terminal detached meanwhile.
import { RawRepl, parseLiteral } from "./pico_repl.js";
import { SerialTransport, webSerialAvailable } from "./pico_serial.js";

const $ = (id) => document.getElementById(id);
const state = (window.burnPico = { withRawRepl: (body) => withRawRepl(body) });
const BOOT_TIMEOUT_MS = 180000;
const RUN_TIMEOUT_MS = 180000;
let pico = null; // pico.json
let board = null; // the transport the terminal and buttons talk to
let emulated = null; // the EmulatedPico, once booted
let term = null;
let busy = false;
let picked = null; // the file the user picked, while it is the page's model
let romfsPort = null; // MicroPython's WebAssembly port for burn_romfs.py, once started

/** The emulated board as a byte transport (write, receiver), plus its flash. */
class EmulatedPico {
  constructor() {
    this.name = "the emulated Pico";
    this.worker = new Worker("pico_worker.js", { type: "module" });
    this.receiver = () => {};
    this.replies = new Map();
    this.nextId = 0;
    this.usb = new Promise((resolve) => (this.usbUp = resolve));
    this.worker.onmessage = ({ data: m }) => {
      if (m.type === "serial") this.receiver(m.data);
      else if (m.type === "usb") this.usbUp();
      else if (m.type === "halt") this.receiver(new TextEncoder().encode(`\r\n[board halted: ${m.why}]\r\n`));
      else if (this.replies.has(m.id)) {
        this.replies.get(m.id)(m);
        this.replies.delete(m.id);
      }
    };
    this.worker.onerror = (event) => show("pico-status", `the emulator failed: ${event.message}`);
  }

  ask(message) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.replies.set(id, resolve);
      this.worker.postMessage({ ...message, id });
    });
  }

  boot(rom, flash) {
    this.worker.postMessage({ type: "boot", rom, flash }, [rom, flash]);
  }

  write(bytes) {
    this.worker.postMessage({ type: "serial", data: bytes });
  }

  /** Erase `erase` bytes of flash from `offset` and program `data` there. */
  writeFlash(offset, erase, data) {
    return this.ask({ type: "write", offset, erase, data });
  }
}

function show(id, text, cls) {
  $(id).textContent = text;
  if (cls !== undefined) $(id).className = cls;
}

async function fetchBuffer(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`cannot fetch ${url}: ${response.status} ${response.statusText}`);
  return response.arrayBuffer();
}

function loadScript(src) {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = src;
    script.onload = resolve;
    script.onerror = () => reject(new Error(`cannot load ${src}`));
    document.head.append(script);
  });
}

function setBusy(value) {
  busy = value;
  $("pico-boot").disabled = value || emulated !== null;
  $("pico-selftest").disabled = value || board === null;
  $("pico-serial").disabled = value || !webSerialAvailable();
}

// The terminal shows what `transport` says and types into it, except while a RawRepl talks.
function attach(transport) {
  board = transport;
  transport.receiver = (bytes) => term.write(bytes);
}

// Resolves once `ready()` is true; an Error with `why()` after `timeoutMs`.
async function waitFor(ready, timeoutMs, why) {
  const deadline = performance.now() + timeoutMs;
  while (!ready()) {
    if (performance.now() > deadline) throw new Error(why());
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function bootEmulated() {
  setBusy(true);
  show("pico-status", "booting the emulated Pico ...");
  try {
    const [rom, firmware] = await Promise.all([fetchBuffer("pico/bootrom.bin"), fetchBuffer("pico/firmware.bin")]);
    const flash = new Uint8Array(pico.flash_bytes).fill(0xff);
    flash.set(new Uint8Array(firmware), pico.firmware_offset);
    emulated = new EmulatedPico();
    let said = "";
    emulated.receiver = (bytes) => {
      said += new TextDecoder().decode(bytes);
      term.write(bytes);
    };
    emulated.boot(rom, flash.buffer);
    let usb = false;
    emulated.usb.then(() => {
      usb = true;
      emulated.write(new TextEncoder().encode("\r"));
    });
    await waitFor(() => usb && said.includes(">>> "), BOOT_TIMEOUT_MS, () =>
      `the firmware ${usb ? "brought up USB but gave no REPL prompt" : "did not bring up USB"} ` +
      `within ${BOOT_TIMEOUT_MS / 1000} s (it said ${JSON.stringify(said.slice(-200))})`);
    attach(emulated);
    state.bootMs = performance.now();
    show("pico-status", `the emulated Pico answers at >>> (${(state.bootMs / 1000).toFixed(1)} s after the page started loading); type into the terminal`);
  } catch (error) {
    if (emulated !== null) emulated.worker.terminate();
    emulated = null;
    show("pico-status", "the emulated Pico did not start");
    show("pico-result", `error: ${error.message}`, "bad");
  }
  setBusy(false);
}

// The ROMFS image of the page's current model, {name, image: an ArrayBuffer}: a shipped
// model's, made by burn web build; a picked file's, made here (imageOf). An Error saying
// why the model cannot go onto the board.
async function currentImage() {
  if (picked !== null) {
    return { name: picked.name, image: await imageOf(new Uint8Array(await picked.arrayBuffer())) };
  }
  const url = $("model").value || new URLSearchParams(location.search).get("model") || Object.keys(pico.models)[0];
  if (pico.models[url]) return { name: url, image: await fetchBuffer(pico.models[url]) };
  throw new Error(`${url} cannot go onto the board: ${pico.left_out[url] || "it is not a model of this site"}`);
}

// The ROMFS image of model file `data`, made by burn's own ROMFS writer (pico/burn_romfs.py,
// burn.host.romfs) on MicroPython's WebAssembly port, started here on first use.
async function imageOf(data) {
  if (romfsPort === null) {
    const { loadMicroPython } = await import("./micropython/micropython.mjs");
    const port = await loadMicroPython({ heapsize: 2 * pico.romfs_bytes + (1 << 20) });
    if (!port.FS.analyzePath("/lib").exists) port.FS.mkdir("/lib");
    port.FS.writeFile("/lib/burn_romfs.py", new Uint8Array(await fetchBuffer("pico/burn_romfs.py")));
    romfsPort = port;
  }
  romfsPort.FS.writeFile("/model.bst", data);
  try {
    romfsPort.runPython([
      "import burn_romfs",
      "with open('/model.bst', 'rb') as f:",
      "    data = f.read()",
      "with open('/image', 'wb') as f:",
      `    f.write(burn_romfs.build_image({'${pico.rom_name}': data}, ${pico.romfs_bytes}, ${pico.romfs_block}))`,
    ].join("\n"));
  } catch (error) {
    const lines = String(error.message || error).trim().split("\n");
    throw new Error(`the model cannot go onto the board: ${lines[lines.length - 1]}`);
  }
  return romfsPort.FS.readFile("/image").buffer;
}

// Latency on the board in cycles: its best time (ticks_us) times its clock (machine.freq()),
// as burn flash reports it (burn.host.deploy.measure.latency_cycles).
function cycles(measured) {
  return Math.round(measured.latency_min_us * measured.freq / 1e6);
}

// Run `body(repl)` with a RawRepl on the current board, the terminal detached meanwhile;
// errors go into #pico-result. Returns what `body` returns (undefined after an error).
async function withRawRepl(body) {
  setBusy(true);
  show("pico-result", "");
  const repl = new RawRepl(board, board.name);
  let result;
  try {
    await repl.enter();
    result = await body(repl);
  } catch (error) {
    show("pico-result", `error: ${error.message}`, "bad");
  }
  try {
    await repl.leave();
  } catch (error) {
    show("pico-result", `error: ${error.message}`, "bad");
  }
  attach(board);
  show("pico-status", `${board.name}: ready`);
  setBusy(false);
  return result;
}

async function flashAndTest() {
  show("pico-result", "");
  // A real board runs what burn flash put into its ROMFS; the emulated one gets the model.
  let model = { name: pico.rom_path, image: null };
  try {
    if (board === emulated) model = await currentImage();
  } catch (error) {
    show("pico-result", `error: ${error.message}`, "bad");
    return;
  }
  term.write(`\r\n[raw REPL: soft reset, then ${pico.rom_path}'s self-test and timing]\r\n`);
  await withRawRepl(async (repl) => {
    if (board === emulated) {
      show("pico-status", `flashing ${model.name} into the emulated Pico's ROMFS as ${pico.rom_path} ...`);
      await emulated.writeFlash(pico.romfs_offset, pico.romfs_bytes, model.image);
    }
    show("pico-status", `running ${pico.rom_path}'s self-test on ${board.name} ...`);
    await repl.softReset();
    const { out, err } = await repl.exec(pico.measure, RUN_TIMEOUT_MS);
    if (err) throw new Error(err.trim().split("\n").pop());
    const measured = parseLiteral(out.trim().split("\n").pop());
    state.measured = measured;
    state.selfTestMs = performance.now();
    report(model.name, measured);
  });
}

function report(label, measured) {
  const failed = measured.load_error || measured.self_test_error;
  if (failed) {
    show("pico-result", `board self-test failed: ${failed}`, "bad");
    return;
  }
  const n = cycles(measured);
  show("pico-result", `board self-test passed: ${measured.tests} vectors, ${n} cycles per inference`, "ok");
  latency = { label, name: board.name, measured };
  showLatency();
}

// The board's latency beside the browser's (burn_web.js's last inference, which may come
// later: the line follows it).
let latency = null;
function showLatency() {
  if (latency === null) return;
  const { label, name, measured } = latency;
  const wasm = window.burnTimings && window.burnTimings.lastInferenceMs;
  show("pico-latency", `${label} on ${name} (${measured.backend} kernels): ${cycles(measured)} cycles per ` +
    `inference, ${measured.latency_min_us} µs at ${measured.freq / 1e6} MHz; in this browser ` +
    `(${(window.burnTimings && window.burnTimings.runtime) || "wasm"}): ` +
    (wasm === undefined ? "run the model above for its latency" : `${wasm.toFixed(2)} ms`));
}
setInterval(showLatency, 500);

async function connectSerial() {
  setBusy(true);
  try {
    const transport = await SerialTransport.open();
    transport.name = "the board on Web Serial";
    attach(transport);
    show("pico-status", "connected to a board through Web Serial (experimental); its self-test " +
      "runs the model burn flash put into its /rom");
  } catch (error) {
    show("pico-result", `error: ${error.message}`, "bad");
  }
  setBusy(false);
}

async function main() {
  const response = await fetch("pico.json");
  if (!response.ok) {
    show("pico-status", `cannot fetch pico.json: ${response.status} ${response.statusText}`);
    return;
  }
  pico = await response.json();
  if (pico.board === null) {
    show("pico-status", `This site has no emulated Pico: ${pico.why}.`);
    return;
  }
  $("pico-controls").hidden = false;
  const css = document.createElement("link");
  css.rel = "stylesheet";
  css.href = "pico/xterm.css";
  document.head.append(css);
  await loadScript("pico/xterm.js");
  term = new window.Terminal({ rows: 16, cols: 80, convertEol: false });
  term.open($("pico-term"));
  state.screen = () => {
    const lines = [];
    for (let i = 0; i < term.buffer.active.length; i++) lines.push(term.buffer.active.getLine(i).translateToString(true));
    return lines.join("\n").trimEnd();
  };
  term.onData((text) => {
    if (board !== null && !busy) board.write(new TextEncoder().encode(text));
  });
  $("file").addEventListener("change", () => (picked = $("file").files[0] || null));
  $("model").addEventListener("change", () => (picked = null));
  $("pico-boot").addEventListener("click", bootEmulated);
  $("pico-selftest").addEventListener("click", flashAndTest);
  $("pico-serial").addEventListener("click", connectSerial);
  setBusy(false);
  show("pico-status", `burn's ${pico.board} firmware (${pico.firmware}) is ready to boot`);
  const params = new URLSearchParams(location.search);
  if (params.get("pico") === "1" || params.get("picotest") === "1") await bootEmulated();
  if (params.get("picotest") === "1" && emulated !== null) await flashAndTest();
}

main();
