"""Run the Cortex-M, RISC-V and AArch64 builds of flex_c in the unicorn emulator.

`EmulatedLib(target)` has the same `call(name, args)` as the host library (see
burn.host.flex.binding), so `GraphKernels(EmulatedLib("cortex-m0plus"))` runs the int8
kernels on an emulated Cortex-M0+ and the tests compare them with the host bit for bit.
Each call copies its buffers into emulated RAM (numpy views of one array as that whole
array, once, so that buffers which overlap on the host overlap there too: an output placed
over its input as the .bst arena plans it), follows the target's calling convention
(burn.host.flex.emulated_arch: the AAPCS, soft-float for Cortex-M0+ and hard-float VFP
registers for the cores with an FPU; RISC-V's ilp32; AArch64's AAPCS64), runs the function
until it returns to a magic address, and copies writable buffers back.
"""

import struct

from unicorn import UC_HOOK_BLOCK, Uc, UcError

from burn.host.flex.elf import STT_FUNC, Elf
from burn.host.flex.emulated_arch import EMULATED
from burn.host.flex.placement import Placement, copy_back
from burn.host.flex.targets import build

FLASH = 0x10000000
FLASH_SIZE = 2 << 20
RAM = 0x20000000
RAM_SIZE = 16 << 20
STACK_SIZE = 64 << 10
RETURN = FLASH + FLASH_SIZE - 0x100  # never code: the return address of every call


class EmulationError(RuntimeError):
    """The emulated function faulted or ran too long."""


class EmulatedLib:
    """A Cortex-M, RISC-V or AArch64 build of flex_c loaded into a fresh unicorn instance:
    the target's optimised kernels, or with `reference` the reference kernels alone; or
    `image`, another ELF linked for the same memory map (flex_c/emulated.ld), such as a
    peer library's."""

    def __init__(self, target="cortex-m0plus", opt="-Os", reference=False, image=None):
        if target not in EMULATED:
            raise ValueError("no emulator for target %r; emulated: %s" % (
                target, ", ".join(sorted(EMULATED))))
        self.target = target
        self.arch = arch = EMULATED[target]
        self.name = target + (" (reference kernels)" if reference else "")
        self.build = None if image else build(target, opt, reference=reference)
        with open(image or self.build.image, "rb") as f:
            elf = Elf(f.read())
        self.functions = {s.name: s.value & ~arch.entry_bit for s in elf.symbols
                          if s.kind == STT_FUNC and s.section is not None}
        self.hard_float = bool(arch.float_args)
        uc = Uc(arch.uc_arch, arch.uc_mode)
        uc.ctl_set_cpu_model(arch.cpu)
        uc.mem_map(FLASH, FLASH_SIZE)
        uc.mem_map(RAM, RAM_SIZE)
        mapped = [(FLASH, FLASH + FLASH_SIZE), (RAM, RAM + RAM_SIZE)]
        heap = RAM
        for vaddr, data, memsz in elf.segments:
            # an image linked elsewhere (an STM32's flash at 0x08000000) gets its range mapped
            start, end = vaddr & ~0xFFF, (vaddr + memsz + 0xFFF) & ~0xFFF
            if end > start and not any(lo <= start and end <= hi for lo, hi in mapped):
                uc.mem_map(start, end - start)
                mapped.append((start, end))
            uc.mem_write(vaddr, data + bytes(memsz - len(data)))
            if RAM <= vaddr < RAM + RAM_SIZE:
                heap = max(heap, vaddr + memsz)
        self.heap_base = (heap + 7) & ~7
        for reg, value in arch.setup:
            uc.reg_write(reg, value)
        self.uc = uc
        self._hook = None

    # -- marshalling ----------------------------------------------------------------------
    def _alloc(self, nbytes):
        addr = self._top
        self._top = (addr + max(nbytes, 1) + 7) & ~7
        if self._top > RAM + RAM_SIZE - STACK_SIZE:
            raise MemoryError("emulated RAM exhausted by kernel buffers")
        return addr

    def _start(self, name, args):
        if name not in self.functions:
            raise AttributeError("the %s build has no function %s" % (self.target, name))
        self._top = self.heap_base
        placement = Placement(self._alloc, self.uc.mem_write, self.arch.word)
        words, floats = [], []
        for a in args:
            if isinstance(a, float):
                bits = struct.unpack("<I", struct.pack("<f", a))[0]
                (floats if self.hard_float else words).append(bits)
            else:
                words.append(placement.word(a))
        written = placement.written
        uc, arch = self.uc, self.arch
        if len(floats) > len(arch.float_args):
            raise ValueError("%s takes %d float arguments; the emulated %s passes at most %d"
                             % (name, len(floats), self.target, len(arch.float_args)))
        sp = RAM + RAM_SIZE - 64
        stacked = words[len(arch.args):]
        sp -= arch.word * len(stacked)
        sp &= ~15
        if stacked:  # a 32-bit value in the low half of a 64-bit slot (little-endian)
            uc.mem_write(sp, struct.pack("<%d%s" % (len(stacked), "IQ"[arch.word == 8]),
                                         *stacked))
        for reg, value in zip(arch.args, words):
            uc.reg_write(reg, value)
        for reg, value in zip(arch.float_args, floats):
            uc.reg_write(reg, value)
        uc.reg_write(arch.sp, sp)
        uc.reg_write(arch.link, RETURN | arch.entry_bit)
        return written

    def call(self, name, args, timeout_s=120):
        """Call `name` with binding-style `args`; returns the int32 status."""
        written = self._start(name, args)
        arch = self.arch
        try:
            self.uc.emu_start(self.functions[name] | arch.entry_bit, RETURN,
                              timeout=int(timeout_s * 1e6))
        except UcError as e:
            pc = self.uc.reg_read(arch.pc)
            raise EmulationError("%s on %s faulted at pc=0x%08x: %s" % (
                name, self.target, pc, e)) from None
        if self.uc.reg_read(arch.pc) != RETURN:
            raise EmulationError("%s on %s did not return within %ss" % (
                name, self.target, timeout_s))
        copy_back(written, lambda addr, n: bytes(self.uc.mem_read(addr, n)))
        status = self.uc.reg_read(arch.args[0]) & 0xFFFFFFFF  # AArch64: w0 of x0
        return status - (1 << 32) if status & 0x80000000 else status

    def trace_blocks(self, name, args, on_block):
        """Call `name` with `on_block(address, size)` invoked for every executed block
        (translation block) of the emulated code; returns the status."""
        hook = self.uc.hook_add(UC_HOOK_BLOCK, lambda uc, addr, size, data: on_block(addr,
                                                                                      size))
        # blocks translated by an earlier call without the hook would not report to it
        self.uc.ctl_flush_tb()
        try:
            return self.call(name, args)
        finally:
            self.uc.hook_del(hook)

    def read_code(self, addr, size):
        """Bytes of emulated memory (the image's code) at `addr`."""
        return bytes(self.uc.mem_read(addr, size))
