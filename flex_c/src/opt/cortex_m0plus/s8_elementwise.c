/* Cortex-M0+ int8 ADD. Each input's scaling (offset, left shift, then
 * MultiplyByQuantizedMultiplier) depends on its int8 value alone, so a large ADD tabulates
 * both once per call (256 entries each, 2 KB of stack) and pays only the output
 * requantization per element: on ARMv6-M every MultiplyByQuantizedMultiplier builds a
 * 64-bit product from 16-bit halves. Small ADDs and the checks are the reference's
 * (ref/ref.h). */
#include "../../ref/ref.h"

#define TABLE_MIN_ELEMENTS 1024 /* 512 table entries cost about as much as 256 elements */

/* t[v + 128] = the scaled input value v. */
static void scale_table(int32_t *t, int32_t offset, int32_t left_shift, int32_t multiplier,
                        int32_t shift) {
    int32_t v;
    for (v = -128; v < 128; v++)
        t[v + 128] = flex__mbqm((int32_t)((uint32_t)(offset + v) << left_shift), multiplier,
                                shift);
}

FLEX__SIGNATURE_s8_add(flex_s8_add) {
    int32_t t1[256], t2[256];
    int32_t s1[4], s2[4], count, n, h, w, c, sum, v;
    FLEX_TRY(flex__s8_add_check(in1_dims, in1, in1_len, in2_dims, in2, in2_len, p, out_dims,
                                output, output_len, s1, s2));
    FLEX_TRY(flex__count(out_dims, &count));
    if (count < TABLE_MIN_ELEMENTS)
        return flex__ref_s8_add(in1_dims, in1, in1_len, in2_dims, in2, in2_len, p, out_dims,
                                output, output_len);
    scale_table(t1, p->input1_offset, p->left_shift, p->input1_multiplier, p->input1_shift);
    scale_table(t2, p->input2_offset, p->left_shift, p->input2_multiplier, p->input2_shift);
    for (n = 0; n < out_dims->n; n++)
        for (h = 0; h < out_dims->h; h++)
            for (w = 0; w < out_dims->w; w++)
                for (c = 0; c < out_dims->c; c++) {
                    sum = FLEX_WADD(
                        t1[in1[n * s1[0] + h * s1[1] + w * s1[2] + c * s1[3]] + 128],
                        t2[in2[n * s2[0] + h * s2[1] + w * s2[2] + c * s2[3]] + 128]);
                    v = FLEX_WADD(flex__mbqm(sum, p->output_multiplier, p->output_shift),
                                  p->output_offset);
                    *output++ = (int8_t)flex__clamp(v, p->act_min, p->act_max);
                }
    return FLEX_OK;
}
