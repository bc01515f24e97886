"""Cycle estimates for Armv7E-M and Armv8-M Mainline code run in the emulator (the
Cortex-M4F and Cortex-M33 builds), from the Cortex-M4's published instruction timing
(Cortex-M4 Technical Reference Manual, "Processor instruction timings"), which the M33's
three-stage pipeline shares for the classes that inner loops use:

- data processing, bit-field and extend instructions, MUL and MLA, the DSP-extension
  multiplies (SMLAD, SMLABB, SMULL, SMLAL, ...), IT: 1 cycle; MLS 2; SDIV/UDIV 2-12,
  counted as 7;
- LDR/STR of one register 2, but 1 when it directly follows another single load or store
  (the M4 pipelines their address and data phases, N + 1 for N in a row);
- LDRD/STRD 3; LDM/STM/PUSH/POP and VLDM/VSTM/VPUSH/VPOP 1 + registers;
- a taken branch (B, BL, BX, CBZ/CBNZ, a load or POP into PC) 1 + 2 for the pipeline
  refill (the manual gives 1 to 3), a branch not taken 1;
- VFP: VLDR/VSTR 2, VMLA/VMLS/VFMA/VFMS 3, VDIV/VSQRT 14, other VFP instructions 1.

It ignores wait states of the memories, as the Cortex-M0+ model does (m0_timing).
Decoding uses capstone (pip install capstone).
"""

import re

_REFILL = 2
_ONE_CYCLE_LOADS = re.compile(r"^(ldr|str)(b|h|sb|sh)?(t)?(\.w|\.n)?$")
_MULTIPLE = re.compile(r"^(ldm|stm|push|pop|vldm|vstm|vpush|vpop)")
_BRANCH = re.compile(r"^(b|bl|blx|bx|cbz|cbnz|tbb|tbh)(\.w|\.n)?$|^b(eq|ne|cs|hs|cc|lo|mi|pl|"
                     r"vs|vc|hi|ls|ge|lt|gt|le)(\.w|\.n)?$")
_CONDITIONAL = re.compile(r"^(cbz|cbnz)$|^b(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|"
                          r"le)(\.w|\.n)?$")

_disassembler = None


def _capstone():
    global _disassembler
    if _disassembler is None:
        try:
            import capstone
        except ImportError:
            raise RuntimeError("the Cortex-M4/M33 cycle model needs capstone: pip install "
                               "capstone") from None
        _disassembler = capstone.Cs(capstone.CS_ARCH_ARM,
                                    capstone.CS_MODE_THUMB | capstone.CS_MODE_MCLASS)
    return _disassembler


def _registers(op_str):
    """How many registers a register list ({r4-r7, lr}) names."""
    inner = op_str[op_str.index("{") + 1:op_str.index("}")]
    count = 0
    for part in inner.split(","):
        part = part.strip()
        if "-" in part:
            lo, hi = (int(re.sub(r"\D", "", p)) for p in part.split("-"))
            count += hi - lo + 1
        elif part:
            count += 1
    return count


def instruction_cycles(mnemonic, op_str, after_single_access=False):
    """(cycles with a branch taken, cycles saved when a conditional branch falls through,
    is a single load or store) of one instruction (capstone's mnemonic and operands)."""
    m = mnemonic.lower()
    writes_pc = re.match(r"^\s*pc\b", op_str) is not None
    if _BRANCH.match(m):
        return 1 + _REFILL, (_REFILL if _CONDITIONAL.match(m) else 0), False
    if _MULTIPLE.match(m):
        n = _registers(op_str)
        loads_pc = "pc" in op_str and m.startswith(("ldm", "pop"))
        return 1 + n + (_REFILL if loads_pc else 0), 0, False
    if m.startswith(("ldrd", "strd")):
        return 3, 0, False
    if _ONE_CYCLE_LOADS.match(m) or m.startswith(("ldrex", "strex")):
        cycles = 1 if after_single_access else 2
        return cycles + (_REFILL if writes_pc and m.startswith("ldr") else 0), 0, True
    if m.startswith(("vldr", "vstr")):
        return 2, 0, False
    if m.startswith(("vmla", "vmls", "vfma", "vfms", "vfnma", "vfnms", "vnmla", "vnmls")):
        return 3, 0, False
    if m.startswith(("vdiv", "vsqrt")):
        return 14, 0, False
    if m.startswith(("sdiv", "udiv")):
        return 7, 0, False
    if m.startswith("mls"):
        return 2, 0, False
    if writes_pc and m.startswith(("mov", "add")):
        return 1 + _REFILL, 0, False
    return 1, 0, False


def block_cost(code):
    """(instructions, cycles with a final conditional branch taken, the cycles fewer when
    that branch falls through) of one straight-line block of Thumb-2 code (bytes); the
    same result as burn.host.flex.m0_timing.block_cost, for its Counter."""
    count = cycles = refund = 0
    after_access = False
    for ins in _capstone().disasm(bytes(code), 0):
        c, refund, after_access = instruction_cycles(ins.mnemonic, ins.op_str, after_access)
        cycles += c
        count += 1
    return count, cycles, refund
