// An emulated RP2040 board on rp2040js: the board's USB CDC serial is this process's
// stdin/stdout (raw bytes), its flash a file, and a control socket carries events and
// cycle reports as JSON lines.
//
//   node rp2040_board.mjs RP2040JS_INDEX BOOTROM FLASH_IMAGE CONTROL_FD
//
// RP2040JS_INDEX is the path of rp2040js's dist/esm/index.js. FLASH_IMAGE holds the whole
// flash (firmware and filesystem); it is written back, atomically, shortly after the firmware
// erases or programs flash, and on exit. The process exits when stdin closes, on SIGTERM or
// SIGINT. Control requests (on CONTROL_FD, a socket): "cycles"; "save" writes the flash
// image now, as on exit, and goes on; "stall1 N" halts core 1 for good once it has run N
// more cycles (a core that stops answering, for tests). Events: {"event": "usb"} once the
// host side of USB is configured, {"event": "cycles", ...} and {"event": "saved", ...} on
// request and {"event": "exit", ...} at the end; each carries core 0's cycles, core 1's and
// the emulated time.
// The board itself (both cores, the bootrom's flash functions, USB CDC, pacing) is
// pico_machine.mjs, which the web page's emulated Pico runs too; this file is its Node I/O.

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PicoMachine } from './pico_machine.mjs';

const [indexPath, bootromPath, flashPath, controlFd] = process.argv.slice(2);
const lib = await import(pathToFileURL(indexPath).href);

const SAVE_DELAY_MS = 300;

const control = new net.Socket({ fd: Number(controlFd), readable: true, writable: true });
function report(event, extra = {}) {
  control.write(JSON.stringify({ event, ...pico.cycles(), ...extra }) + '\n');
}

const flashImage = fs.readFileSync(flashPath);
const flashSize = flashImage.length;
const pico = new PicoMachine(lib, fs.readFileSync(bootromPath), flashImage, {
  onSerial: (buffer) => process.stdout.write(Buffer.from(buffer)),
  onUsb: () => report('usb'),
  onFlashChange: flashChanged,
  onHalt: (why) => process.stderr.write(`board halted: ${why}\n`),
});

// ---- the flash image file -------------------------------------------------------------------

let dirty = false;
let saveTimer = null;

function flashChanged() {
  dirty = true;
  if (saveTimer === null) saveTimer = setTimeout(saveFlash, SAVE_DELAY_MS);
}

function saveFlash() {
  if (saveTimer !== null) clearTimeout(saveTimer);
  saveTimer = null;
  if (!dirty) return;
  dirty = false;
  const tmp = path.join(path.dirname(flashPath), '.' + path.basename(flashPath) + '.' +
                        process.pid + '.tmp');
  const fd = fs.openSync(tmp, 'w');
  fs.writeSync(fd, pico.flash, 0, flashSize);
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  fs.renameSync(tmp, flashPath);
}

// ---- stdin, signals and the control socket --------------------------------------------------

process.stdin.on('data', (data) => pico.send(data));
process.stdin.on('end', shutdown);
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);

let controlInput = '';
control.on('data', (data) => {
  controlInput += data.toString();
  let newline;
  while ((newline = controlInput.indexOf('\n')) >= 0) {
    const request = controlInput.slice(0, newline).trim();
    controlInput = controlInput.slice(newline + 1);
    if (request === 'cycles') report('cycles');
    if (request === 'save') {
      saveFlash();
      report('saved');
    }
    const stall = /^stall1 (\d+)$/.exec(request);
    if (stall) pico.chip.stallCore1(Number(stall[1]));
  }
});
control.on('error', () => {});

let stopping = false;

function shutdown() {
  if (stopping) return;
  stopping = true;
  pico.stop();
  let error = null;
  try {
    saveFlash();
  } catch (e) {
    error = String(e);
  }
  report('exit', error ? { error } : {});
  control.end(() => process.exit(error ? 1 : 0));
  setTimeout(() => process.exit(error ? 1 : 0), 1000).unref();
}

pico.start();
