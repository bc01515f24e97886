// Both Cortex-M0+ cores of the RP2040 on rp2040js, which itself emulates core 0 only. The
// package is extended here, never edited: core 1 is a second CortexM0Core of rp2040js's own
// class on the same RP2040 object, and `mcu.core` names the core executing now (rp2040js's
// peripherals reach "the" core through it): while core 1 executes, `mcu.core` is core 1,
// `mcu.ppb` its private peripheral bus (NVIC, SysTick, VTOR: a second RPPPB) and the SIO
// answers on its port (dual_sio.mjs: CPUID, its FIFO ends, its divider and interpolators).
// Everything else is the one chip's: memory, flash, peripherals, the clock. (One RP2040
// object for both cores, rather than a view per core, keeps rp2040js's hot code seeing one
// object shape, which V8 runs fastest.)
//
// What the two cores share beyond memory: the inter-core FIFOs (sio_fifo.mjs), the SIO
// spinlocks, every peripheral interrupt (raised in both NVICs; each core enables its own),
// and events: SEV sets the event register of both cores, and wakes the other one from WFE.
// rp2040js treats SEV as a no-op that logs "SEV" at level info on the chip's logger, so the
// chip gets a logger that turns that message into the event.
//
// Core 1 starts where a real one does, in the bootrom: it reads CPUID 1 and waits in WFE for
// the launch sequence (0, 0, 1, vector table, stack pointer, entry) on its FIFO, which the
// pico-sdk's multicore_launch_core1 sends. PSM FRCE_OFF.proc1 holds it in reset; clearing it
// restarts it in the bootrom (multicore_reset_core1, MicroPython's soft reset).
//
// Stepping (`step()`): while core 1 sleeps (WFE, WFI, held in reset) only core 0 runs, as
// before; a loop that then steps core 0 itself (the board's does) pays one property read per
// instruction, of core 1's `waiting`. While both run, core 1 executes instructions until it
// has spent the cycles core 0 just did, so the cores advance on one clock, at most one
// instruction apart. The cycles returned (the clock's advance) are core 0's while it runs,
// core 1's while core 0 sleeps.

import { dualSioClass } from './dual_sio.mjs';
import { SioFifos } from './sio_fifo.mjs';
import { installThumbDispatch } from './thumb_dispatch.mjs';

const FLASH_BASE = 0x10000000;
const PSM_KEY = 0x40010; // the PSM's entry in rp2040js's peripheral table
const PSM_FRCE_OFF = 0x04;
const PSM_PROC1 = 1 << 16;
const WFE = 0xbf20;

/** A logger that hands everything to `base` except the SEV message of a core. */
class ChipLogger {
  constructor(base, onSev) {
    this.base = base;
    this.onSev = onSev;
  }

  info(component, message) {
    if (message === 'SEV') this.onSev();
    else this.base.info(component, message);
  }

  debug(component, message) {
    this.base.debug(component, message);
  }

  warn(component, message) {
    this.base.warn(component, message);
  }

  error(component, message) {
    this.base.error(component, message);
  }
}

export class DualCore {
  /** Adds core 1 to `mcu`, an RP2040 with its bootrom loaded and its logger set. */
  constructor(mcu) {
    this.mcu = mcu;
    this.cores = [mcu.core, new mcu.core.constructor(mcu)];
    this.fifos = new SioFifos(this.cores);
    this.held = false; // core 1 held in reset by the PSM
    this.stallAt = Infinity; // core 1's cycle count at which a debugger halts it for good
    this.stalled = false;
    this.core1Cycles = 0; // cycles core 1 has executed since power-on, over its resets
    this.owed = 0; // cycles core 1 is behind core 0 while both run
    /** Called for a BKPT (or UDF) on either core: `onBreak(core, code)`. */
    this.onBreak = () => {};
    const DualSIO = dualSioClass(mcu.sio.constructor);
    this.sio = new DualSIO(mcu, this.fifos);
    mcu.sio = this.sio;
    mcu.logger = new ChipLogger(mcu.logger, () => this.sev(this.sio.current));
    mcu.onBreak = (code) => this.onBreak(mcu.core, code);
    mcu.setInterrupt = (irq, value) => {
      this.cores[0].setInterrupt(irq, value);
      this.cores[1].setInterrupt(irq, value);
    };
    // Core 1's PPB reaches its core as `rp2040.core` at any time (a SysTick alarm fires
    // between instructions, while `mcu.core` is core 0): it gets a view of the chip whose
    // `core` is core 1.
    const view = Object.create(mcu);
    view.core = this.cores[1];
    this.ppbs = [mcu.ppb, new mcu.ppb.constructor(view, 'PPB1')];
    mcu.addClockListener((hz) => {
      for (const ppb of this.ppbs) ppb.systickTimer.frequency = hz;
    });
    this.resetCore1();
    this.watchPsm(mcu.peripherals[PSM_KEY]);
  }

  /** Core 1 as after power-on or a reset, at the bootrom's reset vector (VTOR 0). The object
   * stays the same (its fields are those of a new core), so loops may hold it. */
  resetCore1() {
    const core = this.cores[1];
    Object.assign(core, new core.constructor(this.mcu));
    core.reset();
    core.waiting = this.held || this.stalled;
    this.ppbs[1].reset();
    this.owed = 0;
  }

  watchPsm(psm) {
    const write = psm.writeUint32.bind(psm);
    psm.writeUint32 = (offset, value) => {
      write(offset, value);
      const held = (psm.frceOff & PSM_PROC1) !== 0;
      if (offset === PSM_FRCE_OFF && held !== this.held) {
        this.held = held;
        this.resetCore1();
      }
    };
  }

  /** Halt core 1 for good, as a debugger would, once it has run `cycles` more cycles: it
   * then never runs again, through resets too (a test of a core that stops answering). */
  stallCore1(cycles) {
    this.stallAt = this.core1Cycles + cycles;
  }

  /** SEV on core `from`: both event registers set; the other core, if it sleeps in WFE,
   * wakes instead (the event is spent on waking it). A core held in reset sees nothing. */
  sev(from) {
    this.cores[from].eventRegistered = true;
    const other = this.cores[1 - from];
    if (other === this.cores[1] && (this.held || this.stalled)) return;
    if (other.waiting && other.readUint16((other.PC - 2) >>> 0) === WFE) other.waiting = false;
    else other.eventRegistered = true;
  }

  /** Whether both cores sleep: then only an interrupt (a clock alarm, host input) can wake
   * one, and `step()` must not be called. */
  get asleep() {
    return this.cores[0].waiting && this.cores[1].waiting;
  }

  /** Run core 0's next instruction and core 1's until it has caught up with core 0 (or, while
   * core 0 sleeps, core 1's next one); returns the cycles the clock advances. */
  step() {
    const core0 = this.cores[0];
    if (this.cores[1].waiting) return core0.executeInstruction();
    if (core0.waiting) {
      this.owed = 0;
      return this.runCore1(1);
    }
    const cycles = core0.executeInstruction();
    const owed = this.owed + cycles;
    if (owed <= 0) {
      this.owed = owed; // core 1 is still ahead (its last instruction took longer)
    } else {
      const spent = this.runCore1(owed);
      this.owed = this.cores[1].waiting ? 0 : owed - spent;
    }
    return cycles;
  }

  /** Core 1 executes until it has spent `owed` cycles (at least one instruction) or sleeps;
   * returns the cycles it spent. The chip answers as core 1 meanwhile. */
  runCore1(owed) {
    const { mcu } = this;
    const core = this.cores[1];
    mcu.core = core;
    mcu.ppb = this.ppbs[1];
    this.sio.current = 1;
    let spent = 0;
    do {
      spent += core.executeInstruction();
      if (this.core1Cycles + spent >= this.stallAt) {
        this.stalled = true;
        core.waiting = true;
      }
    } while (spent < owed && !core.waiting);
    this.sio.current = 0;
    mcu.ppb = this.ppbs[0];
    mcu.core = this.cores[0];
    this.core1Cycles += spent;
    return spent;
  }
}

/** A dual-core RP2040 from rp2040js's `RP2040` class: `logger` set, the mask ROM `rom` (bytes)
 * loaded, the flash holding `flash` (bytes), core 0 at the start of flash (boot2, where a
 * reset through the bootrom arrives) and core 1 in the bootrom. */
export function bootDualCore(RP2040, logger, rom, flash) {
  const mcu = new RP2040();
  installThumbDispatch(mcu);
  mcu.logger = logger;
  mcu.loadBootrom(new Uint32Array(rom.buffer, rom.byteOffset, rom.byteLength / 4));
  mcu.flash.set(flash);
  mcu.core.PC = FLASH_BASE;
  return new DualCore(mcu);
}
