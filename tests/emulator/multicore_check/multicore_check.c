// Exercises both cores of an RP2040 the way pico-sdk programs use them and prints one
// "name value..." line per check over UART0, then "done"; main returns, and the SDK's exit()
// stops at a breakpoint. The values printed are the ones a real RP2040 gives (see
// tests/emulator/test_dual_core.py); the two cores run their halves at the same time.
//
//   launch   multicore_launch_core1 (the bootrom's FIFO handshake), CPUID on each core
//   pingpong core 0 sends a word, core 1 answers 3 * word + 1, through the FIFOs
//   counter  both cores add 1 to one counter under a hardware spinlock, 5000 times each
//   divider  each core checks 2000 divisions on its own hardware divider, concurrently
//   interp   each core accumulates its own step on its own interpolator 0, concurrently
//   fifo_st  FIFO_ST through empty read (ROE), full FIFO (RDY clear), write on full (WOF)
//   wfe      core 1 sleeps in WFE until core 0 sets a flag and executes SEV
//   irq      core 1 receives words in its SIO_IRQ_PROC1 handler while it waits

#include <stdio.h>

#include "hardware/divider.h"
#include "hardware/interp.h"
#include "hardware/irq.h"
#include "hardware/structs/sio.h"
#include "hardware/sync.h"
#include "pico/multicore.h"
#include "pico/stdlib.h"

#define PINGPONG_ROUNDS 100
#define INCREMENTS 5000
#define DIVISIONS 2000
#define INTERP_POPS 1000
#define FIFO_DEPTH 8
#define IRQ_WORDS 20

static spin_lock_t *lock;
static volatile uint32_t counter;
static volatile bool flag_set;
static volatile uint32_t irq_words, irq_sum, irq_core = 99;

// The read and the write of the counter lie apart, so that two cores without a working lock
// between them lose increments.
static void count_under_lock(void) {
    for (int i = 0; i < INCREMENTS; i++) {
        uint32_t saved = spin_lock_blocking(lock);
        uint32_t value = counter;
        __asm volatile("nop\n nop\n nop\n nop");
        counter = value + 1;
        spin_unlock(lock, saved);
    }
}

// Divisions whose quotient and remainder are checked by multiplying back (the hardware
// multiplier is no part of the SIO): how many came out wrong.
static uint32_t divider_errors(int32_t seed) {
    uint32_t wrong = 0;
    for (int32_t d = 1; d <= DIVISIONS; d++) {
        int32_t n = seed * d - 7 * d * d + seed;
        divmod_result_t r = hw_divider_divmod_s32(n, d);
        int32_t q = to_quotient_s32(r), rem = to_remainder_s32(r);
        bool sign_ok = rem == 0 || (rem < 0) == (n < 0);
        if (q * d + rem != n || rem >= d || rem <= -d || !sign_ok) wrong++;
    }
    return wrong;
}

// Interpolator 0 lane 0 as an accumulator: every POP adds BASE0 to ACCUM0.
static uint32_t interp_accumulate(uint32_t step) {
    interp_config config = interp_default_config();
    interp_set_config(interp0, 0, &config);
    interp0->accum[0] = 0;
    interp0->base[0] = step;
    for (int i = 0; i < INTERP_POPS; i++) (void)interp0->pop[0];
    return interp0->accum[0];
}

static void on_fifo_irq(void) {
    irq_core = get_core_num();
    while (multicore_fifo_rvalid()) {
        irq_sum += sio_hw->fifo_rd;
        irq_words++;
    }
    multicore_fifo_clear_irq();
}

static void core1_main(void) {
    multicore_fifo_push_blocking(sio_hw->cpuid);

    for (int i = 0; i < PINGPONG_ROUNDS; i++) {
        multicore_fifo_push_blocking(3 * multicore_fifo_pop_blocking() + 1);
    }

    count_under_lock();
    multicore_fifo_push_blocking(divider_errors(-31));
    multicore_fifo_push_blocking(interp_accumulate(5));

    while (!flag_set) __wfe();
    uint32_t sum = 0;
    for (int i = 0; i < FIFO_DEPTH; i++) sum += multicore_fifo_pop_blocking();
    multicore_fifo_push_blocking(sum);

    irq_set_exclusive_handler(SIO_IRQ_PROC1, on_fifo_irq);
    irq_set_enabled(SIO_IRQ_PROC1, true);
    multicore_fifo_push_blocking(1);
    while (irq_words < IRQ_WORDS) __wfe();
    irq_set_enabled(SIO_IRQ_PROC1, false);
    multicore_fifo_push_blocking(irq_sum);
}

int main(void) {
    stdio_init_all();
    printf("start\n");
    lock = spin_lock_init(spin_lock_claim_unused(true));

    multicore_launch_core1(core1_main);
    uint32_t core1_cpuid = multicore_fifo_pop_blocking();
    printf("launch %u %lu\n", get_core_num(), (unsigned long)core1_cpuid);

    uint32_t answered = 0;
    for (uint32_t i = 0; i < PINGPONG_ROUNDS; i++) {
        multicore_fifo_push_blocking(1000 + i);
        if (multicore_fifo_pop_blocking() == 3 * (1000 + i) + 1) answered++;
    }
    printf("pingpong %lu\n", (unsigned long)answered);

    count_under_lock();
    uint32_t errors0 = divider_errors(29);
    uint32_t errors1 = multicore_fifo_pop_blocking();
    uint32_t interp_sum0 = interp_accumulate(3);
    uint32_t interp_sum1 = multicore_fifo_pop_blocking();
    printf("counter %lu\n", (unsigned long)counter);
    printf("divider %lu %lu\n", (unsigned long)errors0, (unsigned long)errors1);
    printf("interp %lu %lu\n", (unsigned long)interp_sum0, (unsigned long)interp_sum1);

    uint32_t idle = sio_hw->fifo_st;
    (void)sio_hw->fifo_rd;
    uint32_t empty_read = sio_hw->fifo_st;
    multicore_fifo_clear_irq();
    uint32_t cleared = sio_hw->fifo_st;
    for (uint32_t i = 0; i < FIFO_DEPTH; i++) sio_hw->fifo_wr = 100 + i;
    uint32_t full = sio_hw->fifo_st;
    sio_hw->fifo_wr = 999;
    uint32_t overflow = sio_hw->fifo_st;
    multicore_fifo_clear_irq();
    printf("fifo_st %lx %lx %lx %lx %lx\n", (unsigned long)idle, (unsigned long)empty_read,
           (unsigned long)cleared, (unsigned long)full, (unsigned long)overflow);

    flag_set = true;
    __sev();
    printf("wfe %lu\n", (unsigned long)multicore_fifo_pop_blocking());

    multicore_fifo_pop_blocking(); // core 1's handler is in place
    uint32_t sent = 0;
    for (uint32_t i = 1; i <= IRQ_WORDS; i++) {
        multicore_fifo_push_blocking(i * i);
        sent += i * i;
    }
    uint32_t received = multicore_fifo_pop_blocking();
    printf("irq %lu %lu %lu %lu\n", (unsigned long)sent, (unsigned long)received,
           (unsigned long)irq_words, (unsigned long)irq_core);
    printf("done\n");
    return 0;
}
