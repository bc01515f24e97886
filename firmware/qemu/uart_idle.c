/* A QEMU board waiting at its REPL sleeps instead of spinning: the qemu port polls its UART
 * in a loop, which keeps a host core busy all the time QEMU runs. Once no byte has come for
 * IDLE_MS, each empty poll waits for the next interrupt (WFI: the 1 ms SysTick), so QEMU
 * sleeps; while bytes flow it never waits. The prepared tree's mphalport.c calls these
 * (burn.host.firmware.qemu_port). Arm only: the RISC-V port runs no periodic interrupt to
 * wake it. */
#include "py/mphal.h"

#define IDLE_MS 50

static mp_uint_t last_byte_ms;

void burn_qemu_rx_seen(void) {
    last_byte_ms = mp_hal_ticks_ms();
}

void burn_qemu_rx_idle(void) {
    #if defined(__arm__)
    if (mp_hal_ticks_ms() - last_byte_ms > IDLE_MS) {
        __asm__ volatile ("wfi");
    }
    #endif
}
