"""How unicorn runs each emulated target of flex_c (burn.host.flex.emulator): the CPU model,
and the calling convention a call follows: the registers of the integer and float
arguments (more integer arguments go on the stack), the stack pointer, the register that
holds the return address, the program counter, the bit that marks an entry address
(Thumb code's 1), the registers set before every call, and the bytes of a register (a
pointer, a stacked argument's slot)."""

from collections import namedtuple

from unicorn import (UC_ARCH_ARM, UC_ARCH_ARM64, UC_ARCH_RISCV, UC_MODE_ARM, UC_MODE_MCLASS,
                     UC_MODE_RISCV32, UC_MODE_THUMB)
from unicorn import arm64_const as a64
from unicorn import arm_const as arm
from unicorn import riscv_const as rv

Arch = namedtuple("Arch", "uc_arch uc_mode cpu args float_args sp link pc entry_bit setup "
                 "word")

_ARM_ARGS = tuple(getattr(arm, "UC_ARM_REG_R%d" % i) for i in range(4))
_VFP_ARGS = tuple(getattr(arm, "UC_ARM_REG_S%d" % i) for i in range(16))


def _cortex_m(cpu, fpu):
    """A Cortex-M core: the AAPCS, floats in s0-s15 when it has an FPU (enabled)."""
    return Arch(UC_ARCH_ARM, UC_MODE_THUMB | UC_MODE_MCLASS, cpu, _ARM_ARGS,
                _VFP_ARGS if fpu else (), arm.UC_ARM_REG_SP, arm.UC_ARM_REG_LR,
                arm.UC_ARM_REG_PC, 1, ((arm.UC_ARM_REG_FPEXC, 0x40000000),) if fpu else (), 4)


# target (burn.host.flex.targets.TARGETS): its emulation
EMULATED = {
    "cortex-m0plus": _cortex_m(arm.UC_CPU_ARM_CORTEX_M0, False),
    "cortex-m4f": _cortex_m(arm.UC_CPU_ARM_CORTEX_M4, True),
    "cortex-m33": _cortex_m(arm.UC_CPU_ARM_CORTEX_M33, True),
    # ilp32: integer (and soft-float) arguments in a0-a7
    "riscv32": Arch(UC_ARCH_RISCV, UC_MODE_RISCV32, rv.UC_CPU_RISCV32_ANY,
                    tuple(getattr(rv, "UC_RISCV_REG_A%d" % i) for i in range(8)), (),
                    rv.UC_RISCV_REG_SP, rv.UC_RISCV_REG_RA, rv.UC_RISCV_REG_PC, 0, (), 4),
    # AAPCS64: integer arguments in x0-x7, floats in s0-s7, 8-byte stack slots; the "max"
    # CPU has the dot-product extension, and CPACR_EL1.FPEN = 3 lets EL1 code use FP/SIMD
    "aarch64": Arch(UC_ARCH_ARM64, UC_MODE_ARM, a64.UC_CPU_ARM64_MAX,
                    tuple(getattr(a64, "UC_ARM64_REG_X%d" % i) for i in range(8)),
                    tuple(getattr(a64, "UC_ARM64_REG_S%d" % i) for i in range(8)),
                    a64.UC_ARM64_REG_SP, a64.UC_ARM64_REG_LR, a64.UC_ARM64_REG_PC, 0,
                    ((a64.UC_ARM64_REG_CPACR_EL1, 3 << 20),), 8),
}


def instruction_count(code):
    """Instructions in one straight-line block of RISC-V code with the compressed extension
    (bytes): an instruction whose low two bits are 11 is 4 bytes long, any other 2."""
    pos = count = 0
    while pos < len(code):
        pos += 4 if code[pos] & 3 == 3 else 2
        count += 1
    return count


def rv32_block_cost(code):
    """(instructions, instructions, 0) of a RISC-V block: the shape of
    burn.host.flex.m0_timing.block_cost for its Counter. No cycle model: RISC-V cores'
    timings differ too widely to publish one, so cycles here are instructions."""
    n = instruction_count(code)
    return n, n, 0


def a64_block_cost(code):
    """(instructions, instructions, 0) of an AArch64 block (4-byte instructions): no cycle
    model, as for RISC-V."""
    n = len(code) // 4
    return n, n, 0


def cost_model(target):
    """(block cost function for burn.host.flex.m0_timing.Counter, whether its cycles are a
    timing model) of an emulated target: the Cortex-M0+'s, the Cortex-M4's (for the cores
    with the DSP extension), or RISC-V's or AArch64's instruction count alone."""
    if target == "cortex-m0plus":
        from burn.host.flex.m0_timing import block_cost
        return block_cost, True
    if target.startswith("cortex-m"):
        from burn.host.flex.m4_timing import block_cost
        return block_cost, True
    return (a64_block_cost if target == "aarch64" else rv32_block_cost), False
