/* Host int8 depthwise convolution (depth multiplier 1) with AVX-512 VNNI, bit-identical to
 * the reference kernel. The input becomes a padded image of x + 128 (s8_vnni.h, which also
 * says how the +128 and the input offset leave the bias), so every tap of a window is a
 * fixed offset from the window's first pixel, with no bounds tests.
 *
 * Each int32 lane is one channel and sums four taps per vpdpbusd: the window's taps go in
 * groups of four (the last group padded with taps of weight 0), the weights packed per call
 * as [group][channel][tap of 4]. For 16 channels a group's four taps are four 16-byte loads,
 * one per tap, transposed to four bytes per channel by a dword permutation across the
 * 128-bit lanes and a byte shuffle within them. Channels past a multiple of 16 are computed
 * on bytes of the next pixel (weight 0) and not stored. With fewer than 16 channels that
 * divide 16 and stride 1 across, the 16 bytes of a tap hold that tap of 16 / C neighbouring
 * output pixels, so one vector computes them all (`rep` pixels): the prepared weights,
 * starting sums, multipliers and shifts repeat the C channels across the 16 lanes, and the
 * last vector of a row lies over the one before (its outputs computed twice, alike).
 *
 * Taken when the CPU has AVX-512 VNNI (flex__s8_simd) and the shapes fit the stack buffers;
 * s8_depthwise.c's portable path runs otherwise. */
#include "s8_vnni.h"

#ifdef FLEX_S8_SIMD
#define DW_TAPS 64 /* taps of a window, padded to groups of four */

/* packed[(g * c16 + c) * 4 + t] = weight of tap 4 g + t of channel c (0 past the taps or for
 * c >= C); sum[c] = sum of channel c's weights. */
FLEX_VNNI static void pack(const int8_t *filter, int32_t C, int32_t c16, int32_t taps,
                           int8_t *packed, int32_t *sum) {
    const int32_t groups = (taps + 3) / 4;
    int32_t g, c, t;
    for (g = 0; g < groups; g++)
        for (c = 0; c < c16; c++)
            for (t = 0; t < 4; t++)
                packed[(g * c16 + c) * 4 + t] =
                    c < C && 4 * g + t < taps ? filter[(4 * g + t) * C + c] : 0;
    for (c = 0; c < c16; c += 16) {
        __m512i s = _mm512_setzero_si512();
        for (g = 0; g < groups; g++)
            s = _mm512_dpbusd_epi32(s, _mm512_set1_epi8(1),
                                    _mm512_loadu_si512(packed + (g * c16 + c) * 4));
        _mm512_storeu_si512(sum + c, s);
    }
}

/* Bytes x[0:16] of four taps as one vector of 16 channels by four taps: the dword
 * permutation puts channels 4j .. 4j + 3 of the four taps in 128-bit lane j, the byte
 * shuffle makes each channel's four taps one dword. */
FLEX_INLINE FLEX_VNNI __m512i four_taps(const uint8_t *x0, const uint8_t *x1,
                                        const uint8_t *x2, const uint8_t *x3) {
    const __m512i lanes = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    const __m512i bytes = _mm512_broadcast_i32x4(
        _mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15));
    __m512i v = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)x0));
    v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)x1), 1);
    v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)x2), 2);
    v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)x3), 3);
    return _mm512_shuffle_epi8(_mm512_permutexvar_epi32(lanes, v), bytes);
}

/* The prepared form (s8_vnni.h): this header, then start[c16], mult[c16], sh[c16] and the
 * packed weights. */
typedef struct {
    flex_dims4 in, out;
    flex_window win;
    flex_s8_quant q;
    int32_t hp, wp, c16, groups, rep; /* rep: output pixels per vector */
    int32_t off[DW_TAPS]; /* each tap's byte offset in the image from its window's first */
} dw_head;

#define HEAD_BYTES ((sizeof(dw_head) + 63) / 64 * 64)

size_t flex__host_depthwise_vnni_size(const flex_dims4 *in, const flex_window *win,
                                      int32_t depth_multiplier, const flex_s8_quant *q,
                                      const flex_dims4 *out) {
    const int32_t c16 = (in->c + 15) / 16 * 16, groups = (win->kernel_h * win->kernel_w + 3) / 4;
    int32_t hp, wp;
    if (flex__s8_simd() < 64 || depth_multiplier != 1 || in->c > FLEX_HOST_VNNI_CHANNELS ||
        win->kernel_h * win->kernel_w > DW_TAPS ||
        !flex__vnni_image_size(in, win, out, q->input_offset, &hp, &wp))
        return 0;
    return HEAD_BYTES + 12 * (size_t)c16 + 4 * (size_t)groups * c16;
}

FLEX_VNNI void flex__host_depthwise_vnni_prepare(const flex_dims4 *in, const int8_t *filter,
                                                 const int32_t *bias,
                                                 const int32_t *multiplier,
                                                 const int32_t *shift, const flex_window *win,
                                                 const flex_s8_quant *q,
                                                 const flex_dims4 *out, void *prep) {
    dw_head *h = prep;
    const int32_t C = in->c, c16 = (C + 15) / 16 * 16, taps = win->kernel_h * win->kernel_w;
    int32_t *start = (int32_t *)((char *)prep + HEAD_BYTES), *mult = start + c16, t;
    h->in = *in;
    h->out = *out;
    h->win = *win;
    h->q = *q;
    h->c16 = c16;
    h->groups = (taps + 3) / 4;
    flex__vnni_image_size(in, win, out, q->input_offset, &h->hp, &h->wp);
    for (t = 0; t < DW_TAPS; t++)
        h->off[t] = t < taps ? ((t / win->kernel_w) * win->dilation_h * h->wp +
                                t % win->kernel_w * win->dilation_w) * C
                             : 0;
    pack(filter, C, c16, taps, (int8_t *)(mult + 2 * c16), start);
    flex__vnni_start(start, bias, C, c16, q->input_offset, start);
    flex__vnni_quant(multiplier, shift, C, c16, mult, mult + c16);
    h->rep = 16 % C == 0 && win->stride_w == 1 && out->w >= 16 / C ? 16 / C : 1;
    if (h->rep > 1)
        flex__vnni_repeat(C, h->groups, start);
}

/* Channels c .. c + 15 of every output pixel, windows of `groups` groups of four taps,
 * requantized by mq in `form` (s8_vnni.h; both constants where inlined). The block's
 * weights, tap offsets and constants are locals, so the int8 output stores cannot make the
 * loops reload them. */
FLEX_INLINE FLEX_VNNI void block(const dw_head *h, const uint8_t *image, int32_t c,
                                 int32_t groups, flex__vnni_mq_t mq, int32_t form, int32_t rep,
                                 int8_t *output) {
    const int32_t *start = (const int32_t *)((const char *)h + HEAD_BYTES);
    const int32_t C = h->in.c, c16 = h->c16, wp = h->wp, oh = h->out.h, ow = h->out.w;
    const int32_t sx = h->win.stride_w * C, sy = h->win.stride_h * wp * C;
    const int32_t plane = h->hp * wp * C, batches = h->out.n;
    const int8_t *packed = (const int8_t *)(start + 3 * c16);
    const flex_s8_quant ql = h->q;
    const __m512i base = _mm512_loadu_si512(start + c);
    const int32_t last = ow - rep;
    const __mmask16 keep = flex__vnni_lanes(C * rep - c);
    __m512i w[DW_TAPS / 4];
    int32_t off[DW_TAPS], b, oy, ox, g;
    for (g = 0; g < groups; g++) {
        w[g] = _mm512_loadu_si512(packed + (g * c16 + c) * 4);
        off[4 * g] = h->off[4 * g];
        off[4 * g + 1] = h->off[4 * g + 1];
        off[4 * g + 2] = h->off[4 * g + 2];
        off[4 * g + 3] = h->off[4 * g + 3];
    }
    output += c;
    for (b = 0; b < batches; b++)
        for (oy = 0; oy < oh; oy++, output += ow * C) {
            const uint8_t *row = image + c + b * plane + oy * sy;
            for (ox = 0; ox < ow; ox += rep) {
                const int32_t at = rep == 1 || ox < last ? ox : last;
                const uint8_t *x = row + at * sx;
                __m512i acc = base;
                for (g = 0; g < groups; g++)
                    acc = _mm512_dpbusd_epi32(acc,
                                              four_taps(x + off[4 * g], x + off[4 * g + 1],
                                                        x + off[4 * g + 2], x + off[4 * g + 3]),
                                              w[g]);
                _mm_mask_storeu_epi8(output + at * C, keep,
                                     flex__vnni_requant16_as(acc, &mq, &ql, form));
            }
        }
}

FLEX_VNNI void flex__host_depthwise_vnni_run(const void *prep, const int8_t *input,
                                             int8_t *output, uint8_t *image) {
    const dw_head *h = prep;
    const int32_t *mult = (const int32_t *)((const char *)h + HEAD_BYTES) + h->c16;
    int32_t c;
    flex__vnni_copy_image(&h->in, input, &h->win, h->hp, h->wp, h->q.input_offset, image);
    for (c = 0; c < h->c16; c += 16) { /* a block's constants stay in registers */
        flex__vnni_mq_t mq = flex__vnni_mq(_mm512_loadu_si512(mult + c),
                                           _mm512_loadu_si512(mult + h->c16 + c));
        if (mq.foldable && flex__vnni_full_range(&h->q)) {
            flex__vnni_fold(&mq, h->q.output_offset);
            if (h->groups == 3 && h->rep == 1) /* 3x3 windows */
                block(h, image, c, 3, mq, FLEX_VNNI_FOLDED, 1, output);
            else if (h->groups == 3)
                block(h, image, c, 3, mq, FLEX_VNNI_FOLDED, h->rep, output);
            else
                block(h, image, c, h->groups, mq, FLEX_VNNI_FOLDED, h->rep, output);
        } else {
            block(h, image, c, h->groups, mq, mq.plain, h->rep, output);
        }
    }
}

int32_t flex__host_depthwise_vnni(const flex_dims4 *in, const int8_t *input,
                                  const int8_t *filter, const int32_t *bias,
                                  const int32_t *multiplier, const int32_t *shift,
                                  const flex_window *win, const flex_s8_quant *q,
                                  const flex_dims4 *out, int8_t *output) {
    int64_t prep[(HEAD_BYTES + (12 + 4 * DW_TAPS / 4) * FLEX_HOST_VNNI_CHANNELS) / 8];
    uint8_t image[FLEX_VNNI_IMAGE_MAX + FLEX_VNNI_SLACK];
    if (!flex__host_depthwise_vnni_size(in, win, 1, q, out))
        return 0;
    flex__host_depthwise_vnni_prepare(in, filter, bias, multiplier, shift, win, q, out, prep);
    flex__host_depthwise_vnni_run(prep, input, output, image);
    return 1;
}
#else
size_t flex__host_depthwise_vnni_size(const flex_dims4 *in, const flex_window *win,
                                      int32_t depth_multiplier, const flex_s8_quant *q,
                                      const flex_dims4 *out) {
    (void)in, (void)win, (void)depth_multiplier, (void)q, (void)out;
    return 0;
}

void flex__host_depthwise_vnni_prepare(const flex_dims4 *in, const int8_t *filter,
                                       const int32_t *bias, const int32_t *multiplier,
                                       const int32_t *shift, const flex_window *win,
                                       const flex_s8_quant *q, const flex_dims4 *out,
                                       void *prep) {
    (void)in, (void)filter, (void)bias, (void)multiplier, (void)shift, (void)win, (void)q;
    (void)out, (void)prep;
}

void flex__host_depthwise_vnni_run(const void *prep, const int8_t *input, int8_t *output,
                                   uint8_t *image) {
    (void)prep, (void)input, (void)output, (void)image;
}

int32_t flex__host_depthwise_vnni(const flex_dims4 *in, const int8_t *input,
                                  const int8_t *filter, const int32_t *bias,
                                  const int32_t *multiplier, const int32_t *shift,
                                  const flex_window *win, const flex_s8_quant *q,
                                  const flex_dims4 *out, int8_t *output) {
    (void)in, (void)input, (void)filter, (void)bias, (void)multiplier, (void)shift;
    (void)win, (void)q, (void)out, (void)output;
    return 0;
}
#endif
