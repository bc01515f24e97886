// One core's view of the RP2040's SIO block. The SIO is reached by each core on its own
// port: CPUID reads the core's number, the FIFO registers reach that core's ends of the
// inter-core FIFOs, and the integer divider and the two interpolators are private to the
// core. GPIO and the 32 spinlocks are one set, shared: core 1's view hands those registers
// to core 0's, which holds them (rp2040js's pins read core 0's `mcu.sio`).

import { ROE, WOF } from './sio_fifo.mjs';

const CPUID = 0x000;
const FIFO_ST = 0x050;
const FIFO_WR = 0x054;
const FIFO_RD = 0x058;
// Per-core registers below SPINLOCK0: the divider (0x060-0x078) and interpolators (to 0x0fc).
const PRIVATE_FIRST = 0x060;
const PRIVATE_END = 0x100;

/** Builds the SIO class for rp2040js's `RPSIO` (the package's own class is extended, not
 * edited): `new CoreSIO(chip, index, fifos, shared)` where `chip` is the core's view of the
 * RP2040, `fifos` the SioFifos both cores share and `shared` core 0's CoreSIO (omitted for
 * core 0 itself). */
export function coreSioClass(RPSIO) {
  return class CoreSIO extends RPSIO {
    constructor(chip, index, fifos, shared = null) {
      super(chip);
      this.index = index;
      this.fifos = fifos;
      this.shared = shared;
    }

    readUint32(offset) {
      switch (offset) {
        case CPUID:
          return this.index;
        case FIFO_ST:
          return this.fifos.status(this.index);
        case FIFO_RD:
          return this.fifos.pop(this.index);
      }
      if (this.shared === null || (offset >= PRIVATE_FIRST && offset < PRIVATE_END)) {
        return super.readUint32(offset);
      }
      return this.shared.readUint32(offset);
    }

    writeUint32(offset, value) {
      switch (offset) {
        case FIFO_ST:
          this.fifos.clearSticky(this.index, value & (WOF | ROE));
          return;
        case FIFO_WR:
          this.fifos.push(this.index, value);
          return;
      }
      if (this.shared === null || (offset >= PRIVATE_FIRST && offset < PRIVATE_END)) {
        super.writeUint32(offset, value);
      } else {
        this.shared.writeUint32(offset, value);
      }
    }
  };
}
