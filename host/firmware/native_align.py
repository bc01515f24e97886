"""Word alignment of frozen Cortex-M0+ and RISC-V native code: a change the firmware build
makes to its private copy of MicroPython (tools/mpy-tool.py).

MicroPython's ARMv6-M native emitter (py/asmthumb.c, `asm_thumb_mov_reg_i32`) loads a 32-bit
constant with `ldr rX, [pc, #0]` from a word placed in the code after a branch, padding
with a nop so that the word lies at a multiple of 4 from the function's first byte: it
assumes that the function starts on a word boundary. Code loaded from a .mpy file lives in
the heap, which is word aligned. `mpy-tool.py` (v1.28.0) freezes ARMv6-M machine code as a
byte array aligned to 2 bytes only; where the linker puts a function at an address 2 mod 4,
the load reads the branch and the low half of the constant instead ((low << 16) | 0xE001),
and viper code computes wrong results without any error (for instance 0x3FFFFFFF reads as
-8191). ARMv7-M code builds such constants with movw/movt and is not affected. The change
gives ARMv6-M the 4-byte alignment that mpy-tool already gives ARMv6 and Xtensa code.

RV32IMC code is frozen 2-byte aligned into .text, and GNU as (binutils 2.40) emits no padding
for a 2-byte `.align` in a code section when compressed instructions are on: it takes such a
section to be 2-aligned always, which byte arrays of odd length break. A frozen function can
then start at an odd address (an illegal-instruction trap when called). A 4-byte alignment
is padded (with linker relaxation off, which burn's RISC-V board asks for: with it on, the
linker cannot keep the padding it needs).
"""

from burn.host.firmware.tree_patch import replace_once

MPY_TOOL = ("tools", "mpy-tool.py")
# The architectures that mpy-tool aligns to 4 bytes, as v1.28.0 lists them.
_WORD_ALIGNED = "            MP_NATIVE_ARCH_ARMV6,\n            MP_NATIVE_ARCH_XTENSA,\n"
_WITH_ARMV6M = ("            MP_NATIVE_ARCH_ARMV6,\n            MP_NATIVE_ARCH_ARMV6M,\n"
                "            MP_NATIVE_ARCH_RV32IMC,\n            MP_NATIVE_ARCH_XTENSA,\n")


def word_align_native_code(tree):
    """Make tree/tools/mpy-tool.py freeze ARMv6-M and RV32IMC native code word aligned (see
    the module docstring). Idempotent; FirmwareError when the tool is not the expected one."""
    replace_once(tree.joinpath(*MPY_TOOL), _WORD_ALIGNED, _WITH_ARMV6M,
                 "does not list the word-aligned native architectures as MicroPython v1.28.0 "
                 "does; frozen Cortex-M0+ or RISC-V viper code could be misaligned (wrong "
                 "results or a trap), so the build stops")
