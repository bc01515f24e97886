// The RP2040's inter-core FIFOs (SIO mailboxes): two 8-word queues, one each way. A core
// writes FIFO_WR into its TX queue, which is the other core's RX queue, and reads FIFO_RD
// from its RX queue. FIFO_ST shows VLD (RX not empty), RDY (TX not full) and the sticky
// WOF (written when full) and ROE (read when empty) flags; a write of 1 clears a sticky flag.
// Each core's FIFO interrupt (SIO_IRQ_PROC0 = 15 for core 0, SIO_IRQ_PROC1 = 16 for core 1,
// each wired to its own core's NVIC only) is raised while VLD, WOF or ROE is set.

const DEPTH = 8;
export const VLD = 1;
export const RDY = 2;
export const WOF = 4;
export const ROE = 8;
const SIO_IRQ_PROC0 = 15;

export class SioFifos {
  /** `cores`: the two CortexM0Core objects, whose FIFO interrupt lines these queues drive. */
  constructor(cores) {
    this.cores = cores;
    this.queues = [[], []]; // queues[i]: the words core i has to read
    this.sticky = [0, 0];
  }

  status(core) {
    return (this.queues[core].length ? VLD : 0) |
      (this.queues[1 - core].length < DEPTH ? RDY : 0) | this.sticky[core];
  }

  push(core, value) {
    const target = this.queues[1 - core];
    if (target.length < DEPTH) {
      target.push(value >>> 0);
      this.updateIrq(1 - core);
    } else {
      this.sticky[core] |= WOF;
      this.updateIrq(core);
    }
  }

  pop(core) {
    const queue = this.queues[core];
    if (!queue.length) {
      this.sticky[core] |= ROE;
      this.updateIrq(core);
      return 0;
    }
    const value = queue.shift();
    this.updateIrq(core);
    return value;
  }

  clearSticky(core, bits) {
    this.sticky[core] &= ~bits;
    this.updateIrq(core);
  }

  updateIrq(core) {
    const raised = (this.queues[core].length > 0) || this.sticky[core] !== 0;
    this.cores[core].setInterrupt(SIO_IRQ_PROC0 + core, raised);
  }
}
