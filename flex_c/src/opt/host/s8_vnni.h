/* The host int8 kernels' AVX-512 VNNI paths (s8_conv_vnni.c, s8_depthwise_vnni.c,
 * s8_fc_vnni.c): their entry points and what they share.
 *
 * - vpdpbusd multiplies unsigned bytes by signed bytes, so the input is copied once into a
 *   padded image of (x + 128) = x ^ 0x80. Its border holds 128 - input_offset, the byte whose
 *   x + input_offset is 0, so a padded tap adds nothing, as TFLM skipping it. Windows then
 *   read the image without bounds tests, and an output may lie over its input (the .bst
 *   arena's in-place plan): the kernel reads only the copy.
 * - sum((x + 128) * w) = sum((x + input_offset) * w) + (128 - input_offset) * sum(w), so each
 *   channel's sum starts at bias - (128 - input_offset) * sum(w), in wrapping int32
 *   arithmetic as TFLM's accumulator (the sums of products stay below 2^31: exact).
 * - Requantization of 16 lanes at a time, bit-identical to s8_requant.h (also for ADD,
 *   s8_add_avx512.c). */
#ifndef FLEX_HOST_S8_VNNI_H
#define FLEX_HOST_S8_VNNI_H

#include "s8_simd.h"

#define FLEX_HOST_VNNI_CHANNELS 1024 /* output channels at most */

/* flex_s8_conv2d (groups 1) on checked arguments with AVX-512 VNNI: 1 when done, 0 when the
 * CPU, the cap (flex_s8_vector_width), the dilation or a size leaves it to the caller. */
int32_t flex__host_conv_vnni(const flex_dims4 *in, const int8_t *input, const int8_t *filter,
                             const int32_t *bias, const int32_t *multiplier,
                             const int32_t *shift, const flex_window *win,
                             const flex_s8_quant *q, const flex_dims4 *out, int8_t *output);

/* flex_s8_depthwise_conv2d (depth multiplier 1) on checked arguments with AVX-512 VNNI: 1
 * when done, 0 when the CPU, the cap or a size leaves it to the caller. */
int32_t flex__host_depthwise_vnni(const flex_dims4 *in, const int8_t *input,
                                  const int8_t *filter, const int32_t *bias,
                                  const int32_t *multiplier, const int32_t *shift,
                                  const flex_window *win, const flex_s8_quant *q,
                                  const flex_dims4 *out, int8_t *output);

/* Prepared forms (what the direct calls above make on the stack each time, and a validated
 * plan once, in memory it owns: plan_fast.c): the shapes, the quantization, each channel's
 * starting sum, multiplier and shift, and the weights packed for the path, in one block of
 * `_size` bytes. `_size` is 0 when the path does not take the arguments (checked as the
 * kernel checks them); `_prepare` fills the block from them; `_run` computes the outputs of
 * `input`, with `image` (FLEX_VNNI_IMAGE_MAX + FLEX_VNNI_SLACK bytes) as the padded image.
 * A run reads the weights no more: a block stays valid while its shapes hold. */
size_t flex__host_conv_vnni_size(const flex_dims4 *in, const flex_window *win, int32_t groups,
                                 const flex_s8_quant *q, const flex_dims4 *out);
void flex__host_conv_vnni_prepare(const flex_dims4 *in, const int8_t *filter,
                                  const int32_t *bias, const int32_t *multiplier,
                                  const int32_t *shift, const flex_window *win,
                                  const flex_s8_quant *q, const flex_dims4 *out, void *prep);
void flex__host_conv_vnni_run(const void *prep, const int8_t *input, int8_t *output,
                              uint8_t *image);
size_t flex__host_depthwise_vnni_size(const flex_dims4 *in, const flex_window *win,
                                      int32_t depth_multiplier, const flex_s8_quant *q,
                                      const flex_dims4 *out);
void flex__host_depthwise_vnni_prepare(const flex_dims4 *in, const int8_t *filter,
                                       const int32_t *bias, const int32_t *multiplier,
                                       const int32_t *shift, const flex_window *win,
                                       const flex_s8_quant *q, const flex_dims4 *out,
                                       void *prep);
void flex__host_depthwise_vnni_run(const void *prep, const int8_t *input, int8_t *output,
                                   uint8_t *image);

#define FLEX_VNNI_IMAGE_MAX 65536 /* bytes of the padded image (on the stack) */
#define FLEX_VNNI_SLACK 64        /* bytes after it that loads may read */

#ifdef FLEX_S8_SIMD
/* out[i] = the reference ADD of a[i] and b[i] for i < n, 16 lanes at a time, when the CPU
 * has AVX-512 (flex__s8_simd() 64): 1 when done, else 0. */
int32_t flex__host_add_avx512(const flex_s8_add_params *p, const int8_t *a, const int8_t *b,
                              int32_t n, int8_t *out);
/* Its prepared form (plan_fast.c), for n elements on each side: `_size` is the block's bytes
 * (64-byte aligned), or 0 where the tables of its split form (s8_add_avx512.c) do not apply;
 * `_prepare` makes the tables, `_run` adds as flex__host_add_avx512 does, without them. */
size_t flex__host_add_avx512_size(const flex_s8_add_params *p, int32_t n);
void flex__host_add_avx512_prepare(const flex_s8_add_params *p, int32_t n, void *prep);
void flex__host_add_avx512_run(const void *prep, const int8_t *a, const int8_t *b,
                               int8_t *out);

/* acc[j] += sum(w[j * n + i] * x[i] for i < n), wrapping, for the count rows j (n >= 1). */
void flex__host_fc_vnni(const int8_t *w, int32_t n, const int8_t *x, int32_t count,
                        int32_t *acc);

/* The padded image's rows and columns (the top and left padding, the input, and what the
 * last window reaches past it); 0 when it would not fit FLEX_VNNI_IMAGE_MAX or the border
 * byte 128 - input_offset is not a byte. */
FLEX_INLINE int32_t flex__vnni_image_size(const flex_dims4 *in, const flex_window *win,
                                          const flex_dims4 *out, int32_t input_offset,
                                          int32_t *hp, int32_t *wp) {
    const int32_t bottom = (out->h - 1) * win->stride_h +
                           (win->kernel_h - 1) * win->dilation_h + 1 - win->pad_top - in->h;
    const int32_t right = (out->w - 1) * win->stride_w +
                          (win->kernel_w - 1) * win->dilation_w + 1 - win->pad_left - in->w;
    *hp = win->pad_top + in->h + (bottom > 0 ? bottom : 0);
    *wp = win->pad_left + in->w + (right > 0 ? right : 0);
    return (int64_t)in->n * *hp * *wp * in->c <= FLEX_VNNI_IMAGE_MAX && input_offset >= -127 &&
           input_offset <= 128;
}

/* The padded image of `in` (hp x wp pixels per batch) and its slack: each byte written once,
 * the border's around the input's rows. */
FLEX_INLINE void flex__vnni_copy_image(const flex_dims4 *in, const int8_t *input,
                                       const flex_window *win, int32_t hp, int32_t wp,
                                       int32_t input_offset, uint8_t *image) {
    const int32_t C = in->c, row = wp * C, run = in->w * C, left = win->pad_left * C;
    const uint8_t border = (uint8_t)(128 - input_offset);
    uint8_t *dst = image;
    int32_t b, y, i;
    for (b = 0; b < in->n; b++)
        for (y = -win->pad_top; y < hp - win->pad_top; y++, dst += row) {
            const int8_t *src = input + (size_t)(b * in->h + y) * run;
            if (y < 0 || y >= in->h) {
                for (i = 0; i < row; i++)
                    dst[i] = border;
                continue;
            }
            for (i = 0; i < left; i++)
                dst[i] = border;
            for (i = 0; i < run; i++)
                dst[left + i] = (uint8_t)(src[i] ^ 0x80);
            for (i = left + run; i < row; i++)
                dst[i] = border;
        }
    for (i = 0; i < FLEX_VNNI_SLACK; i++)
        dst[i] = border;
}

/* A prepared block of 16 lanes whose first C (C < 16, dividing 16) are channels: their
 * starting sums, multipliers and shifts (`start` and the two arrays of 16 after it) and their
 * packed weights (after those, [group][lane][4 taps]) repeated across the 16 lanes, for a
 * vector that computes 16 / C output pixels. */
FLEX_INLINE void flex__vnni_repeat(int32_t C, int32_t groups, int32_t *start) {
    int8_t *packed = (int8_t *)(start + 48);
    int32_t a, g, c, t;
    for (c = C; c < 16; c++) {
        for (a = 0; a < 3; a++)
            start[16 * a + c] = start[16 * a + c % C];
        for (g = 0; g < groups; g++)
            for (t = 0; t < 4; t++)
                packed[(g * 16 + c) * 4 + t] = packed[(g * 16 + c % C) * 4 + t];
    }
}

/* acc plus, in each int32 lane, the four products of x's unsigned bytes and w's signed ones
 * (vpdpbusd), written as assembly: with GCC 12's intrinsic, the convolution's loops copied
 * every sum to another register and back around each product. */
FLEX_INLINE FLEX_VNNI __m512i flex__vnni_dot(__m512i acc, __m512i x, __m512i w) {
    __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(x), "vm"(w));
    return acc;
}

/* Four bytes at p as one int32 (any alignment). */
FLEX_INLINE int32_t flex__vnni_load4(const uint8_t *p) {
    int32_t v;
    __builtin_memcpy(&v, p, 4);
    return v;
}

/* Lanes 0 .. n - 1 of 16 (all for n >= 16). */
FLEX_INLINE __mmask16 flex__vnni_lanes(int32_t n) {
    return n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1u);
}

/* mult[0:n16], sh[0:n16]: the n channels' multipliers and shifts, then zeros. */
FLEX_INLINE void flex__vnni_quant(const int32_t *multiplier, const int32_t *shift, int32_t n,
                                  int32_t n16, int32_t *mult, int32_t *sh) {
    int32_t c;
    for (c = 0; c < n16; c++) {
        mult[c] = c < n ? multiplier[c] : 0;
        sh[c] = c < n ? shift[c] : 0;
    }
}

/* start[0:n16] = bias - (128 - input_offset) * sum: the starting sums of n channels (bias may
 * be NULL), padded to n16, a multiple of 16. */
FLEX_INLINE FLEX_VNNI void flex__vnni_start(const int32_t *sum, const int32_t *bias, int32_t n,
                                            int32_t n16, int32_t input_offset,
                                            int32_t *start) {
    const __m512i k = _mm512_set1_epi32(128 - input_offset);
    int32_t c;
    for (c = 0; c < n16; c += 16) {
        const __m512i b = bias ? _mm512_maskz_loadu_epi32(flex__vnni_lanes(n - c), bias + c)
                               : _mm512_setzero_si512();
        _mm512_storeu_si512(start + c,
                            _mm512_sub_epi32(b, _mm512_mullo_epi32(_mm512_loadu_si512(sum + c),
                                                                   k)));
    }
}

/* TFLM's MultiplyByQuantizedMultiplier of 16 lanes, its two roundings in one 64-bit step
 * per lane (even and odd lanes apart). With a = x << left, p = a m and e = right: the
 * doubling high product is h = floor((p + 2^30) / 2^31) (s8_requant.h), and rounding h / 2^e
 * half away from zero is floor((h + c) / 2^e) with c = 2^(e - 1), less one where h < 0 (c = 0
 * for e = 0); so the result is floor((p + 2^30 + c 2^31) / 2^(31 + e)), one arithmetic shift.
 * Taking p < 0 for h < 0 changes nothing: for -2^30 <= p < 0 both give 0. The one saturating
 * product, p = 2^62 (a = m = INT32_MIN), is lowered by 2^31 to give h = INT32_MAX, as TFLM;
 * every other p is at most 2^62 - 2^31. What depends on the multipliers and shifts alone is
 * made once (flex__vnni_mq), outside the loops that requantize; where no lane shifts left
 * and no multiplier is INT32_MIN (`plain`: quantized models' own), the left shift and the
 * clamp of p are left out (a branch the loops always take alike). */
typedef struct {
    __m512i m, m_odd, left;   /* the multipliers (and those of the odd lanes), left shifts */
    __m512i k_even, k_odd;    /* 2^30 + c 2^31 per even / odd lane */
    __m512i s_even, s_odd;    /* 31 + e */
    __mmask8 r_even, r_odd;   /* e > 0 */
    int32_t plain;            /* no left shift, no multiplier INT32_MIN */
    int32_t foldable;         /* plain, and 1 <= e <= 23 in every lane (flex__vnni_fold) */
} flex__vnni_mq_t;

FLEX_INLINE FLEX_VNNI flex__vnni_mq_t flex__vnni_mq(__m512i m, __m512i sh) {
    const __m512i zero = _mm512_setzero_si512(), half = _mm512_set1_epi64((int64_t)1 << 30);
    const __m512i e = _mm512_max_epi32(_mm512_sub_epi32(zero, sh), zero);
    const __m512i e_even = _mm512_and_si512(e, _mm512_set1_epi64(0xFFFFFFFF));
    const __m512i e_odd = _mm512_srli_epi64(e, 32);
    flex__vnni_mq_t q;
    q.m = m;
    q.m_odd = _mm512_srli_epi64(m, 32);
    q.left = _mm512_max_epi32(sh, zero);
    q.r_even = _mm512_test_epi64_mask(e_even, e_even);
    q.r_odd = _mm512_test_epi64_mask(e_odd, e_odd);
    q.k_even = _mm512_add_epi64(half, _mm512_maskz_sllv_epi64(q.r_even, half, e_even));
    q.k_odd = _mm512_add_epi64(half, _mm512_maskz_sllv_epi64(q.r_odd, half, e_odd));
    q.s_even = _mm512_add_epi64(e_even, _mm512_set1_epi64(31));
    q.s_odd = _mm512_add_epi64(e_odd, _mm512_set1_epi64(31));
    q.plain = !_mm512_cmpgt_epi32_mask(sh, zero) &&
              !_mm512_cmpeq_epi32_mask(m, _mm512_set1_epi32(INT32_MIN));
    q.foldable = q.plain && q.r_even == 0xFF && q.r_odd == 0xFF &&
                 !_mm512_cmpgt_epi32_mask(e, _mm512_set1_epi32(23));
    return q;
}

/* Requantization forms: the general one, `plain` (flex__vnni_mq_t.plain) and `folded`. */
enum { FLEX_VNNI_GENERAL, FLEX_VNNI_PLAIN, FLEX_VNNI_FOLDED };

/* The folded form of a foldable q, for outputs whose clamp is the whole int8 range
 * (flex__vnni_full_range) and whose offset is `offset`: the offset joins the rounding
 * constants (offset 2^(31 + e) more, so the shift gives the result plus the offset; with
 * |p| < 2^62 and e <= 23 the sums stay within int64), the odd lanes shift 32 bits less,
 * leaving their results in their high dwords for one blend, and the saturating int8
 * conversion is the clamp: 13 instructions per 16 outputs instead of 17. */
FLEX_INLINE FLEX_VNNI void flex__vnni_fold(flex__vnni_mq_t *q, int32_t offset) {
    const __m512i off = _mm512_set1_epi64(offset), s32 = _mm512_set1_epi64(32);
    q->k_even = _mm512_add_epi64(q->k_even, _mm512_sllv_epi64(off, q->s_even));
    q->k_odd = _mm512_add_epi64(q->k_odd, _mm512_sllv_epi64(off, q->s_odd));
    q->s_odd = _mm512_sub_epi64(q->s_odd, s32);
}

/* Whether quantization q's clamp is the whole int8 range (the folded form's condition). */
FLEX_INLINE int32_t flex__vnni_full_range(const flex_s8_quant *q) {
    return q->act_min <= -128 && q->act_max >= 127;
}

/* The rounded product and shift of one half (even or odd lanes: p their 64-bit products). */
FLEX_INLINE FLEX_VNNI __m512i flex__vnni_mbqm_half(__m512i p, __m512i k, __m512i s,
                                                   __mmask8 r, int32_t plain) {
    const __m512i v = _mm512_add_epi64(
        plain ? p : _mm512_min_epi64(p, _mm512_set1_epi64(0x3FFFFFFF80000000)), k);
    return _mm512_srav_epi64(
        _mm512_mask_sub_epi64(v, _mm512_mask_cmplt_epi64_mask(r, p, _mm512_setzero_si512()), v,
                              _mm512_set1_epi64((int64_t)1 << 31)),
        s);
}

/* flex__vnni_mbqm16 with q->plain given as `plain` (a constant where the caller's loops
 * were made for each value, so that they hold no branch). */
FLEX_INLINE FLEX_VNNI __m512i flex__vnni_mbqm16_as(__m512i x, const flex__vnni_mq_t *q,
                                                   int32_t plain) {
    const __m512i a = plain ? x : _mm512_sllv_epi32(x, q->left);
    const __m512i re = flex__vnni_mbqm_half(_mm512_mul_epi32(a, q->m), q->k_even, q->s_even,
                                            q->r_even, plain);
    const __m512i ro = flex__vnni_mbqm_half(_mm512_mul_epi32(_mm512_srli_epi64(a, 32), q->m_odd),
                                            q->k_odd, q->s_odd, q->r_odd, plain);
    return _mm512_mask_blend_epi32(0xAAAA, re, _mm512_slli_epi64(ro, 32));
}

FLEX_INLINE FLEX_VNNI __m512i flex__vnni_mbqm16(__m512i x, const flex__vnni_mq_t *q) {
    return flex__vnni_mbqm16_as(x, q, q->plain);
}

/* int8 of clamp(x + offset, lo, hi) for 16 lanes (lo, hi within int8). */
FLEX_INLINE FLEX_VNNI __m128i flex__vnni_out16(__m512i x, int32_t offset, int32_t lo,
                                               int32_t hi) {
    x = _mm512_add_epi32(x, _mm512_set1_epi32(offset));
    x = _mm512_min_epi32(_mm512_max_epi32(x, _mm512_set1_epi32(lo)), _mm512_set1_epi32(hi));
    return _mm512_cvtsepi32_epi8(x); /* in range: the conversion keeps the values */
}

/* The requantized int8 outputs of 16 sums: MultiplyByQuantizedMultiplier, the output
 * offset, the clamp; `form` (a constant where the caller's loops were made for each) is
 * FLEX_VNNI_FOLDED for an mq that flex__vnni_fold made, else mq's plain. */
FLEX_INLINE FLEX_VNNI __m128i flex__vnni_requant16_as(__m512i acc, const flex__vnni_mq_t *mq,
                                                      const flex_s8_quant *q, int32_t form) {
    if (form == FLEX_VNNI_FOLDED) {
        const __m512i re = flex__vnni_mbqm_half(_mm512_mul_epi32(acc, mq->m), mq->k_even,
                                                mq->s_even, 0xFF, 1);
        const __m512i ro = flex__vnni_mbqm_half(
            _mm512_mul_epi32(_mm512_srli_epi64(acc, 32), mq->m_odd), mq->k_odd, mq->s_odd, 0xFF,
            1);
        return _mm512_cvtsepi32_epi8(_mm512_mask_blend_epi32(0xAAAA, re, ro));
    }
    return flex__vnni_out16(flex__vnni_mbqm16_as(acc, mq, form), q->output_offset, q->act_min,
                            q->act_max);
}
#endif

#endif
