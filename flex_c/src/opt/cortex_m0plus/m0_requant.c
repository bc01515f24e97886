/* Per-channel set-up of the Cortex-M0+ requantization (see m0_requant.h). */
#include "m0_requant.h"

void flex__m0_rq_init(flex__m0_rq *r, int32_t base, int32_t multiplier, int32_t shift,
                      const flex_s8_quant *q) {
    const int32_t s = -shift;
    r->base = base;
    r->multiplier = multiplier;
    r->raw_shift = shift;
    r->m0 = multiplier & 0x3FF;
    r->m1 = (multiplier >> 10) & 0x3FF;
    r->m2 = multiplier >> 20;
    /* s > 11 would overflow the nudge; s == 0 rounds once only (no sign term) */
    r->shift = s >= 1 && s <= 11 ? 11 + s : 0;
    r->nudge = r->shift ? (1 << 10) + (1 << (10 + s)) + q->output_offset * (1 << (11 + s)) : 0;
}
