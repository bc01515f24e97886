// Runs a bare-metal program (no MicroPython) on the emulated dual-core RP2040 until it ends,
// its UART0 output on stdout:
//
//   node run_program.mjs RP2040JS_INDEX BOOTROM FLASH_IMAGE MAX_CYCLES
//
// FLASH_IMAGE holds the program as it lies in flash (boot2 first), and is only read. The run
// ends at a breakpoint (the pico-sdk's exit() executes BKPT 0), when both cores sleep with
// nothing scheduled to wake them, or after MAX_CYCLES emulated cycles, as fast as the host
// allows. The last line on stderr is the outcome as JSON: {"event": "exit", "reason":
// "breakpoint" | "asleep" | "limit", "code": the breakpoint's number, "core": the core that
// hit it, "cycles": core 0's cycles, "core1_cycles": core 1's, "us": emulated time}.

import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { bootDualCore } from './dual_core.mjs';

const [indexPath, bootromPath, flashPath, maxCycles] = process.argv.slice(2);
const { RP2040, ConsoleLogger, LogLevel } = await import(pathToFileURL(indexPath).href);

const CYCLE_NANOS = 8; // rp2040js runs clk_sys at a fixed 125 MHz
const limitNanos = Number(maxCycles) * CYCLE_NANOS;

const rom = new Uint8Array(fs.readFileSync(bootromPath));
const chip = bootDualCore(RP2040, new ConsoleLogger(LogLevel.Error, false), rom,
                          fs.readFileSync(flashPath));
const { mcu } = chip;
const { clock } = mcu;

const output = [];
mcu.uart[0].onByte = (value) => output.push(value);

let outcome = null;
chip.onBreak = (core, code) => {
  outcome = { reason: 'breakpoint', code, core: chip.cores.indexOf(core) };
};

const BATCH = 100000;
while (outcome === null) {
  for (let i = 0; i < BATCH && outcome === null && clock.nanos < limitNanos; i++) {
    if (!chip.asleep) {
      clock.tick(chip.step() * CYCLE_NANOS);
    } else if (clock.nanosToNextAlarm > 0) {
      clock.tick(clock.nanosToNextAlarm);
    } else {
      outcome = { reason: 'asleep' };
    }
  }
  if (output.length) {
    process.stdout.write(Buffer.from(output));
    output.length = 0;
  }
  if (outcome === null && clock.nanos >= limitNanos) outcome = { reason: 'limit' };
}
const result = { event: 'exit', ...outcome, cycles: mcu.core.cycles,
                 core1_cycles: chip.core1Cycles, us: clock.micros };
process.stdout.write('', () => {
  process.stderr.write(JSON.stringify(result) + '\n');
});
