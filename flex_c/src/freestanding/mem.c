/* The four memory functions that C compilers may call even in freestanding code (clang and
 * GCC turn zeroing and copying loops into memset/memcpy calls; both document that the
 * environment must provide memcpy, memmove, memset and memcmp). Cross builds of flex_c
 * carry them so the static library needs nothing from a C library; each sits in its own
 * section, so a firmware that links its own libc keeps its versions. The host build uses
 * the system's. `no_builtin` stops the compiler from turning these very loops back into
 * calls to themselves. */
#include <stddef.h>
#include <stdint.h>

#define FLEX_NO_BUILTIN __attribute__((no_builtin))

FLEX_NO_BUILTIN void *memset(void *dst, int value, size_t n) {
    unsigned char *d = (unsigned char *)dst;
    while (n--)
        *d++ = (unsigned char)value;
    return dst;
}

FLEX_NO_BUILTIN void *memcpy(void *dst, const void *src, size_t n) {
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    while (n--)
        *d++ = *s++;
    return dst;
}

FLEX_NO_BUILTIN void *memmove(void *dst, const void *src, size_t n) {
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    if (d < s) {
        while (n--)
            *d++ = *s++;
    } else {
        while (n--)
            d[n] = s[n];
    }
    return dst;
}

FLEX_NO_BUILTIN int memcmp(const void *a, const void *b, size_t n) {
    const unsigned char *x = (const unsigned char *)a;
    const unsigned char *y = (const unsigned char *)b;
    for (; n; n--, x++, y++)
        if (*x != *y)
            return *x < *y ? -1 : 1;
    return 0;
}
