/* Host int8 ADD: the reference arithmetic (three MultiplyByQuantizedMultiplier per element)
 * over contiguous runs of the innermost axis, in the vectorizable form of s8_requant.h, so
 * that a run of 8 elements takes a few dozen vector instructions (two inputs of the output's
 * shape: 16 at a time in s8_add_avx512.c on CPUs with AVX-512). The checks are the
 * reference's (ref/ref.h). */
#include "../../ref/ref.h"
#include "s8_requant.h"
#include "s8_vnni.h"

/* out[i] = add_one(p, a[i * sa], b[i * sb]) for i < n. */
FLEX_INLINE void add_run(const flex_s8_add_params *p, const int8_t *restrict a, int32_t sa,
                         const int8_t *restrict b, int32_t sb, int32_t n,
                         int8_t *restrict out) {
    const int32_t off1 = p->input1_offset, off2 = p->input2_offset, ls = p->left_shift;
    const int32_t m1 = p->input1_multiplier, l1 = p->input1_shift > 0 ? p->input1_shift : 0;
    const int32_t r1 = p->input1_shift > 0 ? 0 : -p->input1_shift;
    const int32_t m2 = p->input2_multiplier, l2 = p->input2_shift > 0 ? p->input2_shift : 0;
    const int32_t r2 = p->input2_shift > 0 ? 0 : -p->input2_shift;
    const int32_t mo = p->output_multiplier, lo = p->output_shift > 0 ? p->output_shift : 0;
    const int32_t ro = p->output_shift > 0 ? 0 : -p->output_shift;
    const int32_t offset = p->output_offset, act_min = p->act_min, act_max = p->act_max;
    int32_t i;
    for (i = 0; i < n; i++) {
        const int32_t x1 = (int32_t)((uint32_t)(off1 + a[i * sa]) << ls);
        const int32_t x2 = (int32_t)((uint32_t)(off2 + b[i * sb]) << ls);
        const int32_t sum = FLEX_WADD(flex__host_mbqm(x1, m1, l1, r1),
                                      flex__host_mbqm(x2, m2, l2, r2));
        const int32_t v = FLEX_WADD(flex__host_mbqm(sum, mo, lo, ro), offset);
        out[i] = (int8_t)(v < act_min ? act_min : (v > act_max ? act_max : v));
    }
}

#ifdef __wasm_simd128__
/* The int32 values of the four int8 at x. */
FLEX_INLINE v128_t load4(const int8_t *x) {
    return wasm_i32x4_extend_low_i16x8(wasm_i16x8_extend_low_i8x16(wasm_v128_load32_zero(x)));
}

/* add_run(p, a, 1, b, 1, n, out) four elements a step in SIMD128 (s8_requant.h). */
static void add_wasm(const flex_s8_add_params *p, const int8_t *a, const int8_t *b, int32_t n,
                     int8_t *out) {
    const int32_t l1 = p->input1_shift > 0 ? p->input1_shift : 0;
    const int32_t r1 = p->input1_shift > 0 ? 0 : -p->input1_shift;
    const int32_t l2 = p->input2_shift > 0 ? p->input2_shift : 0;
    const int32_t r2 = p->input2_shift > 0 ? 0 : -p->input2_shift;
    const int32_t lo = p->output_shift > 0 ? p->output_shift : 0;
    const int32_t ro = p->output_shift > 0 ? 0 : -p->output_shift;
    const v128_t off1 = wasm_i32x4_splat(p->input1_offset);
    const v128_t off2 = wasm_i32x4_splat(p->input2_offset);
    const v128_t offset = wasm_i32x4_splat(p->output_offset);
    const v128_t act_min = wasm_i32x4_splat(p->act_min), act_max = wasm_i32x4_splat(p->act_max);
    int32_t i;
    for (i = 0; i + 4 <= n; i += 4) {
        const v128_t x1 = wasm_i32x4_shl(wasm_i32x4_add(load4(a + i), off1), p->left_shift);
        const v128_t x2 = wasm_i32x4_shl(wasm_i32x4_add(load4(b + i), off2), p->left_shift);
        const v128_t sum = wasm_i32x4_add(flex__wasm_mbqm4(x1, p->input1_multiplier, l1, r1),
                                          flex__wasm_mbqm4(x2, p->input2_multiplier, l2, r2));
        const v128_t v = wasm_i32x4_add(flex__wasm_mbqm4(sum, p->output_multiplier, lo, ro),
                                        offset);
        const v128_t h = wasm_i32x4_min(wasm_i32x4_max(v, act_min), act_max);
        const v128_t h16 = wasm_i16x8_narrow_i32x4(h, h);
        wasm_v128_store32_lane(out + i, wasm_i8x16_narrow_i16x8(h16, h16), 0);
    }
    add_run(p, a + i, 1, b + i, 1, n - i, out + i);
}
#endif

/* Whether strides s (0 on broadcast axes) read a tensor of out's shape densely. */
static int dense(const int32_t s[4], const flex_dims4 *out) {
    const int32_t d[4] = {out->n, out->h, out->w, out->c};
    int32_t i, step = 1;
    for (i = 3; i >= 0; i--) {
        if (d[i] > 1 && s[i] != step)
            return 0;
        step *= d[i];
    }
    return 1;
}

FLEX_CLONES
static void add_fast(const flex_s8_add_params *p, const int8_t *in1, const int32_t s1[4],
                     const int8_t *in2, const int32_t s2[4], const flex_dims4 *out,
                     int8_t *output) {
    const int32_t C = out->c;
    int32_t n, h, w;
    if (dense(s1, out) && dense(s2, out)) {
#ifdef FLEX_S8_SIMD
        if (flex__host_add_avx512(p, in1, in2, out->n * out->h * out->w * C, output))
            return;
#endif
#ifdef __wasm_simd128__
        add_wasm(p, in1, in2, out->n * out->h * out->w * C, output);
#else
        add_run(p, in1, 1, in2, 1, out->n * out->h * out->w * C, output);
#endif
        return;
    }
    for (n = 0; n < out->n; n++)
        for (h = 0; h < out->h; h++)
            for (w = 0; w < out->w; w++) {
                const int8_t *a = in1 + n * s1[0] + h * s1[1] + w * s1[2];
                const int8_t *b = in2 + n * s2[0] + h * s2[1] + w * s2[2];
                if (s1[3] == 1 && s2[3] == 1)
                    add_run(p, a, 1, b, 1, C, output);
                else
                    add_run(p, a, s1[3], b, s2[3], C, output);
                output += C;
            }
}

FLEX__SIGNATURE_s8_add(flex_s8_add) {
    int32_t s1[4], s2[4];
    FLEX_TRY(flex__s8_add_check(in1_dims, in1, in1_len, in2_dims, in2, in2_len, p, out_dims,
                                output, output_len, s1, s2));
    add_fast(p, in1, s1, in2, s2, out_dims, output);
    return FLEX_OK;
}
