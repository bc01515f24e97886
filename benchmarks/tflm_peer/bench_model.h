/* What the harness (harness.c) asks of a model runtime: burn's compiled library
 * (burn_glue.c), TFLM's interpreter (tflm_glue.cc) or nothing (base_glue.c). */

#ifndef BENCH_MODEL_H
#define BENCH_MODEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

int bench_setup(void);               /* 0 when the runtime is ready */
void bench_report(void);             /* prints "arena N" (the bytes of working memory) */
int8_t *bench_input(void);           /* where the next input goes */
unsigned bench_input_size(void);
int bench_invoke(void);              /* one inference; 0 when it succeeded */
const int8_t *bench_output(void);    /* the last inference's output */
unsigned bench_output_size(void);

#ifdef __cplusplus
}
#endif

#endif
