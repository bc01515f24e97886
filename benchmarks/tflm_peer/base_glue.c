/* No model: the baseline program, whose flash and RAM are subtracted from the others. */

#include <stddef.h>

#include "bench_model.h"

int bench_setup(void) { return 0; }
void bench_report(void) {}
int8_t *bench_input(void) { return NULL; }
unsigned bench_input_size(void) { return 0; }
int bench_invoke(void) { return 0; }
const int8_t *bench_output(void) { return NULL; }
unsigned bench_output_size(void) { return 0; }
