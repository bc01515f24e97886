/* The memory functions C compilers may call on their own (struct copies, zeroing loops),
 * which a native module cannot take from a C library: MicroPython's own, through its
 * function table. */
#include "py/dynruntime.h"

void *memcpy(void *dst, const void *src, size_t n) {
    return mp_fun_table.memmove_(dst, src, n);
}

void *memmove(void *dst, const void *src, size_t n) {
    return mp_fun_table.memmove_(dst, src, n);
}

void *memset(void *dst, int value, size_t n) {
    return mp_fun_table.memset_(dst, value, n);
}
