/* The pico-sdk program around one model runtime (benchmarks/compile_vs_tflm.py): the same
 * file in burn's, TFLM's and the baseline program. It paints the stack below the caller's
 * frame before the runtime's setup and before each inference, and reads back how deep the
 * runtime wrote; it fills the input from a seeded xorshift32, times each inference with the
 * 1 MHz timer, and prints everything over UART0. The runtime side (bench_model.h) is
 * burn's compiled library, TFLM's interpreter, or nothing (the baseline). */

#include <stdint.h>
#include <stdio.h>

#include "bench_config.h"
#include "bench_model.h"
#include "hardware/clocks.h"
#include "pico/stdlib.h"

#define PAINT 0x5AA5C33Cu

extern char __end__;         /* the linker script's end of .bss: where the C heap starts */
extern void *_sbrk(int incr); /* the C heap's end (pico_clib_interface) */

static uint32_t *stack_floor;  /* the lowest painted word */
static uintptr_t stack_base;   /* the stack pointer of the painting frame */

static void __attribute__((noinline)) stack_paint(void) {
    uint32_t *sp;
    __asm volatile("mov %0, sp" : "=r"(sp));
    stack_base = (uintptr_t)sp;
    stack_floor = (uint32_t *)(((uintptr_t)_sbrk(0) + 64) & ~(uintptr_t)3);
    for (uint32_t *p = stack_floor; p < sp; p++)
        *p = PAINT;
}

static unsigned __attribute__((noinline)) stack_used(void) {
    const uint32_t *p = stack_floor;
    while (*p == PAINT)
        p++;
    return (unsigned)(stack_base - (uintptr_t)p);
}

int main(void) {
    stdio_init_all();
    printf("clock %lu\n", (unsigned long)clock_get_hz(clk_sys));
    stack_paint();
    int status = bench_setup();
    unsigned used = stack_used();
    printf("setup %d stack %u\n", status, used);
    bench_report();
    uint32_t seed = 0x9E3779B9u;
    for (int set = 0; status == 0 && set < BENCH_SETS; set++) {
        int8_t *in = bench_input();
        for (unsigned i = 0; i < bench_input_size(); i++) {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            in[i] = (int8_t)(seed >> 24);
        }
        stack_paint();
        uint64_t t0 = time_us_64();
        status = bench_invoke();
        uint64_t t1 = time_us_64();
        used = stack_used();
        printf("run %d status %d us %lu stack %u\nout %d", set, status, (unsigned long)(t1 - t0),
               used, set);
        const int8_t *out = bench_output();
        for (unsigned i = 0; i < bench_output_size(); i++)
            printf(" %d", out[i]);
        printf("\n");
    }
    printf("heap %u\ndone %d\n", (unsigned)((char *)_sbrk(0) - &__end__), status);
    return 0;
}
