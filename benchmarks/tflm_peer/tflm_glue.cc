/* TFLM behind the harness as its examples set it up: the .tflite as a const array, a
 * MicroMutableOpResolver with only the model's ops, one static arena of BENCH_ARENA_BYTES,
 * the input and output in the arena. bench_config.h gives the arena size and the ops. */

#include <stdio.h>

#include "bench_config.h"
#include "bench_model.h"
#include "tensorflow/lite/micro/cortex_m_generic/debug_log_callback.h"
#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"

extern const unsigned char bench_model_data[];

alignas(16) static uint8_t tensor_arena[BENCH_ARENA_BYTES];
static tflite::MicroInterpreter *interpreter;

static void log_line(const char *s) { printf("%s", s); }

int bench_setup(void) {
    RegisterDebugLogCallback(log_line);
    const tflite::Model *model = tflite::GetModel(bench_model_data);
    static tflite::MicroMutableOpResolver<BENCH_OP_COUNT> resolver;
    BENCH_ADD_OPS(resolver);
    static tflite::MicroInterpreter static_interpreter(model, resolver, tensor_arena,
                                                       BENCH_ARENA_BYTES);
    interpreter = &static_interpreter;
    return interpreter->AllocateTensors() == kTfLiteOk ? 0 : -1;
}

void bench_report(void) {
    printf("arena %u\narena_used %u\n", (unsigned)BENCH_ARENA_BYTES,
           (unsigned)interpreter->arena_used_bytes());
}

int8_t *bench_input(void) { return interpreter->input(0)->data.int8; }
unsigned bench_input_size(void) { return interpreter->input(0)->bytes; }
int bench_invoke(void) { return interpreter->Invoke() == kTfLiteOk ? 0 : -1; }
const int8_t *bench_output(void) { return interpreter->output(0)->data.int8; }
unsigned bench_output_size(void) { return interpreter->output(0)->bytes; }
