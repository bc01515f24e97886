// Every 16-bit opcode that host/emulator/thumb_dispatch.mjs runs itself, stepped from the
// same random states by it and by rp2040js's own step on two chips: registers, flags, cycles,
// the core's other fields and all of SRAM must come out the same.
//
//   node thumb_dispatch_check.mjs RP2040JS_INDEX THUMB_DISPATCH TRIALS SEED
//
// Prints one JSON line: {"opcodes": N, "steps": N, "mismatches": [...first few...]}.

import { pathToFileURL } from 'node:url';

const [indexPath, dispatchPath, trialsArg, seedArg] = process.argv.slice(2);
const { RP2040 } = await import(pathToFileURL(indexPath).href);
const { installThumbDispatch, kindOf } = await import(pathToFileURL(dispatchPath).href);

const trials = Number(trialsArg);
let seed = Number(seedArg) >>> 0 || 1;
function rand() { // xorshift32
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed;
}
const below = (n) => rand() % n;

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
console.warn = () => {}; // rp2040js's SIO warns of the random addresses straight to the console
function chip() {
  const mcu = new RP2040();
  mcu.logger = quiet;
  return mcu;
}
const ours = chip();
const theirs = chip();
installThumbDispatch(ours);

// The same random contents in both chips' SRAM, flash (its first 256 KB) and bootrom.
for (let i = 0; i < ours.sram.length; i++) ours.sram[i] = theirs.sram[i] = below(256);
for (let i = 0; i < 0x40000; i++) ours.flash[i] = theirs.flash[i] = below(256);
for (let i = 0; i < ours.bootrom.length; i++) ours.bootrom[i] = theirs.bootrom[i] = rand();

const SRAM = 0x20000000;
const CODE = [SRAM + 0x30000, 0x10020000, 0x2000]; // where the instruction lies
function value() {
  switch (below(8)) {
    case 0: return SRAM + below(ours.sram.length); // often unaligned
    case 1: return (SRAM + below(ours.sram.length - 64)) & ~3;
    case 2: return 0x10000000 + (below(4) << 24) + (below(0x40000) & ~3); // flash and mirrors
    case 3: return below(0x4000) & ~3; // bootrom
    case 4: return below(64);
    case 5: return [0, 0xffffffff, 0x80000000, 0x7fffffff, 31, 32, 33][below(7)];
    default: return rand();
  }
}

const FIELDS = ['N', 'Z', 'C', 'V', 'cycles', 'waiting', 'PM', 'interruptsUpdated', 'IPSR',
                'SPSEL', 'bankedSP', 'eventRegistered', 'pendingSVCall'];

function setState(core, regs, flags, pc) {
  core.registers.set(regs);
  core.registers[15] = pc;
  [core.N, core.Z, core.C, core.V] = flags;
  core.cycles = 0;
}

function place(mcu, address, op, op2) {
  for (const [a, v] of [[address, op], [address + 2, op2]]) {
    if (a >= SRAM) mcu.sramView.setUint16(a - SRAM, v, true);
    else if (a >= 0x10000000) mcu.flashView.setUint16(a - 0x10000000, v, true);
    else {
      const word = mcu.bootrom[a >>> 2];
      mcu.bootrom[a >>> 2] = a & 2 ? (word & 0xffff) | (v << 16) : (word & ~0xffff) | v;
    }
  }
}

const mismatches = [];
let opcodes = 0;
let steps = 0;
for (let op = 0; op < 0x10000 && mismatches.length < 10; op++) {
  if (kindOf(op) === 0) continue;
  opcodes++;
  for (let t = 0; t < trials; t++) {
    const regs = new Uint32Array(16);
    for (let i = 0; i < 15; i++) regs[i] = value();
    regs[13] = (SRAM + 0x8000 + below(0x20000)) & ~3;
    const flags = [below(2) === 1, below(2) === 1, below(2) === 1, below(2) === 1];
    const pc = CODE[below(3)] + 2 * below(64);
    // The second half of a 32-bit instruction: a BL's most of the time.
    const op2 = below(4) ? 0xd000 | rand() & 0x2fff : rand() & 0xffff;
    for (const mcu of [ours, theirs]) {
      place(mcu, pc, op, op2);
      setState(mcu.core, regs, flags, pc);
    }
    const got = ours.core.executeInstruction();
    const want = theirs.core.slowStep();
    steps++;
    const diffs = [];
    if (got !== want) diffs.push(`returned ${got}, rp2040js ${want}`);
    for (let i = 0; i < 16; i++) {
      if (ours.core.registers[i] !== theirs.core.registers[i]) {
        diffs.push(`r${i} ${ours.core.registers[i].toString(16)}, rp2040js ` +
                   theirs.core.registers[i].toString(16));
      }
    }
    for (const f of FIELDS) {
      if (ours.core[f] !== theirs.core[f]) diffs.push(`${f} ${ours.core[f]}, rp2040js ${theirs.core[f]}`);
    }
    if (Buffer.compare(ours.sram, theirs.sram) !== 0) {
      diffs.push('SRAM differs');
      theirs.sram.set(ours.sram); // report each difference once
    }
    if (diffs.length) {
      mismatches.push({ opcode: op.toString(16), op2: op2.toString(16), pc: pc.toString(16),
                        regs: Array.from(regs, (v) => v.toString(16)), flags, diffs });
    }
  }
}
console.log(JSON.stringify({ opcodes, steps, mismatches }));
