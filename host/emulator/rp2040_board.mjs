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
// Both cores run (dual_core.mjs); core 1 waits in the bootrom until the firmware starts it.

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bootDualCore } from './dual_core.mjs';

const [indexPath, bootromPath, flashPath, controlFd] = process.argv.slice(2);
const { RP2040, USBCDC, ConsoleLogger, LogLevel } = await import(pathToFileURL(indexPath).href);

const CYCLE_NANOS = 8; // rp2040js runs clk_sys at a fixed 125 MHz
const SAVE_DELAY_MS = 300;
const SLICE_MS = 20; // wall time between looks at stdin, signals and timers
// How far emulated time may run ahead of wall time while both cores sleep: short waits (USB
// packets every few microseconds) pass at once, long ones (time.sleep) take real time.
const LEAD_NANOS = 50e6;
// Breakpoint numbers placed at the start of the bootrom's flash functions.
const BKPT_ERASE = 0xe0;
const BKPT_PROGRAM = 0xe1;
const BKPT_RETURN = 0xe2;
const PATCHES = { RE: BKPT_ERASE, RP: BKPT_PROGRAM, IF: BKPT_RETURN, EX: BKPT_RETURN,
                  FC: BKPT_RETURN, CX: BKPT_RETURN };

const control = new net.Socket({ fd: Number(controlFd), readable: true, writable: true });
function report(event, extra = {}) {
  const line = JSON.stringify({ event, cycles: mcu.core.cycles, core1_cycles: chip.core1Cycles,
                                us: mcu.clock.micros, ...extra });
  control.write(line + '\n');
}

const rom = new Uint8Array(fs.readFileSync(bootromPath));
const flashImage = fs.readFileSync(flashPath);
const flashSize = flashImage.length;
const chip = bootDualCore(RP2040, new ConsoleLogger(LogLevel.Error, false), rom, flashImage);
const { mcu } = chip; // mcu.core is core 0
patchBootrom(rom);

// ---- flash through the bootrom ------------------------------------------------------------

function patchBootrom(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let entry = view.getUint16(0x14, true);
  for (;;) {
    const code = view.getUint16(entry, true);
    if (code === 0) break;
    const name = String.fromCharCode(code & 0xff, code >> 8);
    if (name in PATCHES) setRomHalfword(view.getUint16(entry + 2, true) & ~1,
                                        0xbe00 | PATCHES[name]);
    entry += 4;
  }
}

function setRomHalfword(address, value) {
  const word = address >> 2;
  const shift = (address & 2) * 8;
  mcu.bootrom[word] = (mcu.bootrom[word] & ~(0xffff << shift)) | (value << shift);
}

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
  fs.writeSync(fd, mcu.flash, 0, flashSize);
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  fs.renameSync(tmp, flashPath);
}

function inFlash(offset, count) {
  return offset >= 0 && count >= 0 && offset + count <= flashSize;
}

let halted = false;

chip.onBreak = (core, code) => {
  const r = core.registers;
  if (code === BKPT_ERASE) {
    const [offset, count] = [r[0], r[1]];
    if (inFlash(offset, count)) mcu.flash.fill(0xff, offset, offset + count);
    flashChanged();
  } else if (code === BKPT_PROGRAM) {
    const [offset, data, count] = [r[0], r[1], r[2]];
    if (inFlash(offset, count)) {
      for (let i = 0; i < count; i++) mcu.flash[offset + i] &= mcu.readUint8(data + i);
    }
    flashChanged();
  } else if (code !== BKPT_RETURN) {
    process.stderr.write(`board halted: breakpoint ${code} at 0x${(core.PC - 2).toString(16)} ` +
                         `on core ${chip.cores.indexOf(core)}\n`);
    halted = true;
    return;
  }
  core.PC = core.LR & ~1;
};

// A watchdog reset (machine.reset()) would need a fresh chip; the board stops instead.
mcu.peripherals[0x40058].onWatchdogTrigger = () => {
  process.stderr.write('board halted: watchdog reset (machine.reset()) is not emulated; ' +
                       'power-cycle the board instead (close it and start it again)\n');
  halted = true;
};

// ---- USB CDC <-> stdin/stdout ---------------------------------------------------------------

const cdc = new USBCDC(mcu.usbCtrl);
const pending = []; // host bytes not yet taken by the CDC FIFO
cdc.onDeviceConnected = () => report('usb');
cdc.onSerialData = (buffer) => process.stdout.write(Buffer.from(buffer));

// rp2040js answers every read of the OUT endpoint, even with nothing to send, after 10 us:
// the firmware would then spin on empty packets. A real host NAKs instead, so a read that
// finds nothing waits here until host bytes arrive.
const answerRead = mcu.usbCtrl.onEndpointRead;
let parkedRead = null;
mcu.usbCtrl.onEndpointRead = (endpoint, size) => {
  if (endpoint === cdc.outEndpoint && cdc.txFIFO.empty) parkedRead = [endpoint, size];
  else answerRead(endpoint, size);
};

function feedHost() {
  while (pending.length && !cdc.txFIFO.full) {
    const chunk = pending[0];
    let i = 0;
    while (i < chunk.length && !cdc.txFIFO.full) cdc.sendSerialByte(chunk[i++]);
    if (i === chunk.length) pending.shift();
    else pending[0] = chunk.subarray(i);
  }
  if (parkedRead !== null && !cdc.txFIFO.empty) {
    const [endpoint, size] = parkedRead;
    parkedRead = null;
    answerRead(endpoint, size);
  }
}

process.stdin.on('data', (data) => {
  pending.push(data);
  wake();
});
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
    if (stall) chip.stallCore1(Number(stall[1]));
  }
});
control.on('error', () => {});

// ---- running: as fast as the host allows, but idle time no faster than real time ----------

let anchorWall = 0; // wall nanoseconds and emulated nanoseconds that correspond
let anchorEmu = 0;
let wasIdle = false;
let timer = null;
let stopping = false;

function wallNanos() {
  return Number(process.hrtime.bigint());
}

function run() {
  timer = null;
  if (stopping) return;
  const { clock } = mcu;
  const [core0, core1] = chip.cores;
  const start = wallNanos();
  if (!wasIdle && clock.nanos < anchorEmu + (start - anchorWall)) {
    // Busy code fell behind real time: it must not race ahead later to catch up.
    anchorWall = start;
    anchorEmu = clock.nanos;
  }
  const sliceEnd = start + SLICE_MS * 1e6;
  let wait = 0;
  for (;;) {
    feedHost();
    for (let i = 0; i < 20000 && !halted; i++) {
      if (!core1.waiting) {
        clock.tick(chip.step() * CYCLE_NANOS); // both cores, or core 1 while core 0 sleeps
      } else if (core0.waiting) {
        const step = clock.nanosToNextAlarm;
        const allowed = anchorEmu + (wallNanos() - anchorWall) + LEAD_NANOS;
        if (step <= 0) {
          // Nothing scheduled: only host input can wake a core; time goes on meanwhile.
          if (allowed > clock.nanos) clock.tick(allowed - clock.nanos);
          wait = SLICE_MS;
          break;
        }
        if (clock.nanos + step > allowed) {
          wait = (clock.nanos + step - allowed) / 1e6;
          break;
        }
        clock.tick(step);
      } else {
        clock.tick(core0.executeInstruction() * CYCLE_NANOS); // core 0 alone, as before
      }
    }
    if (wait > 0 || halted || wallNanos() > sliceEnd) break;
  }
  wasIdle = wait > 0;
  if (!halted) schedule(Math.min(wait, SLICE_MS));
}

function schedule(delayMs) {
  cancel();
  timer = delayMs > 0 ? { timeout: setTimeout(run, delayMs) } : { immediate: setImmediate(run) };
}

function cancel() {
  if (timer !== null) {
    if (timer.timeout) clearTimeout(timer.timeout);
    else clearImmediate(timer.immediate);
  }
  timer = null;
}

function wake() {
  if (timer !== null && !stopping) schedule(0);
}

function shutdown() {
  if (stopping) return;
  stopping = true;
  cancel();
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

anchorWall = wallNanos();
anchorEmu = mcu.clock.nanos;
run();
