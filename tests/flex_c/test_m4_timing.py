"""The Cortex-M4/M33 cycle model (burn.host.flex.m4_timing) against sequences timed by hand
from the Cortex-M4's published instruction timing, one instruction class at a time, each
assembled for the Cortex-M33; and its instruction count against the emulator's own report
of every instruction a kernel runs."""

import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("capstone", reason="the cycle model needs capstone: pip install capstone")

from unicorn import UC_HOOK_CODE

from burn.host.flex import m4_timing
from burn.host.flex.elf import Elf
from burn.host.flex.emulator import EmulatedLib
from burn.host.flex.m0_timing import Counter
from burn.host.flex.targets import TARGETS


def _assemble(tmp_path, text):
    """The machine code of `text` (Thumb-2, Cortex-M33 with DSP and FPU)."""
    triple, cpu, _opt, _link = TARGETS["cortex-m33"]
    src, obj = tmp_path / "seq.s", tmp_path / "seq.o"
    src.write_text(".syntax unified\n.thumb\n.text\n" + text + "\n")
    subprocess.run([sys.executable, "-m", "ziglang", "cc", "-target", triple] + cpu +
                   ["-c", str(src), "-o", str(obj)], check=True, capture_output=True)
    elf = Elf(obj.read_bytes())
    text_section = next(s for s in elf.sections if s.name == ".text")
    return elf.data[text_section.offset:text_section.offset + text_section.size]


# (sequence, instructions, cycles with a final branch taken, cycles saved when it falls
# through): timed by hand from the Cortex-M4 TRM's table
SEQUENCES = [
    ("adds r0, r1\nsxtb16 r2, r3\nsxtb16 r2, r3, ror #8\nsadd16 r4, r4, r5", 4, 4, 0),
    ("smlad r4, r5, r6, r4\nsmull r0, r1, r2, r3\nsmlal r0, r1, r2, r3\nmla r0, r1, r2, r3",
     4, 4, 0),
    ("mls r0, r1, r2, r3", 1, 2, 0),
    ("sdiv r0, r1, r2", 1, 7, 0),
    ("ldr r0, [r1]", 1, 2, 0),
    ("ldr r0, [r1]\nldr r2, [r3, #4]\nstr r2, [r3]", 3, 4, 0),  # pipelined: 2 + 1 + 1
    ("ldr r0, [r1]\nadds r0, #1\nldrb r2, [r3]", 3, 5, 0),      # not back to back
    ("ldrd r0, r1, [r2]\nstrd r0, r1, [r2, #8]", 2, 6, 0),
    ("ldm r0!, {r4-r7}", 1, 5, 0),
    ("push {r4-r11, lr}", 1, 10, 0),
    ("pop {r4-r11, pc}", 1, 12, 0),                             # 1 + 9 + refill
    ("vmla.f32 s0, s1, s2\nvadd.f32 s0, s1, s2\nvdiv.f32 s0, s1, s2", 3, 18, 0),
    ("vldr s0, [r0]\nvpush {s16-s19}", 2, 7, 0),
    ("cmp r0, r1\nbne far", 2, 4, 2),                          # taken 1 + 2, else 1
    ("subs r0, #1\nbx lr", 2, 4, 0),
    ("cbz r0, 3f\nnop\n3:", 2, 4, 0),
    ("it ne\nmvnne r0, #3", 2, 2, 0),                           # issued either way
]


@pytest.mark.parametrize("text, count, cycles, refund", SEQUENCES)
def test_hand_timed_sequences(tmp_path, text, count, cycles, refund):
    assert m4_timing.block_cost(_assemble(tmp_path, text)) == (count, cycles, refund)


def test_the_counter_counts_every_instruction_the_emulator_runs():
    """Every instruction the emulator reports is counted, and so is every instruction of an
    IT block whose condition failed (the emulator skips it; the core issues it)."""
    from burn.host.flex.binding import Struct

    lib = EmulatedLib("cortex-m33")
    rng = np.random.default_rng(3)
    x = rng.integers(-128, 128, 70, dtype=np.int8)
    w = rng.integers(-127, 128, 70 * 9, dtype=np.int8)
    bias = rng.integers(-500, 500, 9).astype(np.int32)
    args = [1, 70, 9, x, x.size, w, w.size, 0, bias, 9, np.full(9, 1 << 30, np.int32),
            np.full(9, -7, np.int32), 9, Struct("flex_s8_quant", (3, -2, -128, 127)),
            np.zeros(9, np.int8), 9]
    events = []  # ("block", address, size) and ("code", address) in the order they ran
    hook = lib.uc.hook_add(UC_HOOK_CODE, lambda uc, addr, size, data: events.append(
        ("code", addr)))
    counter = Counter(lib, m4_timing.block_cost)

    def on_block(addr, size):
        events.append(("block", addr, size))
        counter.on_block(addr, size)

    try:
        assert lib.trace_blocks("flex_s8_fully_connected", args, on_block) == 0
    finally:
        lib.uc.hook_del(hook)
    import capstone

    md = capstone.Cs(capstone.CS_ARCH_ARM, capstone.CS_MODE_THUMB | capstone.CS_MODE_MCLASS)
    md.detail = True
    ran, skipped, block = 0, 0, None
    for event in events + [("block", None, 0)]:
        if event[0] == "code":
            block[1].discard(event[1])
            ran += 1
            continue
        if block is not None:  # what the block held but did not run: failed conditions
            for ins in block[0]:
                if ins.address in block[1]:
                    assert ins.cc not in (capstone.arm.ARM_CC_AL, capstone.arm.ARM_CC_INVALID)
                    skipped += 1
        if event[1] is not None:
            decoded = list(md.disasm(lib.read_code(event[1], event[2]), event[1]))
            block = (decoded, {ins.address for ins in decoded})
    assert ran > 500 and counter.instructions == ran + skipped
    assert counter.cycles > counter.instructions


def test_a_traced_call_counts_the_same_after_an_untraced_one():
    """Blocks that an earlier call translated without the hook still report to a later
    trace: the same call costs the same either way."""
    from burn.host.flex.binding import Struct

    lib = EmulatedLib("cortex-m0plus")
    x = np.arange(-20, 20, dtype=np.int8)
    w = np.ones(40 * 3, np.int8)
    args = [1, 40, 3, x, x.size, w, w.size, 0, None, 0, np.full(3, 1 << 30, np.int32),
            np.full(3, -7, np.int32), 3, Struct("flex_s8_quant", (3, -2, -128, 127)),
            np.zeros(3, np.int8), 3]
    counts = []
    for traced_first in (True, False):
        if not traced_first:
            assert lib.call("flex_s8_fully_connected", args) == 0
        counter = Counter(lib, m4_timing.block_cost)
        assert lib.trace_blocks("flex_s8_fully_connected", args, counter.on_block) == 0
        counts.append(counter.instructions)
        lib = EmulatedLib("cortex-m0plus")
    assert counts[0] == counts[1] > 0
