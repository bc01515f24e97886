/* Host int8 convolution with AVX-512 VNNI (vpdpbusd: unsigned bytes times signed bytes, four
 * products summed into each int32 lane), bit-identical to the reference kernel, without an
 * im2col copy. The input becomes a padded image of x + 128 (s8_vnni.h, which also says how
 * the +128 and the input offset leave the bias); a kernel row of a window (no dilation) is
 * then kernel_w * C contiguous bytes of it, read in groups of four.
 *
 * - The filter is packed per call into groups of four taps of each kernel row (a row's last
 *   group zero-padded) by 16 output channels: one 64-byte vector per group and 16 channels.
 * - A tile of P output pixels by V vectors of 16 channels keeps its P * V sums in registers:
 *   per group of taps, V weight vectors and P broadcast words of the image. The last tile
 *   of an image lies over the one before (those outputs computed twice, alike), so every
 *   tile is whole. Outputs are requantized 16 lanes at a time and written directly. With 8
 *   output channels a vector holds two pixels (the channels repeated across the lanes, the
 *   words of the two pixels broadcast to a half each), which halves the requantizations.
 *
 * Taken when the CPU has AVX-512 VNNI (flex__s8_simd) and the image fits its buffer; a direct
 * call also needs the packed weights to fit its stack (PACK_MAX), a validated plan (whose
 * blocks are on the heap) does not. s8_conv.c's portable path runs otherwise. */
#include "s8_vnni.h"

#ifdef FLEX_S8_SIMD
#define PACK_MAX 49152 /* bytes of packed weights of a direct call (on its stack) */
#define VMAX 4 /* vectors of 16 channels per tile */
#define PMAX 8 /* pixels per tile: 8 pointers into the image stay in registers */

typedef struct {
    const uint8_t *image;
    const int8_t *packed;
    int32_t groups_row, kernel_h, row_bytes, stride_h, stride_w, group_bytes;
    int32_t oh, ow, hp, wp, c;
    const int32_t *start, *multiplier, *shift; /* per channel, padded to 16 */
    flex_s8_quant q; /* a copy: the output stores do not alias it */
    int32_t oc;
    int8_t *output;
} vnni_conv;

/* Output pixels p0 .. p0 + P - 1 for channels c0 .. c0 + 16 V - 1 (P, V and `form`, the
 * requantization's form of every vector (s8_vnni.h), constants), mq[v] the requantization
 * of channels c0 + 16 v .. c0 + 16 v + 15. The loops over p and v unroll completely, so the
 * sums stay in registers from the first product to the stores. */
FLEX_INLINE FLEX_VNNI void tile(const vnni_conv *k, int32_t p0, int32_t c0, int32_t P,
                                int32_t V, const flex__vnni_mq_t *mq, int32_t form,
                                int32_t n) {
    __m512i acc[PMAX][VMAX];
    const uint8_t *px[PMAX];
    int32_t p, v, ky, g, ox = p0 % k->ow, oy = p0 / k->ow % k->oh, b = p0 / (k->ow * k->oh);
    for (p = 0; p < P * n; p++) { /* one division per tile, then the pixels in order */
        px[p] = k->image + ((b * k->hp + oy * k->stride_h) * k->wp + ox * k->stride_w) * k->c;
        if (++ox == k->ow) {
            ox = 0;
            if (++oy == k->oh) {
                oy = 0;
                b++;
            }
        }
    }
#pragma GCC unroll 8
    for (p = 0; p < P; p++)
#pragma GCC unroll 4
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
#pragma GCC unroll 8
            for (p = 0; p < P; p++) {
                const int32_t o = row + 4 * g;
                const __m512i xv =
                    n == 1 ? _mm512_set1_epi32(flex__vnni_load4(px[p] + o))
                           : _mm512_mask_set1_epi32(
                                 _mm512_set1_epi32(flex__vnni_load4(px[2 * p] + o)), 0xFF00,
                                 flex__vnni_load4(px[2 * p + 1] + o));
#pragma GCC unroll 4
                for (v = 0; v < V; v++)
                    acc[p][v] = flex__vnni_dot(acc[p][v], xv, wv[v]);
            }
        }
    }
#pragma GCC unroll 4
    for (v = 0; v < V; v++) {
        const int32_t c = c0 + 16 * v;
        const __mmask16 keep = flex__vnni_lanes(n == 1 ? k->oc - c : 16);
#pragma GCC unroll 8
        for (p = 0; p < P; p++)
            _mm_mask_storeu_epi8(k->output + (size_t)(p0 + n * p) * k->oc + c, keep,
                                 flex__vnni_requant16_as(acc[p][v], &mq[v], &k->q, form));
    }
}

/* Every output pixel for channels c0 .. c0 + 16 V - 1 in tiles of P n pixels (`form` and
 * `n` as in tile). */
FLEX_INLINE FLEX_VNNI void tiles(const vnni_conv *k, int32_t units, int32_t c0, int32_t P,
                                 int32_t V, const flex__vnni_mq_t *mq, int32_t form,
                                 int32_t n) {
    int32_t p0;
    if (units < P * n) {
        for (p0 = 0; p0 < units; p0++)
            tile(k, p0, c0, 1, V, mq, form, 1);
        return;
    }
    for (p0 = 0; p0 < units; p0 += P * n)
        tile(k, p0 + P * n <= units ? p0 : units - P * n, c0, P, V, mq, form, n);
}

/* tiles for channels c0 .. c0 + 16 V - 1, their requantization constants made once, the
 * tiles' code made for each form of requantization (folded where every vector allows). */
FLEX_INLINE FLEX_VNNI void channels(const vnni_conv *k, int32_t units, int32_t c0, int32_t P,
                                    int32_t V, int32_t n) {
    flex__vnni_mq_t mq[VMAX];
    int32_t v, plain = 1, foldable = flex__vnni_full_range(&k->q);
    for (v = 0; v < V; v++) {
        mq[v] = flex__vnni_mq(_mm512_loadu_si512(k->multiplier + c0 + 16 * v),
                              _mm512_loadu_si512(k->shift + c0 + 16 * v));
        plain &= mq[v].plain;
        foldable &= mq[v].foldable;
    }
    if (foldable) {
        for (v = 0; v < V; v++)
            flex__vnni_fold(&mq[v], k->q.output_offset);
        tiles(k, units, c0, P, V, mq, FLEX_VNNI_FOLDED, n);
    } else if (plain) {
        tiles(k, units, c0, P, V, mq, FLEX_VNNI_PLAIN, n);
    } else {
        tiles(k, units, c0, P, V, mq, FLEX_VNNI_GENERAL, n);
    }
}

/* out[j] lane i = r[i] lane j: a 16 x 16 transpose of dwords (pairs, quadruples within
 * 128-bit lanes, then the 128-bit lanes). */
FLEX_INLINE FLEX_VNNI void transpose16(const __m512i *r, __m512i *out) {
    __m512i t[16], u[16], v[4];
    int32_t i, k;
    for (i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
    for (i = 0; i < 4; i++) { /* u[4 i + k], 128-bit lane L: rows 4 i .. 4 i + 3, column 4 L + k */
        u[4 * i] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
        u[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
        u[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
        u[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
    }
    for (k = 0; k < 4; k++) {
        v[0] = _mm512_shuffle_i32x4(u[k], u[4 + k], 0x88);
        v[1] = _mm512_shuffle_i32x4(u[k], u[4 + k], 0xDD);
        v[2] = _mm512_shuffle_i32x4(u[8 + k], u[12 + k], 0x88);
        v[3] = _mm512_shuffle_i32x4(u[8 + k], u[12 + k], 0xDD);
        out[k] = _mm512_shuffle_i32x4(v[0], v[2], 0x88);
        out[4 + k] = _mm512_shuffle_i32x4(v[1], v[3], 0x88);
        out[8 + k] = _mm512_shuffle_i32x4(v[0], v[2], 0xDD);
        out[12 + k] = _mm512_shuffle_i32x4(v[1], v[3], 0xDD);
    }
}

/* packed[(ky * groups_row + g) * oc16 * 4 + o * 4 + t] = tap 4 g + t of kernel row ky of
 * channel o (0 past the row or for o >= oc; rows of whole groups are dwords of the filter,
 * transposed 16 channels by 16 groups at a time); sum[o] = sum of channel o's taps (vpdpbusd
 * of the packed bytes with ones). */
FLEX_VNNI static void pack(const int8_t *filter, int32_t oc, int32_t oc16, int32_t kh,
                           int32_t run, int32_t groups_row, int8_t *packed, int32_t *sum) {
    const int32_t taps = kh * run, groups = kh * groups_row;
    __m512i r[16], out[16];
    int32_t o, ky, g, t, i;
    if (run % 4 == 0)
        for (o = 0; o < oc16; o += 16)
            for (g = 0; g < groups; g += 16) {
                const int32_t n = groups - g < 16 ? groups - g : 16;
                for (i = 0; i < 16; i++)
                    r[i] = o + i < oc ? _mm512_maskz_loadu_epi32(flex__vnni_lanes(n),
                                                                 filter + (o + i) * taps + 4 * g)
                                      : _mm512_setzero_si512();
                transpose16(r, out);
                for (i = 0; i < n; i++)
                    _mm512_storeu_si512(packed + ((g + i) * oc16 + o) * 4, out[i]);
            }
    else
        for (o = 0; o < oc16; o++)
            for (ky = 0; ky < kh; ky++)
                for (g = 0; g < groups_row; g++)
                    for (t = 0; t < 4; t++)
                        packed[((ky * groups_row + g) * oc16 + o) * 4 + t] =
                            o < oc && 4 * g + t < run
                                ? filter[o * taps + ky * run + 4 * g + t]
                                : 0;
    for (o = 0; o < oc16; o += 16) {
        __m512i s = _mm512_setzero_si512();
        for (g = 0; g < groups; g++)
            s = _mm512_dpbusd_epi32(s, _mm512_set1_epi8(1),
                                    _mm512_loadu_si512(packed + (g * oc16 + o) * 4));
        _mm512_storeu_si512(sum + o, s);
    }
}

/* The prepared form (s8_vnni.h): this header, then start[oc16], mult[oc16], sh[oc16] and
 * the packed weights. */
typedef struct {
    flex_dims4 in, out;
    flex_window win;
    flex_s8_quant q;
    int32_t hp, wp, oc16, groups_row;
} conv_head;

#define HEAD_BYTES ((sizeof(conv_head) + 63) / 64 * 64)

size_t flex__host_conv_vnni_size(const flex_dims4 *in, const flex_window *win, int32_t groups,
                                 const flex_s8_quant *q, const flex_dims4 *out) {
    const int32_t groups_row = (win->kernel_w * in->c + 3) / 4, oc16 = (out->c + 15) / 16 * 16;
    const int64_t packed = (int64_t)win->kernel_h * groups_row * oc16 * 4;
    int32_t hp, wp;
    if (flex__s8_simd() < 64 || groups != 1 || win->dilation_h != 1 || win->dilation_w != 1 ||
        out->c > FLEX_HOST_VNNI_CHANNELS || packed > INT32_MAX ||
        !flex__vnni_image_size(in, win, out, q->input_offset, &hp, &wp))
        return 0;
    return HEAD_BYTES + 12 * (size_t)oc16 + (size_t)packed;
}

FLEX_VNNI void flex__host_conv_vnni_prepare(const flex_dims4 *in, const int8_t *filter,
                                            const int32_t *bias, const int32_t *multiplier,
                                            const int32_t *shift, const flex_window *win,
                                            const flex_s8_quant *q, const flex_dims4 *out,
                                            void *prep) {
    conv_head *h = prep;
    const int32_t oc = out->c, oc16 = (oc + 15) / 16 * 16;
    int32_t *start = (int32_t *)((char *)prep + HEAD_BYTES), *mult = start + oc16;
    h->in = *in;
    h->out = *out;
    h->win = *win;
    h->q = *q;
    h->oc16 = oc16;
    h->groups_row = (win->kernel_w * in->c + 3) / 4;
    flex__vnni_image_size(in, win, out, q->input_offset, &h->hp, &h->wp);
    pack(filter, oc, oc16, win->kernel_h, win->kernel_w * in->c, h->groups_row,
         (int8_t *)(mult + 2 * oc16), start);
    flex__vnni_start(start, bias, oc, oc16, q->input_offset, start);
    flex__vnni_quant(multiplier, shift, oc, oc16, mult, mult + oc16);
    if (oc == 8)
        flex__vnni_repeat(8, win->kernel_h * h->groups_row, start);
}

FLEX_VNNI void flex__host_conv_vnni_run(const void *prep, const int8_t *input, int8_t *output,
                                        uint8_t *image) {
    const conv_head *h = prep;
    const int32_t *start = (const int32_t *)((const char *)prep + HEAD_BYTES);
    const int32_t oc16 = h->oc16, units = h->out.n * h->out.h * h->out.w;
    int32_t c0;
    vnni_conv k;
    flex__vnni_copy_image(&h->in, input, &h->win, h->hp, h->wp, h->q.input_offset, image);
    k.image = image;
    k.packed = (const int8_t *)(start + 3 * oc16);
    k.groups_row = h->groups_row;
    k.kernel_h = h->win.kernel_h;
    k.row_bytes = h->wp * h->in.c;
    k.stride_h = h->win.stride_h;
    k.stride_w = h->win.stride_w;
    k.group_bytes = oc16 * 4;
    k.oh = h->out.h;
    k.ow = h->out.w;
    k.hp = h->hp;
    k.wp = h->wp;
    k.c = h->in.c;
    k.start = start;
    k.multiplier = start + oc16;
    k.shift = start + 2 * oc16;
    k.q = h->q;
    k.oc = h->out.c;
    k.output = output;
    for (c0 = 0; c0 < oc16; c0 += 16 * VMAX) {
        switch ((oc16 - c0) / 16) {
        case 1:
            if (k.oc == 8)
                channels(&k, units, c0, 4, 1, 2); /* 2 pixels a vector (flex__vnni_repeat) */
            else
                channels(&k, units, c0, 8, 1, 1);
            break;
        case 2: channels(&k, units, c0, 6, 2, 1); break; /* 8 pixels x 2 spilled their sums */
        case 3: channels(&k, units, c0, 8, 3, 1); break;
        default: channels(&k, units, c0, 6, 4, 1); break;
        }
    }
}

int32_t flex__host_conv_vnni(const flex_dims4 *in, const int8_t *input, const int8_t *filter,
                             const int32_t *bias, const int32_t *multiplier,
                             const int32_t *shift, const flex_window *win,
                             const flex_s8_quant *q, const flex_dims4 *out, int8_t *output) {
    int64_t prep[(HEAD_BYTES + 12 * FLEX_HOST_VNNI_CHANNELS + PACK_MAX) / 8];
    uint8_t image[FLEX_VNNI_IMAGE_MAX + FLEX_VNNI_SLACK];
    const size_t size = flex__host_conv_vnni_size(in, win, 1, q, out);
    if (!size || size > sizeof prep)
        return 0;
    flex__host_conv_vnni_prepare(in, filter, bias, multiplier, shift, win, q, out, prep);
    flex__host_conv_vnni_run(prep, input, output, image);
    return 1;
}
#else
size_t flex__host_conv_vnni_size(const flex_dims4 *in, const flex_window *win, int32_t groups,
                                 const flex_s8_quant *q, const flex_dims4 *out) {
    (void)in, (void)win, (void)groups, (void)q, (void)out;
    return 0;
}

void flex__host_conv_vnni_prepare(const flex_dims4 *in, const int8_t *filter,
                                  const int32_t *bias, const int32_t *multiplier,
                                  const int32_t *shift, const flex_window *win,
                                  const flex_s8_quant *q, const flex_dims4 *out, void *prep) {
    (void)in, (void)filter, (void)bias, (void)multiplier, (void)shift, (void)win, (void)q;
    (void)out, (void)prep;
}

void flex__host_conv_vnni_run(const void *prep, const int8_t *input, int8_t *output,
                              uint8_t *image) {
    (void)prep, (void)input, (void)output, (void)image;
}

int32_t flex__host_conv_vnni(const flex_dims4 *in, const int8_t *input, const int8_t *filter,
                             const int32_t *bias, const int32_t *multiplier,
                             const int32_t *shift, const flex_window *win,
                             const flex_s8_quant *q, const flex_dims4 *out, int8_t *output) {
    (void)in, (void)input, (void)filter, (void)bias, (void)multiplier, (void)shift;
    (void)win, (void)q, (void)out, (void)output;
    return 0;
}
#endif
