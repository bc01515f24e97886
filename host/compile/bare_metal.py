"""The PlatformIO environment of a board without a framework (`--board pico` or
`nucleo_g071rb`): its own vector table, reset handler and linker script. On nucleo_g071rb
main runs the self-test into a variable and stops at a breakpoint. On pico the image boots
from flash like a real Pico: boot2 (`burn.host.compile.boot2`) at 0x10000000, the vector
table at 0x10000100; main brings clk_sys to 125 MHz and UART0 up, and prints the self-test's
result and the cycles of one inference there before its breakpoint.
"""

from pathlib import Path

from burn.host.compile import boot2

# board: (PlatformIO platform, flash origin and size, RAM origin and size)
BARE = {"pico": ("raspberrypi", 0x10000000, "2048K", 0x20000000, "256K"),
        "nucleo_g071rb": ("ststm32", 0x08000000, "128K", 0x20000000, "36K")}

INI = """
; %(board)s without a framework: src/bare_main.c (vector table, reset handler, main) and
; %(board)s.ld.%(note)s
[env:%(board)s]
platform = %(platform)s
board = %(board)s
board_build.ldscript = %(board)s.ld
lib_deps = symlink://%(lib)s
build_src_filter = %(sources)s
build_flags = -Wall -Werror
"""
PICO_NOTE = """ It boots from flash as on a real Pico: src/boot2.c (the pico-sdk's
; boot2 for the W25Q080 flash, with its checksum) at 0x10000000, the vector table at
; 0x10000100. main prints "selftest: R" and "cycles: N" (one inference, SysTick at 125 MHz)
; on UART0 (GPIO0, 115200 8N1), then stops at BKPT 0."""

RESET = """
/* Reset: .data from flash, .bss cleared, then main (%(board)s.ld's symbols). */
extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;

void reset_handler(void) {
    uint32_t *src = &_sidata, *dst;
    for (dst = &_sdata; dst < &_edata;)
        *dst++ = *src++;
    for (dst = &_sbss; dst < &_ebss;)
        *dst++ = 0;
    main();
}
"""

MAIN = """/* The self-test of %(name)s on %(board)s, no framework: its result in a variable,
 * then a breakpoint (BKPT 0) where a debugger or emulator takes over. */
#include <stdint.h>
#include "%(name)s.h"

volatile int %(name)s_selftest_result = -1;

int main(void) {
    %(name)s_selftest_result = %(name)s_selftest();
    for (;;)
        __asm__ volatile("bkpt #0");
}
""" + RESET + """
__attribute__((section(".vectors"), used)) static void *const vectors[2] = {
    &_estack, (void *)reset_handler};
"""

PICO_MAIN = """/* The self-test and one timed inference of %(name)s on the Raspberry Pi Pico, no
 * framework: clk_sys at 125 MHz (crystal, PLL_SYS), UART0 at 115200 8N1 on GPIO0, the
 * self-test's result and the inference's cycles (SysTick) printed there, then a breakpoint
 * (BKPT 0) where a debugger or emulator takes over; a fault stops at BKPT 1. */
#include <stdint.h>
#include "%(name)s.h"

#define REG(address) (*(volatile uint32_t *)(address))
#define CLEAR(address) REG((address) + 0x3000u) /* the atomic bit-clear alias */
#define CLOCKS 0x40008000u
#define RESETS 0x4000c000u
#define IO_BANK0 0x40014000u
#define XOSC 0x40024000u
#define PLL_SYS 0x40028000u
#define UART0 0x40034000u
#define SYST_CSR 0xe000e010u
#define SYST_RVR 0xe000e014u
#define SYST_CVR 0xe000e018u

volatile int %(name)s_selftest_result = -1;

%(run_buffers)s

static void unreset(uint32_t blocks) {
    CLEAR(RESETS) = blocks;
    while ((REG(RESETS + 0x8) & blocks) != blocks) /* RESET_DONE */
        ;
}

/* clk_ref from the 12 MHz crystal, clk_sys = 12 MHz * 125 / 6 / 2 from PLL_SYS, clk_peri =
 * clk_sys (the pico-sdk's defaults). */
static void clocks_init(void) {
    REG(XOSC + 0x0c) = 47; /* STARTUP: about 1 ms, in 256 crystal cycles */
    REG(XOSC + 0x00) = 0xfabu << 12 | 0xaa0; /* CTRL: enable, 1-15 MHz */
    while (!(REG(XOSC + 0x04) & 1u << 31)) /* STATUS.STABLE */
        ;
    REG(CLOCKS + 0x30) = 2; /* CLK_REF_CTRL: the crystal */
    while (REG(CLOCKS + 0x38) != 1u << 2)
        ;
    REG(CLOCKS + 0x3c) = 0; /* CLK_SYS_CTRL: clk_ref while PLL_SYS starts */
    while (REG(CLOCKS + 0x44) != 1u << 0)
        ;
    unreset(1u << 12); /* PLL_SYS */
    REG(PLL_SYS + 0x00) = 1; /* CS: REFDIV 1 */
    REG(PLL_SYS + 0x08) = 125; /* FBDIV_INT: VCO at 1500 MHz */
    CLEAR(PLL_SYS + 0x04) = 1u << 0 | 1u << 5; /* PWR: PD and VCOPD off */
    while (!(REG(PLL_SYS + 0x00) & 1u << 31)) /* CS.LOCK */
        ;
    REG(PLL_SYS + 0x0c) = 6u << 16 | 2u << 12; /* PRIM: POSTDIV1 6, POSTDIV2 2 */
    CLEAR(PLL_SYS + 0x04) = 1u << 3; /* PWR: POSTDIVPD off */
    REG(CLOCKS + 0x3c) = 1; /* CLK_SYS_CTRL: the aux source, pll_sys */
    while (REG(CLOCKS + 0x44) != 1u << 1)
        ;
    REG(CLOCKS + 0x48) = 1u << 11; /* CLK_PERI_CTRL: enabled, from clk_sys */
}

static void uart_init(void) {
    unreset(1u << 5 | 1u << 8 | 1u << 22); /* IO_BANK0, PADS_BANK0, UART0 */
    REG(UART0 + 0x24) = 67; /* IBRD, FBRD: 125 MHz / (16 * 115200) = 67 + 52 / 64 */
    REG(UART0 + 0x28) = 52;
    REG(UART0 + 0x2c) = 3u << 5 | 1u << 4; /* LCR_H: 8 bits, no parity, 1 stop, FIFOs */
    REG(UART0 + 0x30) = 1u << 8 | 1u << 0; /* CR: TXE, UARTEN */
    REG(IO_BANK0 + 0x04) = 2; /* GPIO0_CTRL: UART0 TX */
}

static void put_char(char c) {
    while (REG(UART0 + 0x18) & 1u << 5) /* FR.TXFF */
        ;
    REG(UART0 + 0x00) = (uint8_t)c;
}

/* "LABEL: VALUE" and a new line */
static void put_line(const char *label, long value) {
    char digits[12];
    int n = 0;
    unsigned long magnitude = value < 0 ? 0ul - (unsigned long)value : (unsigned long)value;
    while (*label)
        put_char(*label++);
    put_char(':');
    put_char(' ');
    if (value < 0)
        put_char('-');
    do {
        digits[n++] = (char)('0' + magnitude %% 10);
        magnitude /= 10;
    } while (magnitude);
    while (n)
        put_char(digits[--n]);
    put_char('\\r');
    put_char('\\n');
}

/* SysTick counts processor cycles down from 2^24 - 1, over and over; its interrupt counts
 * the wraps, so now() is cycles since it started (modulo 2^32). */
static volatile uint32_t systick_wraps;

void systick_handler(void) {
    systick_wraps++;
}

static uint32_t now(void) {
    uint32_t wraps, count;
    do { /* a wrap between the two reads is taken (ISB) and seen as a change of wraps */
        wraps = systick_wraps;
        count = REG(SYST_CVR);
        __asm__ volatile("isb" ::: "memory");
    } while (wraps != systick_wraps);
    return (wraps << 24) + (0xffffffu - count);
}

int main(void) {
    uint32_t start, cycles;
    clocks_init();
    uart_init();
    REG(SYST_RVR) = 0xffffff;
    REG(SYST_CVR) = 0;
    REG(SYST_CSR) = 7; /* the processor clock, interrupt on wrap, enabled */
    %(name)s_selftest_result = %(name)s_selftest();
    put_line("selftest", %(name)s_selftest_result);
    start = now();
    %(name)s_run(%(args_b)s);
    cycles = now() - start;
    put_line("cycles", (long)cycles);
    while (REG(UART0 + 0x18) & 1u << 3) /* FR.BUSY: the last byte out */
        ;
    for (;;)
        __asm__ volatile("bkpt #0");
}

static void fault_handler(void) {
    for (;;)
        __asm__ volatile("bkpt #1");
}
""" + RESET + """
__attribute__((section(".vectors"), used)) static void *const vectors[16] = {
    &_estack, (void *)reset_handler, (void *)fault_handler, (void *)fault_handler,
    [11] = (void *)fault_handler, [14] = (void *)fault_handler, [15] = (void *)systick_handler};
"""

LD = """/* %(board)s's flash and SRAM, for a program without a framework. */
MEMORY
{
    FLASH (rx) : ORIGIN = 0x%(flash)08x, LENGTH = %(flash_size)s
    RAM (rwx) : ORIGIN = 0x%(ram)08x, LENGTH = %(ram_size)s
}
ENTRY(reset_handler)
SECTIONS
{%(boot2)s
    .text : { KEEP(*(.vectors)) *(.text*) *(.rodata*) } > FLASH
    .ARM.exidx : { *(.ARM.exidx*) } > FLASH
    .data : { _sdata = .; *(.data*) . = ALIGN(4); _edata = .; } > RAM AT > FLASH
    _sidata = LOADADDR(.data);
    .bss (NOLOAD) : { _sbss = .; *(.bss*) *(COMMON) . = ALIGN(4); _ebss = .; } > RAM
    _estack = ORIGIN(RAM) + LENGTH(RAM);
}
"""
LD_BOOT2 = """
    /* boot2 first; it enters the program through the vector table right after it */
    .boot2 : { KEEP(*(.boot2)) } > FLASH
    ASSERT(SIZEOF(.boot2) == 256, "boot2 must be 256 bytes")"""


def write_environment(project, board, values, micropython=None):
    """Write `board`'s sources and linker script into `project` (values: write_project's,
    with the library's buffers and run arguments; micropython: boot2.c_source's); its
    platformio.ini section."""
    platform, flash, flash_size, ram, ram_size = BARE[board]
    pico = board == "pico"
    values = dict(values, board=board, platform=platform, flash=flash, flash_size=flash_size,
                  ram=ram, ram_size=ram_size, note=PICO_NOTE if pico else "",
                  boot2=LD_BOOT2 if pico else "",
                  sources="+<bare_main.c> +<boot2.c>" if pico else "+<bare_main.c>")
    src = Path(project) / "src"
    if pico:
        (src / "boot2.c").write_text(boot2.c_source(micropython))
    (src / "bare_main.c").write_text((PICO_MAIN if pico else MAIN) % values)
    (Path(project) / (board + ".ld")).write_text(LD % values)
    return INI % values
