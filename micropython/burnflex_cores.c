/* Core 1 of an RP2040 as flex_plan_run_on's second core (flex.h, common/split.c).
 *
 * A worker runs on core 1 from its own stack: the 4 KB SRAM bank 5 that BURN_RP2040's linker
 * layout gives core 1 (pico-sdk's SCRATCH_X), while core 0's stack is bank 4 and the top of
 * the striped banks. It waits in WFE on a mailbox: core 0 posts a job (a sequence number and
 * a pointer to the job, on core 0's stack) and raises an event; the worker acknowledges,
 * runs it and posts the result. Nothing is allocated.
 *
 * Core 1 is borrowed only while no _thread runs on it (MicroPython's core1_entry is NULL);
 * the worker stays between runs, and a _thread start or a soft reset resets core 1 under it,
 * which is why every job must be acknowledged at once: a post that is not is followed by a
 * fresh launch, through the bootrom's handshake with each FIFO exchange bounded. A worker
 * that does not finish within the bound (ten times core 0's own part, plus 20 ms) is held
 * in reset: the run fails with FLEX_E_CORE, and core 0 runs alone from then on. */
#include "burnflex.h"
#include "burnflex_cores.h"

#if BURNFLEX_CORES

#include <string.h>

#include "hardware/irq.h"
#include "hardware/structs/psm.h"
#include "hardware/structs/scb.h"
#include "hardware/sync.h"
#include "hardware/timer.h"
#include "mpthreadport.h"
#include "pico/multicore.h"

#define STACK_BYTES 4096
#define STACK_PAINT 0x0badc0deu /* the stack's fill, to measure how deep it went */
#define ACK_US 50
#define HANDSHAKE_US 2000
#define FINISH_MIN_US 20000

extern uint32_t __StackOneTop; /* the linker's top of core 1's stack bank */

typedef struct {
    volatile uint32_t posted, taken, done;
    const flex_job *volatile job;
    volatile flex_status status;
} mailbox;

static mailbox box;
static flex_cores cores;
static int32_t broken; /* core 1 failed to answer: core 0 runs alone until a reset */
static uint32_t started_at, launches;

static void __not_in_flash_func(worker)(void) {
    uint32_t seen = box.posted;
    box.taken = box.done = seen;
    for (;;) {
        while (box.posted == seen)
            __wfe();
        seen = box.posted;
        box.taken = seen;
        box.status = flex_job_run(box.job);
        __dmb();
        box.done = seen;
        __sev();
    }
}

/* Hold core 1 in reset (pico-sdk's multicore_reset_core1 would then wait, unbounded, for
 * the bootrom's answer of a core that may not give one). */
static void hold_core1(void) {
    hw_set_bits(&psm_hw->frce_off, PSM_FRCE_OFF_PROC1_BITS);
    while (!(psm_hw->frce_off & PSM_FRCE_OFF_PROC1_BITS))
        tight_loop_contents();
}

/* Reset core 1 and start the worker: multicore_reset_core1 and the handshake of
 * multicore_launch_core1_raw, with the FIFO interrupt of core 0 (MicroPython's lockout
 * handler) held off and each exchange bounded. Core 1 stays in reset when it fails. */
static bool launch(void) {
    uint32_t *bottom = &__StackOneTop - STACK_BYTES / 4, *p;
    const uint32_t cmd[] = {0, 0, 1, scb_hw->vtor, (uintptr_t)&__StackOneTop,
                            (uintptr_t)worker};
    const uint irq = SIO_IRQ_PROC0;
    const bool enabled = irq_is_enabled(irq);
    uint32_t seq = 0, tries = 0, reply = 1;
    hold_core1();
    for (p = bottom; p < &__StackOneTop; p++)
        *p = STACK_PAINT;
    box.posted = box.taken = box.done = 0;
    irq_set_enabled(irq, false);
    hw_clear_bits(&psm_hw->frce_off, PSM_FRCE_OFF_PROC1_BITS);
    if (multicore_fifo_pop_timeout_us(HANDSHAKE_US, &reply) && reply == 0) {
        while (seq < 6 && tries++ < 24) {
            if (!cmd[seq]) {
                multicore_fifo_drain();
                __sev();
            }
            if (!multicore_fifo_push_timeout_us(cmd[seq], HANDSHAKE_US) ||
                !multicore_fifo_pop_timeout_us(HANDSHAKE_US, &reply))
                break;
            seq = reply == cmd[seq] ? seq + 1 : 0;
        }
    }
    irq_set_enabled(irq, enabled);
    launches++;
    if (seq < 6)
        hold_core1();
    return seq == 6;
}

static bool post(const flex_job *job) {
    const uint32_t t0 = time_us_32();
    box.job = job;
    __dmb();
    box.posted++;
    __sev();
    while (box.taken != box.posted)
        if (time_us_32() - t0 > ACK_US)
            return false;
    return true;
}

static int start(void *ctx, const flex_job *job) {
    (void)ctx;
    if (broken || core1_entry != NULL)
        return 0;
    if (!post(job) && (!launch() || !post(job))) {
        hold_core1();
        broken = 1;
        return 0;
    }
    started_at = time_us_32();
    return 1;
}

static flex_status finish(void *ctx) {
    const uint32_t mine = time_us_32() - started_at, t0 = time_us_32();
    (void)ctx;
    while (box.done != box.posted)
        if (time_us_32() - t0 > 10 * mine + FINISH_MIN_US) {
            hold_core1();
            broken = 2;
            return FLEX_E_CORE;
        }
    __dmb();
    return box.status;
}

static int stop(void *ctx) {
    (void)ctx;
    return MP_STATE_MAIN_THREAD(mp_pending_exception) != MP_OBJ_NULL;
}

const flex_cores *bf_cores(int32_t n, const flex_cores *buffers) {
    if (n >= 2 && buffers)
        cores = *buffers;
    else
        memset(&cores, 0, sizeof(cores));
    cores.start = start;
    cores.finish = finish;
    cores.stop = stop;
    cores.ctx = NULL;
    cores.min_macs = n >= 2 ? BF_MIN_SPLIT_MACS : 0x7fffffff; /* one core: Ctrl-C only */
    return &cores;
}

void bf_cores_after(flex_status status) {
    if (status == FLEX_E_STOPPED)
        mp_handle_pending(true);
    if (status == FLEX_E_CORE)
        mp_raise_msg(&mp_type_RuntimeError,
                     MP_ERROR_TEXT("burnflex: core 1 did not finish its part of a step in time; "
                                   "it is held in reset and inference runs on core 0 alone"));
}

/* burnflex.cores(): (cores the build has, cores usable now, why not both or None, launches of
 * the worker, bytes of core 1's stack used so far). */
static mp_obj_t cores_state(void) {
    const uint32_t *p = &__StackOneTop - STACK_BYTES / 4;
    mp_obj_t t[5];
    const char *why = broken == 2 ? "core 1 did not finish a step in time"
                      : broken     ? "core 1 did not start"
                      : core1_entry != NULL ? "core 1 runs a _thread"
                                            : NULL;
    while (launches && p < &__StackOneTop && *p == STACK_PAINT)
        p++;
    t[0] = MP_OBJ_NEW_SMALL_INT(2);
    t[1] = MP_OBJ_NEW_SMALL_INT(why ? 1 : 2);
    t[2] = why ? mp_obj_new_str(why, strlen(why)) : mp_const_none;
    t[3] = mp_obj_new_int_from_uint(launches);
    t[4] = MP_OBJ_NEW_SMALL_INT(launches ? (mp_int_t)((&__StackOneTop - p) * 4) : 0);
    return mp_obj_new_tuple(5, t);
}
MP_DEFINE_CONST_FUN_OBJ_0(bf_cores_obj, cores_state);

#else /* one core: the plan runs whole on the calling core */

const flex_cores *bf_cores(int32_t n, const flex_cores *buffers) {
    (void)n, (void)buffers;
    return NULL;
}

void bf_cores_after(flex_status status) {
    (void)status;
}

static mp_obj_t cores_state(void) {
    static const char why[] = "this build of burnflex runs on one core";
    mp_obj_t t[5];
    t[0] = t[1] = MP_OBJ_NEW_SMALL_INT(1);
    t[2] = mp_obj_new_str(why, sizeof(why) - 1);
    t[3] = t[4] = MP_OBJ_NEW_SMALL_INT(0);
    return mp_obj_new_tuple(5, t);
}
MP_DEFINE_CONST_FUN_OBJ_0(bf_cores_obj, cores_state);

#endif
