/* int8 broadcasting ADD and MUL, as TFLM's reference kernels. ADD's loop,
 * flex__ref_s8_add_op, also serves SUB and SQUARED_DIFFERENCE (see ref.h). */
#include "ref.h"

/* Element strides of `in` read as `out` (0 on broadcast axes); checks the shapes agree. */
static flex_status broadcast_strides(const flex_dims4 *in, size_t in_len,
                                     const flex_dims4 *out, int32_t strides[4]) {
    const int32_t in_d[4] = {in->n, in->h, in->w, in->c};
    const int32_t out_d[4] = {out->n, out->h, out->w, out->c};
    int32_t count, step = 1, i;
    FLEX_TRY(flex__count(in, &count));
    FLEX_TRY(flex__check_len(in_len, count));
    for (i = 3; i >= 0; i--) {
        if (in_d[i] != out_d[i] && in_d[i] != 1)
            return FLEX_E_SHAPE;
        strides[i] = in_d[i] == 1 ? 0 : step;
        step *= in_d[i];
    }
    return FLEX_OK;
}

/* What ADD and MUL check first: the buffers and shapes, then that there are parameters p. */
static flex_status check_binary(const flex_dims4 *in1_dims, const int8_t *in1, size_t in1_len,
                                const flex_dims4 *in2_dims, const int8_t *in2, size_t in2_len,
                                const flex_dims4 *out_dims, const int8_t *output,
                                size_t output_len, const void *p, int32_t s1[4],
                                int32_t s2[4]) {
    int32_t count;
    if (!in1 || !in2 || !output || !in1_dims || !in2_dims)
        return FLEX_E_NULL;
    FLEX_TRY(flex__count(out_dims, &count));
    FLEX_TRY(flex__check_len(output_len, count));
    FLEX_TRY(broadcast_strides(in1_dims, in1_len, out_dims, s1));
    FLEX_TRY(broadcast_strides(in2_dims, in2_len, out_dims, s2));
    return p ? FLEX_OK : FLEX_E_NULL;
}

/* The zero points of ADD's or MUL's parameters: the offsets are minus the inputs' and the
 * output's. */
static flex_status check_zero_points(int32_t input1_offset, int32_t input2_offset,
                                     int32_t output_offset) {
    FLEX_TRY(flex__check_zero_point(-input1_offset));
    FLEX_TRY(flex__check_zero_point(-input2_offset));
    return flex__check_zero_point(output_offset);
}

flex_status flex__s8_add_check(const flex_dims4 *in1_dims, const int8_t *in1, size_t in1_len,
                               const flex_dims4 *in2_dims, const int8_t *in2, size_t in2_len,
                               const flex_s8_add_params *p, const flex_dims4 *out_dims,
                               const int8_t *output, size_t output_len, int32_t s1[4],
                               int32_t s2[4]) {
    FLEX_TRY(check_binary(in1_dims, in1, in1_len, in2_dims, in2, in2_len, out_dims, output,
                          output_len, p, s1, s2));
    FLEX_TRY(check_zero_points(p->input1_offset, p->input2_offset, p->output_offset));
    FLEX_TRY(flex__check_shift(p->input1_shift));
    FLEX_TRY(flex__check_shift(p->input2_shift));
    FLEX_TRY(flex__check_shift(p->output_shift));
    FLEX_TRY(flex__check_act(p->act_min, p->act_max));
    if (p->left_shift < 0 || p->left_shift > 22)
        return FLEX_E_PARAM;
    return FLEX_OK;
}

/* ADD, or with `op` SUB or SQUARED_DIFFERENCE: TFLM scales both inputs alike for all three
 * and differs only in how it combines them. */
static int8_t add_one(const flex_s8_add_params *p, int32_t a, int32_t b, int32_t op) {
    const int32_t x1 = (int32_t)((uint32_t)(p->input1_offset + a) << p->left_shift);
    const int32_t x2 = (int32_t)((uint32_t)(p->input2_offset + b) << p->left_shift);
    const int32_t s1 = flex__mbqm(x1, p->input1_multiplier, p->input1_shift);
    const int32_t s2 = flex__mbqm(x2, p->input2_multiplier, p->input2_shift);
    int32_t raw = op == FLEX__S8_ADD ? FLEX_WADD(s1, s2) : FLEX_WSUB(s1, s2);
    if (op == FLEX__S8_SQUARED_DIFFERENCE)
        raw = FLEX_WMUL(raw, raw);
    raw = FLEX_WADD(flex__mbqm(raw, p->output_multiplier, p->output_shift), p->output_offset);
    return (int8_t)flex__clamp(raw, p->act_min, p->act_max);
}

static int8_t mul_one(const flex_s8_mul_params *p, int32_t a, int32_t b) {
    const int32_t prod = (p->input1_offset + a) * (p->input2_offset + b);
    const int32_t out = FLEX_WADD(flex__mbqm(prod, p->output_multiplier, p->output_shift),
                                  p->output_offset);
    return (int8_t)flex__clamp(out, p->act_min, p->act_max);
}

flex_status flex__ref_s8_add_op(const flex_dims4 *in1_dims, const int8_t *in1, size_t in1_len,
                                const flex_dims4 *in2_dims, const int8_t *in2, size_t in2_len,
                                const flex_s8_add_params *p, const flex_dims4 *out_dims,
                                int8_t *output, size_t output_len, int32_t op) {
    int32_t s1[4], s2[4], n, h, w, c;
    FLEX_TRY(flex__s8_add_check(in1_dims, in1, in1_len, in2_dims, in2, in2_len, p, out_dims,
                                output, output_len, s1, s2));
    for (n = 0; n < out_dims->n; n++)
        for (h = 0; h < out_dims->h; h++)
            for (w = 0; w < out_dims->w; w++)
                for (c = 0; c < out_dims->c; c++)
                    *output++ = add_one(p, in1[n * s1[0] + h * s1[1] + w * s1[2] + c * s1[3]],
                                        in2[n * s2[0] + h * s2[1] + w * s2[2] + c * s2[3]],
                                        op);
    return FLEX_OK;
}

flex_status flex_s8_mul(const flex_dims4 *in1_dims, const int8_t *in1, size_t in1_len,
                        const flex_dims4 *in2_dims, const int8_t *in2, size_t in2_len,
                        const flex_s8_mul_params *p,
                        const flex_dims4 *out_dims, int8_t *output, size_t output_len) {
    int32_t s1[4], s2[4], n, h, w, c;
    FLEX_TRY(check_binary(in1_dims, in1, in1_len, in2_dims, in2, in2_len, out_dims, output,
                          output_len, p, s1, s2));
    FLEX_TRY(check_zero_points(p->input1_offset, p->input2_offset, p->output_offset));
    FLEX_TRY(flex__check_shift(p->output_shift));
    FLEX_TRY(flex__check_act(p->act_min, p->act_max));
    for (n = 0; n < out_dims->n; n++)
        for (h = 0; h < out_dims->h; h++)
            for (w = 0; w < out_dims->w; w++)
                for (c = 0; c < out_dims->c; c++)
                    *output++ = mul_one(p, in1[n * s1[0] + h * s1[1] + w * s1[2] + c * s1[3]],
                                        in2[n * s2[0] + h * s2[1] + w * s2[2] + c * s2[3]]);
    return FLEX_OK;
}
