"""Cycle estimates for Cortex-M0+ code run in the emulator.

The model (RP2040: single-cycle multiplier): loads and stores 2 cycles; LDM/STM/PUSH/POP
1+N (POP that loads PC 3+N); taken branch 2, not taken 1; BL 3; BX/BLX 2; MULS 1; other
data processing 1. It ignores flash wait states and the XIP cache, so real boards running
from flash are slower than these figures.
"""


def _popcount(v):
    return bin(v).count("1")


def instruction_cycles(hw, hw2=None):
    """(cycles, size in bytes, is_conditional_branch) of the Thumb instruction starting
    with halfword `hw`; conditional branches are costed as taken."""
    top5 = hw >> 11
    if top5 in (0b11101, 0b11110, 0b11111):  # 32-bit: BL, or MSR/MRS/barriers
        is_bl = top5 == 0b11110 and hw2 is not None and (hw2 >> 14) == 0b11 and hw2 & 0x1000
        return (3 if is_bl else 4), 4, False
    if top5 == 0b01001 or hw >> 12 in (0b0101, 0b1000, 0b1001) or hw >> 13 == 0b011:
        return 2, 2, False  # LDR literal, register / immediate / SP-relative loads, stores
    if hw & 0xFE00 == 0xB400:  # PUSH
        return 1 + _popcount(hw & 0x1FF), 2, False
    if hw & 0xFE00 == 0xBC00:  # POP
        n = _popcount(hw & 0xFF)
        return (3 + n if hw & 0x100 else 1 + n), 2, False
    if hw >> 12 == 0b1100:  # LDM / STM
        return 1 + _popcount(hw & 0xFF), 2, False
    if hw >> 12 == 0b1101 and (hw >> 8) & 0xF < 0b1110:  # conditional branch
        return 2, 2, True
    if top5 == 0b11100:  # unconditional branch
        return 2, 2, False
    if hw & 0xFF00 == 0x4700:  # BX / BLX register
        return 2, 2, False
    if hw & 0xFD00 == 0x4400 and ((hw >> 4) & 8 | hw & 7) == 15:  # ADD / MOV to PC
        return 2, 2, False
    return 1, 2, False


def block_cost(code):
    """(instructions, cycles with a final conditional branch taken, the cycles fewer when
    that branch falls through) of one straight-line block of Thumb code (bytes)."""
    pos = count = cycles = 0
    cond = False
    while pos + 1 < len(code):
        hw = code[pos] | code[pos + 1] << 8
        hw2 = code[pos + 2] | code[pos + 3] << 8 if pos + 3 < len(code) else None
        c, size, cond = instruction_cycles(hw, hw2)
        cycles += c
        count += 1
        pos += size
    return count, cycles, 1 if cond else 0


class Counter:
    """Accumulates instructions and estimated cycles over the blocks an emulated call runs
    (`EmulatedLib.trace_blocks(name, args, counter.on_block)`), each block costed by
    `cost` (this module's block_cost, or another core's with the same result)."""

    def __init__(self, lib, cost=block_cost):
        self.lib = lib
        self.cost = cost
        self.instructions = 0
        self.cycles = 0
        self._cache = {}
        self._fallthrough = None

    def on_block(self, addr, size):
        """Block hook: add the block's cost; a conditional branch that fell through to this
        block cost less than counted (its refund)."""
        info = self._cache.get(addr)
        if info is None:
            info = self.cost(self.lib.read_code(addr, size))
            self._cache[addr] = info
        if self._fallthrough is not None and self._fallthrough[0] == addr:
            self.cycles -= self._fallthrough[1]
        count, cycles, refund = info
        self.instructions += count
        self.cycles += cycles
        self._fallthrough = (addr + size, refund) if refund else None
