/*
 * flex.h - the whole C API of the Flex kernel library, the one header to include. Its
 * declarations live in flex/<group>.h, one part per group of kernels, included below.
 *
 * Freestanding C99: no malloc, no libc beyond <stdint.h>/<stddef.h>. Every kernel is a
 * plain function over caller-owned buffers that returns a flex_status. Every buffer comes
 * with its length in elements; a bad shape, stride, size or parameter gives a status and
 * leaves the output untouched, never undefined behaviour.
 *
 * Shapes are flex_dims4 {n, h, w, c}. int8 kernels use NHWC memory order and OHWI filters
 * (the exported-graph layout); float32 kernels use NCHW memory order and OIHW filters (the
 * training layout). All counts are limited to INT32_MAX elements.
 *
 * int8 arithmetic is bit-identical to TensorFlow Lite Micro's reference kernels: per-channel
 * requantization with an int32 multiplier and shift (TFLM MultiplyByQuantizedMultiplier:
 * saturating rounding doubling high multiply, then rounding divide by a power of two,
 * rounding half away from zero), int32 accumulation, fused activation clamps.
 */
#ifndef FLEX_H
#define FLEX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "flex/types.h"
#include "flex/s8.h"
#include "flex/layout.h"
#include "flex/plan.h"
#include "flex/f32.h"
#include "flex/f32_graph.h"
#include "flex/s16.h"
#include "flex/optional.h"

#ifdef __cplusplus
}
#endif
#endif /* FLEX_H */
