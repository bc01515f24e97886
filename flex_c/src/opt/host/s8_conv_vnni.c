/* Host int8 convolution with AVX-512 VNNI (vpdpbusd: unsigned bytes times signed bytes, four
 * products summed into each int32 lane), bit-identical to the reference kernel, without an
 * im2col copy:
 *
 * - The input is copied once, offset by +128 (x ^ 0x80, an unsigned byte), into a padded
 *   image whose border holds 128 - input_offset, the byte whose (x + input_offset) is 0, so
 *   a padded tap adds nothing, as TFLM skipping it. A kernel row of a window (no dilation)
 *   is then kernel_w * C contiguous bytes of that image, read in groups of four.
 * - The filter is packed per call into groups of four taps of each kernel row (a row's last
 *   group zero-padded) by 16 output channels: one 64-byte vector per group and 16 channels.
 * - sum((x + 128) * w) = sum((x + input_offset) * w) + (128 - input_offset) * sum(w), so the
 *   bias less (128 - input_offset) * sum(w) starts each channel's sum (wrapping int32
 *   arithmetic, as TFLM's accumulator; the sums themselves are < 2^31: exact).
 * - A tile of P output pixels by V vectors of 16 channels keeps its P * V sums in registers:
 *   per group of taps, V weight vectors and P broadcast words of the image. The last tile
 *   of an image lies over the one before (those outputs computed twice, alike), so every
 *   tile is whole. Outputs are requantized 16 lanes at a time and written directly: the
 *   copied image lets an output lie over its input (the .bst arena's in-place plan).
 *
 * Taken when the CPU has AVX-512 VNNI (flex__s8_simd) and the shapes fit the stack buffers;
 * s8_conv.c's portable path runs otherwise. */
#include "s8_conv_vnni.h"

#include "s8_simd.h"

#ifdef FLEX_S8_SIMD
#define IMAGE_MAX 65536 /* bytes of the padded image */
#define PACK_MAX 49152  /* bytes of packed weights */
#define SLACK 64        /* a kernel row's last group may read up to 3 bytes past the image */
#define VMAX 4          /* vectors of 16 channels per tile */
#define PMAX 12         /* pixels per tile */

typedef struct {
    const uint8_t *image;
    const int8_t *packed;
    int32_t groups_row, kernel_h, row_bytes, stride_h, stride_w, group_bytes;
    int32_t oh, ow, hp, wp, c;
    const int32_t *start, *multiplier, *shift; /* per channel, padded to 16 */
    const flex_s8_quant *q;
    int32_t oc;
    int8_t *output;
} vnni_conv;

/* Four bytes at p as one int32 (any alignment). */
FLEX_INLINE int32_t load4(const uint8_t *p) {
    int32_t v;
    __builtin_memcpy(&v, p, 4);
    return v;
}

/* TFLM's MultiplyByQuantizedMultiplier of 16 lanes plus the output offset, clamped
 * (s8_requant.h's formula): the 64-bit products of the even and odd lanes, their rounded
 * high words blended back, then the branch-free rounding divide by 2^right. */
FLEX_VNNI FLEX_INLINE __m512i requant16(__m512i acc, __m512i m, __m512i sh,
                                        const flex_s8_quant *q) {
    const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi32(1);
    const __m512i rs = _mm512_max_epi32(_mm512_sub_epi32(zero, sh), zero);
    const __m512i a = _mm512_sllv_epi32(acc, _mm512_max_epi32(sh, zero));
    const __m512i nudge = _mm512_set1_epi64((int64_t)1 << 30);
    const __m512i even = _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epi32(a, m), nudge), 31);
    const __m512i odd = _mm512_add_epi64(
        _mm512_mul_epi32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(m, 32)), nudge);
    const __m512i mask = _mm512_sub_epi32(_mm512_sllv_epi32(one, rs), one);
    const __mmask16 sat = _mm512_cmpeq_epi32_mask(a, _mm512_set1_epi32(INT32_MIN)) &
                          _mm512_cmpeq_epi32_mask(m, _mm512_set1_epi32(INT32_MIN));
    __m512i high = _mm512_mask_blend_epi32(0xAAAA, even,
                                           _mm512_slli_epi64(_mm512_srli_epi64(odd, 31), 32));
    __m512i v;
    high = _mm512_mask_sub_epi32(high, sat, high, one);
    v = _mm512_srav_epi32(high, rs);
    v = _mm512_mask_add_epi32(
        v, _mm512_cmpgt_epi32_mask(_mm512_and_si512(high, mask),
                                   _mm512_sub_epi32(_mm512_srli_epi32(mask, 1),
                                                    _mm512_srai_epi32(high, 31))),
        v, one);
    v = _mm512_add_epi32(v, _mm512_set1_epi32(q->output_offset));
    return _mm512_min_epi32(_mm512_max_epi32(v, _mm512_set1_epi32(q->act_min)),
                            _mm512_set1_epi32(q->act_max));
}

/* Output pixels p0 .. p0 + P - 1 for channels c0 .. c0 + 16 V - 1 (P, V constants). */
FLEX_VNNI FLEX_INLINE void tile(const vnni_conv *k, int32_t p0, int32_t c0, int32_t P,
                                int32_t V) {
    __m512i acc[PMAX][VMAX];
    const uint8_t *px[PMAX];
    int32_t p, v, ky, g;
    for (p = 0; p < P; p++) {
        const int32_t ox = (p0 + p) % k->ow, oy = (p0 + p) / k->ow % k->oh;
        const int32_t b = (p0 + p) / (k->ow * k->oh);
        px[p] = k->image + ((b * k->hp + oy * k->stride_h) * k->wp + ox * k->stride_w) * k->c;
    }
    for (p = 0; p < P; p++)
        for (v = 0; v < V; v++)
            acc[p][v] = _mm512_loadu_si512(k->start + c0 + 16 * v);
    for (ky = 0; ky < k->kernel_h; ky++) {
        const int8_t *w = k->packed + (ky * k->groups_row * k->group_bytes) + c0 * 4;
        const int32_t row = ky * k->row_bytes;
        for (g = 0; g < k->groups_row; g++, w += k->group_bytes) {
            __m512i wv[VMAX];
#pragma GCC unroll 4
            for (v = 0; v < V; v++)
                wv[v] = _mm512_loadu_si512(w + 64 * v);
#pragma GCC unroll 12
            for (p = 0; p < P; p++) {
                const __m512i xv = _mm512_set1_epi32(load4(px[p] + row + 4 * g));
#pragma GCC unroll 4
                for (v = 0; v < V; v++)
                    acc[p][v] = _mm512_dpbusd_epi32(acc[p][v], xv, wv[v]);
            }
        }
    }
    for (v = 0; v < V; v++) {
        const int32_t c = c0 + 16 * v;
        const __m512i m = _mm512_loadu_si512(k->multiplier + c);
        const __m512i sh = _mm512_loadu_si512(k->shift + c);
        const __mmask16 keep = k->oc - c >= 16 ? 0xFFFF : (__mmask16)((1u << (k->oc - c)) - 1);
        for (p = 0; p < P; p++)
            _mm_mask_storeu_epi8(k->output + (size_t)(p0 + p) * k->oc + c, keep,
                                 _mm512_cvtsepi32_epi8(requant16(acc[p][v], m, sh, k->q)));
    }
}

/* Every output pixel for channels c0 .. c0 + 16 V - 1 in tiles of P pixels. */
FLEX_VNNI FLEX_INLINE void channels(const vnni_conv *k, int32_t units, int32_t c0, int32_t P,
                                    int32_t V) {
    int32_t p0;
    if (units < P) {
        for (p0 = 0; p0 < units; p0++)
            tile(k, p0, c0, 1, V);
        return;
    }
    for (p0 = 0; p0 < units; p0 += P)
        tile(k, p0 + P <= units ? p0 : units - P, c0, P, V);
}

/* The padded image: (x + 128) inside, 128 - input_offset in the border and the slack. */
FLEX_VNNI static void copy_image(const flex_dims4 *in, const int8_t *input,
                                 const flex_window *win, int32_t hp, int32_t wp,
                                 int32_t input_offset, uint8_t *image) {
    const int32_t C = in->c, size = in->n * hp * wp * C;
    const int32_t run = in->w * C;
    int32_t b, y, i;
    for (i = 0; i < size + SLACK; i++)
        image[i] = (uint8_t)(128 - input_offset);
    for (b = 0; b < in->n; b++)
        for (y = 0; y < in->h; y++) {
            const int8_t *src = input + (size_t)(b * in->h + y) * run;
            uint8_t *dst = image + ((b * hp + y + win->pad_top) * wp + win->pad_left) * C;
            for (i = 0; i < run; i++)
                dst[i] = (uint8_t)(src[i] ^ 0x80);
        }
}

/* packed[(ky * groups_row + g) * oc16 * 4 + o * 4 + t] = tap 4 g + t of kernel row ky of
 * channel o (0 past the row or for o >= oc); start[o] = bias - (128 - input_offset) * sum(w)
 * (the sums by vpdpbusd with ones), multiplier and shift copied, all padded to oc16. */
FLEX_VNNI static void pack(const int8_t *filter, const int32_t *bias, const int32_t *multiplier,
                           const int32_t *shift, int32_t oc, int32_t oc16, int32_t kh,
                           int32_t run, int32_t groups_row, int32_t input_offset,
                           int8_t *packed, int32_t *start, int32_t *mult, int32_t *sh) {
    const int32_t taps = kh * run, groups = kh * groups_row;
    int32_t o, ky, g, t;
    for (o = 0; o < oc16; o++) {
        for (ky = 0; ky < kh; ky++)
            for (g = 0; g < groups_row; g++)
                for (t = 0; t < 4; t++)
                    packed[((ky * groups_row + g) * oc16 + o) * 4 + t] =
                        o < oc && 4 * g + t < run ? filter[o * taps + ky * run + 4 * g + t] : 0;
        mult[o] = o < oc ? multiplier[o] : 0;
        sh[o] = o < oc ? shift[o] : 0;
    }
    for (o = 0; o < oc16; o += 16) {
        __m512i s = _mm512_setzero_si512();
        const __m512i ones = _mm512_set1_epi8(1);
        __m512i b = _mm512_setzero_si512();
        for (g = 0; g < groups; g++)
            s = _mm512_dpbusd_epi32(s, ones, _mm512_loadu_si512(packed + (g * oc16 + o) * 4));
        if (bias)
            b = _mm512_maskz_loadu_epi32(
                oc - o >= 16 ? 0xFFFF : (__mmask16)((1u << (oc - o)) - 1), bias + o);
        _mm512_storeu_si512(start + o,
                            _mm512_sub_epi32(b, _mm512_mullo_epi32(
                                                    s, _mm512_set1_epi32(128 - input_offset))));
    }
}

FLEX_VNNI static int32_t conv_vnni(const flex_dims4 *in, const int8_t *input,
                                   const int8_t *filter, const int32_t *bias,
                                   const int32_t *multiplier, const int32_t *shift,
                                   const flex_window *win, const flex_s8_quant *q,
                                   const flex_dims4 *out, int8_t *output) {
    uint8_t image[IMAGE_MAX + SLACK];
    int8_t packed[PACK_MAX] FLEX_ALIGNED;
    int32_t start[FLEX_HOST_VNNI_OC], mult[FLEX_HOST_VNNI_OC], sh[FLEX_HOST_VNNI_OC];
    const int32_t C = in->c, run = win->kernel_w * C, groups_row = (run + 3) / 4;
    const int32_t oc = out->c, oc16 = (oc + 15) / 16 * 16;
    const int32_t bottom = (out->h - 1) * win->stride_h + win->kernel_h - win->pad_top - in->h;
    const int32_t right = (out->w - 1) * win->stride_w + win->kernel_w - win->pad_left - in->w;
    const int32_t hp = win->pad_top + in->h + (bottom > 0 ? bottom : 0);
    const int32_t wp = win->pad_left + in->w + (right > 0 ? right : 0);
    const int32_t units = out->n * out->h * out->w;
    vnni_conv k;
    int32_t c0;
    if ((int64_t)in->n * hp * wp * C > IMAGE_MAX ||
        (int64_t)win->kernel_h * groups_row * oc16 * 4 > PACK_MAX || oc16 > FLEX_HOST_VNNI_OC ||
        q->input_offset < -127 || q->input_offset > 128)
        return 0;
    copy_image(in, input, win, hp, wp, q->input_offset, image);
    pack(filter, bias, multiplier, shift, oc, oc16, win->kernel_h, run, groups_row,
         q->input_offset, packed, start, mult, sh);
    k.image = image;
    k.packed = packed;
    k.groups_row = groups_row;
    k.kernel_h = win->kernel_h;
    k.row_bytes = wp * C;
    k.stride_h = win->stride_h;
    k.stride_w = win->stride_w;
    k.group_bytes = oc16 * 4;
    k.oh = out->h;
    k.ow = out->w;
    k.hp = hp;
    k.wp = wp;
    k.c = C;
    k.start = start;
    k.multiplier = mult;
    k.shift = sh;
    k.q = q;
    k.oc = oc;
    k.output = output;
    for (c0 = 0; c0 < oc16; c0 += 16 * VMAX) {
        switch ((oc16 - c0) / 16) {
        case 1: channels(&k, units, c0, 12, 1); break;
        case 2: channels(&k, units, c0, 12, 2); break;
        case 3: channels(&k, units, c0, 8, 3); break;
        default: channels(&k, units, c0, 6, 4); break;
        }
    }
    return 1;
}

int32_t flex__host_conv_vnni(const flex_dims4 *in, const int8_t *input, const int8_t *filter,
                             const int32_t *bias, const int32_t *multiplier,
                             const int32_t *shift, const flex_window *win,
                             const flex_s8_quant *q, const flex_dims4 *out, int8_t *output) {
    if (flex__s8_simd() < 64 || win->dilation_h != 1 || win->dilation_w != 1)
        return 0;
    return conv_vnni(in, input, filter, bias, multiplier, shift, win, q, out, output);
}
#else
int32_t flex__host_conv_vnni(const flex_dims4 *in, const int8_t *input, const int8_t *filter,
                             const int32_t *bias, const int32_t *multiplier,
                             const int32_t *shift, const flex_window *win,
                             const flex_s8_quant *q, const flex_dims4 *out, int8_t *output) {
    (void)in, (void)input, (void)filter, (void)bias, (void)multiplier, (void)shift;
    (void)win, (void)q, (void)out, (void)output;
    return 0;
}
#endif
