// Faster instruction steps for rp2040js's Cortex-M0+ core, with the same results and cycles.
//
// rp2040js decodes an instruction by testing it against each encoding in turn, in the
// alphabetical order of the mnemonics, so a store is recognized after some sixty tests, and
// every store to SRAM first looks for a peripheral at its address. Here a table made once
// maps each 16-bit opcode to its instruction, and the common instructions run from a switch
// on that, with fetches, loads and stores that hit SRAM, flash or the bootrom going straight
// to the chip's memory. Everything else (system instructions, hints, the rarer shifts and
// arithmetic) and every step that must first look at interrupts goes to rp2040js's own
// step, unchanged. Cycles are counted as rp2040js counts them, so cycle figures do not
// move; tests/emulator/thumb_dispatch_check.mjs checks every opcode against rp2040js's step.

const RAM = 0x20000000;
const FLASH = 0x10000000;
const FLASH_END = 0x14000000;

// What each 16-bit opcode is (0: rp2040js's own step).
const K = {
  LSL_IMM: 1, LSR_IMM: 2, ASR_IMM: 3, ADD_REG: 4, SUB_REG: 5, ADD_IMM3: 6, SUB_IMM3: 7,
  MOV_IMM: 8, CMP_IMM: 9, ADD_IMM8: 10, SUB_IMM8: 11, AND: 12, EOR: 13, TST: 14, NEG: 15,
  CMP: 16, CMN: 17, ORR: 18, MUL: 19, BIC: 20, MVN: 21, ADD_HI: 22, CMP_HI: 23, MOV_HI: 24,
  BX: 25, BLX: 26, LDR_LIT: 27, STR_REG: 28, STRH_REG: 29, STRB_REG: 30, LDRSB: 31,
  LDR_REG: 32, LDRH_REG: 33, LDRB_REG: 34, LDRSH: 35, STR_IMM: 36, LDR_IMM: 37,
  STRB_IMM: 38, LDRB_IMM: 39, STRH_IMM: 40, LDRH_IMM: 41, STR_SP: 42, LDR_SP: 43, ADR: 44,
  ADD_RD_SP: 45, ADD_SP: 46, SUB_SP: 47, SXTH: 48, SXTB: 49, UXTH: 50, UXTB: 51, PUSH: 52,
  POP: 53, STM: 54, LDM: 55, B_COND: 56, B: 57, BL: 58,
};

// The data-processing group (0100 00 op Rm Rdn) by its op field; 0 for those left to rp2040js
// (the register shifts, ADC, SBC, ROR).
const DATA_OPS = [K.AND, K.EOR, 0, 0, 0, 0, 0, 0, K.TST, K.NEG, K.CMP, K.CMN, K.ORR, K.MUL,
                  K.BIC, K.MVN];
// Register-offset loads and stores (0101 op Rm Rn Rt) by op.
const REG_OFFSET = [K.STR_REG, K.STRH_REG, K.STRB_REG, K.LDRSB, K.LDR_REG, K.LDRH_REG,
                    K.LDRB_REG, K.LDRSH];
// Encodings decided by their top five bits alone.
const BY_TOP5 = {
  0b00000: K.LSL_IMM, 0b00001: K.LSR_IMM, 0b00010: K.ASR_IMM, 0b00100: K.MOV_IMM,
  0b00101: K.CMP_IMM, 0b00110: K.ADD_IMM8, 0b00111: K.SUB_IMM8, 0b01001: K.LDR_LIT,
  0b01100: K.STR_IMM, 0b01101: K.LDR_IMM, 0b01110: K.STRB_IMM, 0b01111: K.LDRB_IMM,
  0b10000: K.STRH_IMM, 0b10001: K.LDRH_IMM, 0b10010: K.STR_SP, 0b10011: K.LDR_SP,
  0b10100: K.ADR, 0b10101: K.ADD_RD_SP, 0b11000: K.STM, 0b11001: K.LDM, 0b11100: K.B,
  0b11110: K.BL, // the first half of a 32-bit instruction; BL if the second half says so
};

/** What the 16-bit `op` is: one of K, or 0 where rp2040js's own step runs it. */
export function kindOf(op) {
  const top5 = op >> 11;
  if (top5 in BY_TOP5) return BY_TOP5[top5];
  if (top5 === 0b00011) return [K.ADD_REG, K.SUB_REG, K.ADD_IMM3, K.SUB_IMM3][(op >> 9) & 3];
  if (top5 === 0b01000) {
    if (!(op & 0x400)) return DATA_OPS[(op >> 6) & 0xf];
    const sub = (op >> 8) & 3;
    if (sub < 3) return [K.ADD_HI, K.CMP_HI, K.MOV_HI][sub];
    return (op & 7) === 0 ? (op & 0x80 ? K.BLX : K.BX) : 0;
  }
  if (top5 === 0b01010 || top5 === 0b01011) return REG_OFFSET[(op >> 9) & 7];
  if (op >> 8 === 0xb0) return op & 0x80 ? K.SUB_SP : K.ADD_SP;
  if (op >> 8 === 0xb2) return [K.SXTH, K.SXTB, K.UXTH, K.UXTB][(op >> 6) & 3];
  if (op >> 9 === 0b1011010) return K.PUSH;
  if (op >> 9 === 0b1011110) return K.POP;
  if (op >> 12 === 0b1101) return ((op >> 8) & 0xf) < 0xe ? K.B_COND : 0;
  return 0;
}

const KINDS = new Uint8Array(0x10000);
for (let op = 0; op < 0x10000; op++) KINDS[op] = kindOf(op);

// ---- memory: SRAM, flash and the bootrom directly, anything else through the chip ---------

function fetch16(core, chip, pc) {
  if (pc >= FLASH && pc + 1 < FLASH + chip.flash.length) {
    return chip.flashView.getUint16(pc - FLASH, true);
  }
  if (pc >= RAM && pc + 1 < RAM + chip.sram.length) return chip.sramView.getUint16(pc - RAM, true);
  if (pc >= 0 && pc < chip.bootrom.length * 4) {
    const word = chip.bootrom[pc >>> 2];
    return pc & 2 ? word >>> 16 : word & 0xffff;
  }
  return core.readUint16(pc);
}

// rp2040js reads a word at the address modulo 2^32, and logs an error for one not aligned
// (so those go its way).
function read32(core, chip, address) {
  const a = address >>> 0;
  if ((a & 3) === 0) {
    if (a >= RAM && a + 3 < RAM + chip.sram.length) return chip.sramView.getUint32(a - RAM, true);
    if (a >= FLASH && a < FLASH_END) {
      const offset = a & 0xffffff; // the four mirrors of flash
      if (offset + 3 < chip.flash.length) return chip.flashView.getUint32(offset, true);
    }
    if (a < chip.bootrom.length * 4) return chip.bootrom[a >>> 2];
  }
  return core.readUint32(address);
}

function read16(core, chip, address) {
  if (address >= RAM && address + 1 < RAM + chip.sram.length) {
    return chip.sramView.getUint16(address - RAM, true);
  }
  return core.readUint16(address);
}

function read8(core, chip, address) {
  if (address >= RAM && address < RAM + chip.sram.length) return chip.sram[address - RAM];
  if (address >= FLASH && address < FLASH + chip.flash.length) return chip.flash[address - FLASH];
  return core.readUint8(address);
}

function write32(core, chip, address, value) {
  const a = address >>> 0;
  if (a >= RAM && a + 3 < RAM + chip.sram.length) chip.sramView.setUint32(a - RAM, value, true);
  else core.writeUint32(address, value);
}

function write16(core, chip, address, value) {
  if (address >= RAM && address + 1 < RAM + chip.sram.length) {
    chip.sramView.setUint16(address - RAM, value, true);
  } else {
    core.writeUint16(address, value);
  }
}

function write8(core, chip, address, value) {
  if (address >= RAM && address < RAM + chip.sram.length) chip.sram[address - RAM] = value;
  else core.writeUint8(address, value);
}

// Extra cycles of a load or store at `address`: SRAM, flash and the bootrom cost one.
function ioCycles(core, chip, address, write) {
  const a = address >>> 0;
  return a < 0x40000000 ? 1 : core.cyclesIO(address, write);
}

// ---- flags --------------------------------------------------------------------------------

function setNZ(core, result) {
  core.N = (result & 0x80000000) !== 0;
  core.Z = (result | 0) === 0;
}

function add(core, a, b) {
  const sum = a + b;
  const result = sum >>> 0;
  core.N = result >= 0x80000000;
  core.Z = result === 0;
  core.C = sum > 0xffffffff;
  core.V = (~(a ^ b) & (a ^ result) & 0x80000000) !== 0;
  return result;
}

function sub(core, a, b) {
  const result = (a - b) >>> 0;
  core.N = result >= 0x80000000;
  core.Z = result === 0;
  core.C = a >= b;
  core.V = ((a ^ b) & (a ^ result) & 0x80000000) !== 0;
  return result;
}

function conditionHolds(core, cond) {
  let holds;
  switch (cond >> 1) {
    case 0: holds = core.Z; break;
    case 1: holds = core.C; break;
    case 2: holds = core.N; break;
    case 3: holds = core.V; break;
    case 4: holds = core.C && !core.Z; break;
    case 5: holds = core.N === core.V; break;
    default: holds = core.N === core.V && !core.Z; break;
  }
  return cond & 1 ? !holds : holds;
}

// ---- the step -----------------------------------------------------------------------------

/** One instruction of `this` core, as rp2040js's executeInstruction; returns its cycles. */
function step() {
  if (this.interruptsUpdated) return this.slowStep();
  const chip = this.rp2040;
  const r = this.registers;
  const pc = r[15] & ~1;
  const op = fetch16(this, chip, pc);
  const kind = KINDS[op];
  if (kind === 0) return this.slowStep();
  let op2 = 0;
  if (kind === K.BL) {
    op2 = fetch16(this, chip, pc + 2);
    if ((op2 & 0xd000) !== 0xd000) return this.slowStep();
  }
  r[15] += 2;
  let cycles = 1;
  const lo0 = op & 7;
  const lo3 = (op >> 3) & 7;
  const lo6 = (op >> 6) & 7;
  const hi8 = (op >> 8) & 7;
  switch (kind) {
    case K.LSL_IMM: {
      const shift = (op >> 6) & 0x1f;
      const input = r[lo3];
      const result = input << shift;
      r[lo0] = result;
      setNZ(this, result);
      if (shift) this.C = ((input >>> (32 - shift)) & 1) === 1;
      break;
    }
    case K.LSR_IMM: {
      const shift = (op >> 6) & 0x1f || 32;
      const input = r[lo3];
      const result = shift < 32 ? input >>> shift : 0;
      r[lo0] = result;
      setNZ(this, result);
      this.C = ((input >>> (shift - 1)) & 1) === 1;
      break;
    }
    case K.ASR_IMM: {
      const shift = (op >> 6) & 0x1f || 32;
      const input = r[lo3];
      const result = (input | 0) >> (shift < 32 ? shift : 31);
      r[lo0] = result;
      setNZ(this, result);
      this.C = ((input >>> (shift - 1)) & 1) === 1;
      break;
    }
    case K.ADD_REG: r[lo0] = add(this, r[lo3], r[lo6]); break;
    case K.SUB_REG: r[lo0] = sub(this, r[lo3], r[lo6]); break;
    case K.ADD_IMM3: r[lo0] = add(this, r[lo3], lo6); break;
    case K.SUB_IMM3: r[lo0] = sub(this, r[lo3], lo6); break;
    case K.MOV_IMM: r[hi8] = op & 0xff; setNZ(this, op & 0xff); break;
    case K.CMP_IMM: sub(this, r[hi8], op & 0xff); break;
    case K.ADD_IMM8: r[hi8] = add(this, r[hi8], op & 0xff); break;
    case K.SUB_IMM8: r[hi8] = sub(this, r[hi8], op & 0xff); break;
    case K.AND: { const v = r[lo0] & r[lo3]; r[lo0] = v; setNZ(this, v); break; }
    case K.EOR: { const v = r[lo0] ^ r[lo3]; r[lo0] = v; setNZ(this, v); break; }
    case K.ORR: { const v = r[lo0] | r[lo3]; r[lo0] = v; setNZ(this, v); break; }
    case K.BIC: { const v = r[lo0] & ~r[lo3]; r[lo0] = v; setNZ(this, v); break; }
    case K.MVN: { const v = ~r[lo3]; r[lo0] = v; setNZ(this, v); break; }
    case K.MUL: { const v = Math.imul(r[lo3], r[lo0]); r[lo0] = v; setNZ(this, v); break; }
    case K.TST: setNZ(this, r[lo0] & r[lo3]); break;
    case K.NEG: r[lo0] = sub(this, 0, r[lo3]); break;
    case K.CMP: sub(this, r[lo0], r[lo3]); break;
    case K.CMN: add(this, r[lo0], r[lo3]); break;
    case K.ADD_HI: {
      const m = (op >> 3) & 0xf;
      const d = ((op >> 4) & 8) | lo0;
      const sum = (d === 15 ? r[15] + 2 : r[d]) + (m === 15 ? r[15] + 2 : r[m]);
      if (d === 15) {
        r[15] = sum & ~1;
        cycles++;
      } else {
        r[d] = d === 13 ? sum & ~3 : sum;
      }
      break;
    }
    case K.CMP_HI: sub(this, r[((op >> 4) & 8) | lo0], r[(op >> 3) & 0xf]); break;
    case K.MOV_HI: {
      const m = (op >> 3) & 0xf;
      const d = ((op >> 4) & 8) | lo0;
      let value = m === 15 ? r[15] + 2 : r[m];
      if (d === 15) {
        value &= ~1;
        cycles++;
      } else if (d === 13) {
        value &= ~3;
      }
      r[d] = value;
      break;
    }
    case K.BX: this.BXWritePC(r[(op >> 3) & 0xf]); cycles++; break;
    case K.BLX: {
      r[14] = r[15] | 1; // before the target is read, as rp2040js does (BLX LR)
      r[15] = r[(op >> 3) & 0xf] & ~1;
      cycles++;
      this.blTaken(this, true);
      break;
    }
    case K.LDR_LIT: {
      const address = ((r[15] + 2) & ~3) + ((op & 0xff) << 2);
      cycles += ioCycles(this, chip, address, false);
      r[hi8] = read32(this, chip, address);
      break;
    }
    case K.STR_REG: case K.STRH_REG: case K.STRB_REG: case K.STR_IMM: case K.STRB_IMM:
    case K.STRH_IMM: case K.STR_SP: {
      let address;
      let t = lo0;
      if (kind <= K.STRB_REG) address = r[lo6] + r[lo3];
      else if (kind === K.STR_IMM) address = r[lo3] + (((op >> 6) & 0x1f) << 2);
      else if (kind === K.STRB_IMM) address = r[lo3] + ((op >> 6) & 0x1f);
      else if (kind === K.STRH_IMM) address = r[lo3] + (((op >> 6) & 0x1f) << 1);
      else {
        address = r[13] + ((op & 0xff) << 2);
        t = hi8;
      }
      cycles += ioCycles(this, chip, address, true);
      if (kind === K.STRH_REG || kind === K.STRH_IMM) write16(this, chip, address, r[t]);
      else if (kind === K.STRB_REG || kind === K.STRB_IMM) write8(this, chip, address, r[t]);
      else write32(this, chip, address, r[t]);
      break;
    }
    case K.LDR_REG: case K.LDR_IMM: case K.LDR_SP: {
      let address;
      let t = lo0;
      if (kind === K.LDR_REG) address = r[lo6] + r[lo3];
      else if (kind === K.LDR_IMM) address = r[lo3] + (((op >> 6) & 0x1f) << 2);
      else {
        address = r[13] + ((op & 0xff) << 2);
        t = hi8;
      }
      cycles += ioCycles(this, chip, address, false);
      r[t] = read32(this, chip, address);
      break;
    }
    case K.LDRB_REG: case K.LDRB_IMM: case K.LDRSB: {
      const address = kind === K.LDRB_IMM ? r[lo3] + ((op >> 6) & 0x1f) : r[lo6] + r[lo3];
      cycles += ioCycles(this, chip, address, false);
      const value = read8(this, chip, address);
      r[lo0] = kind === K.LDRSB ? (value << 24) >> 24 : value;
      break;
    }
    case K.LDRH_REG: case K.LDRH_IMM: case K.LDRSH: {
      const address = kind === K.LDRH_IMM ? r[lo3] + (((op >> 6) & 0x1f) << 1)
        : r[lo6] + r[lo3];
      cycles += ioCycles(this, chip, address, false);
      const value = read16(this, chip, address);
      r[lo0] = kind === K.LDRSH ? (value << 16) >> 16 : value;
      break;
    }
    case K.ADR: r[hi8] = (pc & ~3) + 4 + ((op & 0xff) << 2); break;
    case K.ADD_RD_SP: r[hi8] = r[13] + ((op & 0xff) << 2); break;
    case K.ADD_SP: r[13] = (r[13] + ((op & 0x7f) << 2)) & ~3; break;
    case K.SUB_SP: r[13] = (r[13] - ((op & 0x7f) << 2)) & ~3; break;
    case K.SXTH: r[lo0] = (r[lo3] << 16) >> 16; break;
    case K.SXTB: r[lo0] = (r[lo3] << 24) >> 24; break;
    case K.UXTH: r[lo0] = r[lo3] & 0xffff; break;
    case K.UXTB: r[lo0] = r[lo3] & 0xff; break;
    case K.PUSH: {
      // rp2040js charges a cycle for each low register, none for LR.
      let count = 0;
      for (let bits = op & 0x1ff; bits; bits &= bits - 1) count++;
      let address = r[13] - 4 * count;
      for (let i = 0; i < 8; i++) {
        if (op & (1 << i)) {
          write32(this, chip, address, r[i]);
          address += 4;
          cycles++;
        }
      }
      if (op & 0x100) write32(this, chip, address, r[14]);
      r[13] = (r[13] - 4 * count) & ~3;
      break;
    }
    case K.POP: {
      let address = r[13];
      for (let i = 0; i < 8; i++) {
        if (op & (1 << i)) {
          r[i] = read32(this, chip, address);
          address += 4;
          cycles++;
        }
      }
      if (op & 0x100) {
        r[13] = (address + 4) & ~3;
        this.BXWritePC(read32(this, chip, address));
        cycles += 2;
      } else {
        r[13] = address & ~3;
      }
      break;
    }
    case K.STM: case K.LDM: {
      let address = r[hi8];
      for (let i = 0; i < 8; i++) {
        if (op & (1 << i)) {
          if (kind === K.LDM) r[i] = read32(this, chip, address);
          else write32(this, chip, address, r[i]);
          address += 4;
          cycles++;
        }
      }
      // As rp2040js: no write-back when the base register is in the list.
      if (!(op & (1 << hi8))) r[hi8] = address;
      break;
    }
    case K.B_COND:
      if (conditionHolds(this, (op >> 8) & 0xf)) {
        r[15] += 2 + ((op << 24) >> 23);
        cycles++;
      }
      break;
    case K.B: r[15] += 2 + ((op << 21) >> 20); cycles++; break;
    case K.BL: {
      const s = (op >> 10) & 1;
      const i1 = 1 - (s ^ ((op2 >> 13) & 1));
      const i2 = 1 - (s ^ ((op2 >> 11) & 1));
      let offset = (i1 << 23) | (i2 << 22) | ((op & 0x3ff) << 12) | ((op2 & 0x7ff) << 1);
      if (s) offset -= 1 << 24;
      r[14] = (r[15] + 2) | 1;
      r[15] += 2 + offset;
      cycles += 2;
      this.blTaken(this, false);
      break;
    }
  }
  this.cycles += cycles;
  return cycles;
}

/** Make every Cortex-M0+ core of rp2040js's `mcu` (an RP2040) step through the table; rp2040js's
 * own step stays as `slowStep`. Once per process; later calls change nothing. */
export function installThumbDispatch(mcu) {
  const proto = Object.getPrototypeOf(mcu.core);
  if (proto.slowStep) return;
  // Stores to SRAM skip rp2040js's peripheral lookup: sound only while none sits there.
  for (let a = RAM; a < RAM + mcu.sram.length; a += 0x4000) {
    if (mcu.findPeripheral(a)) throw new Error('a peripheral at SRAM address ' + a.toString(16));
  }
  proto.slowStep = proto.executeInstruction;
  proto.executeInstruction = step;
}
