/* burn compile's library (named `model`) behind the harness: its static arena, the input
 * and output in the caller's buffers. */

#include <stdio.h>

#include "bench_model.h"
#include "model.h"

static int8_t input[MODEL_INPUT0_SIZE], output[MODEL_OUTPUT0_SIZE];

int bench_setup(void) { return 0; }
void bench_report(void) { printf("arena %u\n", (unsigned)MODEL_ARENA_BYTES); }
int8_t *bench_input(void) { return input; }
unsigned bench_input_size(void) { return MODEL_INPUT0_SIZE; }
int bench_invoke(void) { return model_run(input, output); }
const int8_t *bench_output(void) { return output; }
unsigned bench_output_size(void) { return MODEL_OUTPUT0_SIZE; }
