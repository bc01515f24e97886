/* The second core for the plan runner (burnflex_cores.c): bf_cores(n) gives the flex_cores
 * of flex_plan_run_on for a run on n cores, or NULL for one core. */
#ifndef BURNFLEX_CORES_H
#define BURNFLEX_CORES_H

#include "flex.h"

/* 1 in a firmware whose board gives core 1 a stack of its own (BURN_RP2040's linker
 * layout); the natmod and other ports run on one core. */
#ifndef BURNFLEX_CORES
#define BURNFLEX_CORES 0
#endif

/* Steps of fewer multiply-accumulates run whole: below this, waking core 1 and waiting for
 * it costs more than its half saves. */
#define BF_MIN_SPLIT_MACS 8192

/* The flex_cores to run a plan with on `cores` cores (1: core 0 alone, still stopping at
 * Ctrl-C between steps; 2: core 1 too, with the record, spare buffer, arena and free regions
 * of `buffers`, whose other fields are ignored; NULL for none); NULL in a build without the
 * second core. */
const flex_cores *bf_cores(int32_t cores, const flex_cores *buffers);

/* After a run: raise the error of FLEX_E_CORE (core 1 stopped answering) or FLEX_E_STOPPED
 * (Ctrl-C: the pending KeyboardInterrupt), else return. */
void bf_cores_after(flex_status status);

#endif
