/* The host int8 kernels' x86-64 vector paths: their target attributes (code built for AVX2
 * or AVX-512 VNNI, run only where flex__s8_simd() says the CPU has it). */
#ifndef FLEX_HOST_S8_SIMD_H
#define FLEX_HOST_S8_SIMD_H

#include "../../common/internal.h"

#ifdef FLEX_S8_SIMD
#include <immintrin.h>
#define FLEX_AVX2 __attribute__((target("avx2")))
#define FLEX_VNNI __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni")))
#endif

#endif
