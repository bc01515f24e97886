"""Run a Cortex-M55 build of flex_c (or a peer library linked the same way) in QEMU's
`mps3-an547` machine, for the instructions unicorn does not emulate (Helium, MVE).

`QemuLib(target)` has the same `call(name, args)` as burn.host.flex.emulator.EmulatedLib:
the ELF linked for flex_c/emulated.ld (code at 0x10000000, the AN547's ITCM seen from the
secure state the core starts in; data at 0x20000000, its DTCM) is loaded by QEMU, stopped
before the first instruction, and driven through QEMU's GDB stub (burn.host.flex.gdb_remote):
each call's buffers are written into the DTCM above the image's data (burn.host.flex.placement),
its integer arguments go to r0-r3 and the stack (the AAPCS), and a four-instruction
trampoline reads SysTick, calls the function, reads SysTick again and stops at a breakpoint.

QEMU counts no cycles. With `-icount shift=0` it runs one instruction per nanosecond of the
machine's clock; SysTick counts the core's 32 MHz clock, so `count(name, args)` gives the
instructions of one call to within 32 (a tick is 31.25 instructions).
"""

import shutil
import socket
import struct
import subprocess
import weakref

from burn.host.flex.elf import STT_FUNC, Elf
from burn.host.flex.gdb_remote import GdbError, GdbRemote
from burn.host.flex.placement import Placement, copy_back
from burn.host.flex.targets import build

# target: (QEMU machine, its SysTick clock in Hz)
MACHINES = {"cortex-m55": ("mps3-an547", 32_000_000)}
RAM = 0x20000000
RAM_SIZE = 512 << 10  # the DTCM
STACK_SIZE = 32 << 10
STUB = 0x1007FE00  # the last 512 bytes of the ITCM: the trampolines, never flex's code
INSTALL = "apt-get install -y qemu-system-arm"

# Thumb code at STUB, each ending in `b .` where a breakpoint stops the core:
#   poke:  str r1, [r0]; dsb sy; isb sy; b .       (a system register write, as the core)
#   call:  ldr r4, [r6]; blx r12; ldr r5, [r6]; b .  (r6: SysTick's current value)
_POKE, _POKE_STOP = STUB, STUB + 10
_CALL, _CALL_STOP = STUB + 16, STUB + 22
_CODE = (bytes.fromhex("0160" "bff34f8f" "bff36f8f" "fee7") + bytes(4)
         + bytes.fromhex("3468" "e047" "3568" "fee7"))
_CPACR, _SYST_CSR, _SYST_RVR, _SYST_CVR = 0xE000ED88, 0xE000E010, 0xE000E014, 0xE000E018
_SP, _PC, _XPSR = 13, 15, 25  # QEMU's register numbers for the M profile
_D0 = 26  # d0-d15 follow; s(2i) and s(2i + 1) are d(i)'s low and high words
_THUMB = 1 << 24


class QemuError(RuntimeError):
    """QEMU is missing, the call faulted or it ran too long."""


def _end(proc):
    """Stop QEMU (at close, or when its QemuLib is collected or the interpreter exits)."""
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    if proc.stdout:
        proc.stdout.close()


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class QemuLib:
    """A build of flex_c for `target` (or `image`, an ELF linked for flex_c/emulated.ld) in
    one QEMU process; close() (or a with block) ends it."""

    def __init__(self, target="cortex-m55", opt="-Os", reference=False, image=None):
        if target not in MACHINES:
            raise ValueError("no QEMU machine for target %r; there is one for: %s"
                             % (target, ", ".join(sorted(MACHINES))))
        program = shutil.which("qemu-system-arm")
        if program is None:
            raise QemuError("qemu-system-arm not found on PATH; install it: " + INSTALL)
        self.target = target
        self.name = target + " (QEMU)" + (" (reference kernels)" if reference else "")
        self.build = None if image else build(target, opt, reference=reference)
        path = image or self.build.image
        with open(path, "rb") as f:
            elf = Elf(f.read())
        self.functions = {s.name: s.value & ~1 for s in elf.symbols
                          if s.kind == STT_FUNC and s.section is not None}
        end = max((v + n for v, _d, n in elf.segments if RAM <= v < RAM + RAM_SIZE),
                  default=RAM)
        self.heap_base = (end + 7) & ~7
        machine, self.clock_hz = MACHINES[target]
        port = _free_port()
        self.proc = subprocess.Popen(
            [program, "-machine", machine, "-display", "none", "-monitor", "none", "-serial",
             "null", "-S", "-gdb", "tcp:127.0.0.1:%d" % port, "-icount", "shift=0",
             "-kernel", str(path)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT)
        self._end = weakref.finalize(self, _end, self.proc)
        try:
            self.gdb = GdbRemote("127.0.0.1", port)
            self.gdb.write_memory(STUB, _CODE)
            self.gdb.breakpoint(_POKE_STOP)
            self.gdb.breakpoint(_CALL_STOP)
            self._poke(_CPACR, 0xF << 20)  # the FPU and MVE (coprocessors 10 and 11)
            self._poke(_SYST_RVR, 0xFFFFFF)
            self._poke(_SYST_CVR, 0)
            self._poke(_SYST_CSR, 5)  # on, the core's clock, no interrupt
        except BaseException:
            self.close()
            raise

    def close(self):
        """End QEMU."""
        self._end()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _run(self, entry, stop, sp, timeout_s, what):
        g = self.gdb
        g.write_register(_SP, sp)
        g.write_register(_PC, entry)
        g.write_register(_XPSR, _THUMB)
        try:
            g.resume(timeout_s)
        except GdbError as exc:
            raise QemuError("%s on %s: %s" % (what, self.name, exc)) from None
        pc = g.read_register(_PC)
        if pc != stop:
            raise QemuError("%s on %s stopped at pc=0x%08x (a fault?), not at its return"
                            % (what, self.name, pc))

    def _poke(self, addr, value):
        self.gdb.write_register(0, addr)
        self.gdb.write_register(1, value)
        self._run(_POKE, _POKE_STOP, RAM + RAM_SIZE - 64, 10, "a write at 0x%x" % addr)

    def _alloc(self, nbytes):
        addr = self._top
        self._top = (addr + max(nbytes, 1) + 7) & ~7
        if self._top > RAM + RAM_SIZE - STACK_SIZE:
            raise MemoryError("the DTCM (%d KB) cannot hold this call's buffers"
                              % (RAM_SIZE >> 10))
        return addr

    def count(self, name, args, timeout_s=120):
        """(status, instructions) of one call of `name` with binding-style `args`."""
        if name not in self.functions:
            raise AttributeError("the %s build has no function %s" % (self.target, name))
        self._top = self.heap_base
        g = self.gdb
        placement = Placement(self._alloc, g.write_memory)
        words, floats = [], []
        for a in args:  # the AAPCS with VFP: float arguments in s0-s15
            if isinstance(a, float):
                floats.append(struct.unpack("<I", struct.pack("<f", a))[0])
            else:
                words.append(placement.word(a))
        if len(floats) > 16:
            raise ValueError("%s takes more float arguments than s0-s15 hold" % name)
        for i in range(0, len(floats), 2):
            pair = floats[i:i + 2] + [0]
            g.write_register(_D0 + i // 2, pair[0] | pair[1] << 32, size=8)
        sp = (RAM + RAM_SIZE - 64 - 4 * max(0, len(words) - 4)) & ~7
        if len(words) > 4:
            g.write_memory(sp, struct.pack("<%dI" % (len(words) - 4), *words[4:]))
        for reg, value in enumerate(words[:4]):
            g.write_register(reg, value)
        g.write_register(6, _SYST_CVR)
        g.write_register(12, self.functions[name] | 1)
        self._run(_CALL, _CALL_STOP, sp, timeout_s, name)
        copy_back(placement.written, g.read_memory)
        status = g.read_register(0)
        ticks = (g.read_register(4) - g.read_register(5)) & 0xFFFFFF
        return ((status - (1 << 32) if status & 0x80000000 else status),
                round(ticks * 1e9 / self.clock_hz))

    def call(self, name, args, timeout_s=120):
        """Call `name` with binding-style `args`; returns the int32 status."""
        return self.count(name, args, timeout_s)[0]
