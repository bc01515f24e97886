/* The float32 kernels' vector width: the CPU's, unless flex_f32_vector_width capped it. */
#include "internal.h"

#ifdef FLEX_WIDE
static int32_t width_cap = 16;

int flex__wide(void) {
    static int32_t has_v4 = -1;
    if (has_v4 < 0) {
        __builtin_cpu_init();
        has_v4 = __builtin_cpu_supports("x86-64-v4") ? 1 : 0;
    }
    return has_v4 && width_cap >= 16;
}
#endif

int32_t flex_f32_vector_width(int32_t limit) {
#ifdef FLEX_WIDE
    if (limit > 0)
        width_cap = limit;
    if (flex__wide())
        return 16;
#else
    (void)limit;
#endif
#ifdef FLEX_VECTOR
    return 8;
#else
    return 1;
#endif
}
