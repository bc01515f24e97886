/* wasm32 (SIMD128): the host kernel, written for the vectorizer (its x86-64 paths are not
 * compiled here: common/internal.h). */
#include "../host/s8_pool.c"
