// The RP2040's SIO block as the two cores see it. Each core reaches the SIO on its own port:
// CPUID reads the core's number, the FIFO registers reach that core's ends of the inter-core
// FIFOs (sio_fifo.mjs), and the integer divider and the two interpolators are private to the
// core. GPIO and the 32 spinlocks are one set, shared. One object serves both ports (so that
// rp2040js's pins, which read `mcu.sio`, see the one GPIO state): `current` says which core
// is executing, and core 1's divider and interpolators live in a second, private RPSIO.

import { ROE, WOF } from './sio_fifo.mjs';

const CPUID = 0x000;
const FIFO_ST = 0x050;
const FIFO_WR = 0x054;
const FIFO_RD = 0x058;
// Per-core registers below SPINLOCK0: the divider (0x060-0x078) and interpolators (to 0x0fc).
const PRIVATE_FIRST = 0x060;
const PRIVATE_END = 0x100;

/** The dual-port SIO class, from rp2040js's `RPSIO` (extended, not edited):
 * `new DualSIO(mcu, fifos)`, `fifos` being the SioFifos between the cores. */
export function dualSioClass(RPSIO) {
  return class DualSIO extends RPSIO {
    constructor(mcu, fifos) {
      super(mcu);
      this.fifos = fifos;
      this.current = 0; // the core executing now, set by DualCore
      this.core1Private = new RPSIO(mcu);
    }

    readUint32(offset) {
      switch (offset) {
        case CPUID:
          return this.current;
        case FIFO_ST:
          return this.fifos.status(this.current);
        case FIFO_RD:
          return this.fifos.pop(this.current);
      }
      if (this.current === 1 && offset >= PRIVATE_FIRST && offset < PRIVATE_END) {
        return this.core1Private.readUint32(offset);
      }
      return super.readUint32(offset);
    }

    writeUint32(offset, value) {
      switch (offset) {
        case FIFO_ST:
          this.fifos.clearSticky(this.current, value & (WOF | ROE));
          return;
        case FIFO_WR:
          this.fifos.push(this.current, value);
          return;
      }
      if (this.current === 1 && offset >= PRIVATE_FIRST && offset < PRIVATE_END) {
        this.core1Private.writeUint32(offset, value);
      } else {
        super.writeUint32(offset, value);
      }
    }
  };
}
