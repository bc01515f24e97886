// An emulated Raspberry Pi Pico on rp2040js, with no tie to where it runs: Node.js
// (rp2040_board.mjs, the board of burn.host.emulator) and the browser (the web page's
// emulated Pico, burn.host.web) both drive this one module and supply only the I/O.
//
//   const pico = new PicoMachine(lib, rom, flash, { onSerial, onUsb, onFlashChange, onHalt });
//   pico.start(); pico.send(bytes); ... pico.stop();
//
// `lib` is rp2040js's module (its RP2040, USBCDC, ConsoleLogger and LogLevel), `rom` the
// RP2040 mask ROM's bytes and `flash` the whole flash's. Both cores run (dual_core.mjs).
// The bootrom's flash functions are patched to breakpoints that this module carries out on
// `pico.flash` (erase and program, as the chip's flash would); `onFlashChange()` hears each.
// The USB CDC serial is the host side: `send(bytes)` types, `onSerial(bytes)` hears the
// board; `onUsb()` fires once the host side of USB is configured. `onHalt(text)` hears why
// the board stopped (an unknown breakpoint, a watchdog reset).

import { bootDualCore } from './dual_core.mjs';

export const CYCLE_NANOS = 8; // rp2040js runs clk_sys at a fixed 125 MHz
const SLICE_MS = 20; // wall time between looks at input and timers
// How far emulated time may run ahead of wall time while both cores sleep: short waits (USB
// packets every few microseconds) pass at once, long ones (time.sleep) take real time.
const LEAD_NANOS = 50e6;
// Breakpoint numbers placed at the start of the bootrom's flash functions.
const BKPT_ERASE = 0xe0;
const BKPT_PROGRAM = 0xe1;
const BKPT_RETURN = 0xe2;
const PATCHES = { RE: BKPT_ERASE, RP: BKPT_PROGRAM, IF: BKPT_RETURN, EX: BKPT_RETURN,
                  FC: BKPT_RETURN, CX: BKPT_RETURN };

function wallNanos() {
  return performance.now() * 1e6;
}

// Run `fn` as soon as the event loop allows: setImmediate in Node; a message to itself in a
// browser, where a setTimeout(0) chain is held to 4 ms a turn.
function soon(fn) {
  if (typeof setImmediate === 'function') {
    setImmediate(fn);
    return;
  }
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    channel.port1.close();
    fn();
  };
  channel.port2.postMessage(null);
}

export class PicoMachine {
  constructor(lib, rom, flash, { onSerial = () => {}, onUsb = () => {},
                                 onFlashChange = () => {}, onHalt = () => {} } = {}) {
    const { RP2040, USBCDC, ConsoleLogger, LogLevel } = lib;
    this.rom = new Uint8Array(rom);
    this.chip = bootDualCore(RP2040, new ConsoleLogger(LogLevel.Error, false), this.rom, flash);
    this.mcu = this.chip.mcu; // mcu.core is core 0
    this.flash = this.mcu.flash;
    this.flashSize = flash.length;
    this.onFlashChange = onFlashChange;
    this.onHalt = onHalt;
    this.halted = false;
    this.stopping = false;
    this.timer = 0; // the generation of the scheduled run; a newer one cancels it
    this.pending = []; // host bytes not yet taken by the CDC FIFO
    this.parkedRead = null;
    this.patchBootrom();
    this.chip.onBreak = (core, code) => this.onBreak(core, code);
    // A watchdog reset (machine.reset()) would need a fresh chip; the board stops instead.
    this.mcu.peripherals[0x40058].onWatchdogTrigger = () =>
      this.halt('watchdog reset (machine.reset()) is not emulated; power-cycle the board ' +
                'instead (close it and start it again)');
    this.cdc = new USBCDC(this.mcu.usbCtrl);
    this.cdc.onDeviceConnected = () => onUsb();
    this.cdc.onSerialData = (buffer) => onSerial(buffer);
    // rp2040js answers every read of the OUT endpoint, even with nothing to send, after 10
    // us: the firmware would then spin on empty packets. A real host NAKs instead, so a read
    // that finds nothing waits here until host bytes arrive.
    const answerRead = this.mcu.usbCtrl.onEndpointRead;
    this.answerRead = answerRead;
    this.mcu.usbCtrl.onEndpointRead = (endpoint, size) => {
      if (endpoint === this.cdc.outEndpoint && this.cdc.txFIFO.empty) {
        this.parkedRead = [endpoint, size];
      } else {
        answerRead(endpoint, size);
      }
    };
    this.anchorWall = 0; // wall nanoseconds and emulated nanoseconds that correspond
    this.anchorEmu = 0;
    this.wasIdle = false;
  }

  /** Core 0's cycles, core 1's and the emulated time in microseconds, since power-on. */
  cycles() {
    return { cycles: this.mcu.core.cycles, core1_cycles: this.chip.core1Cycles,
             us: this.mcu.clock.micros };
  }

  // ---- flash through the bootrom ----------------------------------------------------------

  patchBootrom() {
    const view = new DataView(this.rom.buffer, this.rom.byteOffset, this.rom.byteLength);
    let entry = view.getUint16(0x14, true);
    for (;;) {
      const code = view.getUint16(entry, true);
      if (code === 0) break;
      const name = String.fromCharCode(code & 0xff, code >> 8);
      if (name in PATCHES) this.setRomHalfword(view.getUint16(entry + 2, true) & ~1,
                                               0xbe00 | PATCHES[name]);
      entry += 4;
    }
  }

  setRomHalfword(address, value) {
    const { bootrom } = this.mcu;
    const word = address >> 2;
    const shift = (address & 2) * 8;
    bootrom[word] = (bootrom[word] & ~(0xffff << shift)) | (value << shift);
  }

  inFlash(offset, count) {
    return offset >= 0 && count >= 0 && offset + count <= this.flashSize;
  }

  onBreak(core, code) {
    const r = core.registers;
    const { mcu } = this;
    if (code === BKPT_ERASE) {
      const [offset, count] = [r[0], r[1]];
      if (this.inFlash(offset, count)) this.flash.fill(0xff, offset, offset + count);
      this.onFlashChange();
    } else if (code === BKPT_PROGRAM) {
      const [offset, data, count] = [r[0], r[1], r[2]];
      if (this.inFlash(offset, count)) {
        for (let i = 0; i < count; i++) this.flash[offset + i] &= mcu.readUint8(data + i);
      }
      this.onFlashChange();
    } else if (code !== BKPT_RETURN) {
      this.halt(`breakpoint ${code} at 0x${(core.PC - 2).toString(16)} on core ` +
                `${this.chip.cores.indexOf(core)}`);
      return;
    }
    core.PC = core.LR & ~1;
  }

  halt(why) {
    this.halted = true;
    this.onHalt(why);
  }

  // ---- USB CDC, the host's side -----------------------------------------------------------

  /** Type `bytes` (a Uint8Array) into the board's USB serial. */
  send(bytes) {
    this.pending.push(bytes);
    this.wake();
  }

  feedHost() {
    const { cdc, pending } = this;
    while (pending.length && !cdc.txFIFO.full) {
      const chunk = pending[0];
      let i = 0;
      while (i < chunk.length && !cdc.txFIFO.full) cdc.sendSerialByte(chunk[i++]);
      if (i === chunk.length) pending.shift();
      else pending[0] = chunk.subarray(i);
    }
    if (this.parkedRead !== null && !cdc.txFIFO.empty) {
      const [endpoint, size] = this.parkedRead;
      this.parkedRead = null;
      this.answerRead(endpoint, size);
    }
  }

  // ---- running: as fast as the host allows, but idle time no faster than real time --------

  /** Power on: run until `stop()` or a halt. */
  start() {
    this.anchorWall = wallNanos();
    this.anchorEmu = this.mcu.clock.nanos;
    this.run();
  }

  /** Stop running for good (the flash keeps what the board wrote). */
  stop() {
    this.stopping = true;
    this.timer += 1;
  }

  run() {
    if (this.stopping) return;
    const { clock } = this.mcu;
    const [core0, core1] = this.chip.cores;
    const start = wallNanos();
    if (!this.wasIdle && clock.nanos < this.anchorEmu + (start - this.anchorWall)) {
      // Busy code fell behind real time: it must not race ahead later to catch up.
      this.anchorWall = start;
      this.anchorEmu = clock.nanos;
    }
    const sliceEnd = start + SLICE_MS * 1e6;
    let wait = 0;
    for (;;) {
      this.feedHost();
      for (let i = 0; i < 20000 && !this.halted; i++) {
        if (!core1.waiting) {
          clock.tick(this.chip.step() * CYCLE_NANOS); // both cores, or core 1 alone
        } else if (core0.waiting) {
          const step = clock.nanosToNextAlarm;
          const allowed = this.anchorEmu + (wallNanos() - this.anchorWall) + LEAD_NANOS;
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
          clock.tick(core0.executeInstruction() * CYCLE_NANOS); // core 0 alone
        }
      }
      if (wait > 0 || this.halted || wallNanos() > sliceEnd) break;
    }
    this.wasIdle = wait > 0;
    if (!this.halted) this.schedule(Math.min(wait, SLICE_MS));
  }

  schedule(delayMs) {
    const generation = ++this.timer;
    const go = () => {
      if (generation === this.timer) this.run();
    };
    if (delayMs > 0) setTimeout(go, delayMs);
    else soon(go);
  }

  /** Run now rather than at the end of an idle wait (host input arrived). */
  wake() {
    if (!this.stopping && this.timer > 0) this.schedule(0);
  }
}
