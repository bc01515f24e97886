/* Host (x86-64 / aarch64) int8 convolution, bit-identical to the reference kernel and written
 * for the vectorizer (on x86-64 GCC builds the hot functions are cloned for AVX2,
 * FLEX_CLONES): each output pixel's receptive field (groups 1) is gathered once into an
 * int16 patch of (input + input offset), padding 0, exactly as TFLM skipping it (a kernel
 * row inside the input is one contiguous run); weights are widened to int16 once per call,
 * in blocks of output channels that fit the stack. Patch and weight rows are zero-padded to
 * a multiple of the vector width, so every output channel is an int16 dot product without
 * a scalar tail (multiply-add of pairs into int32, four channels per pass over the patch).
 * |sum| <= taps * 255 * 128 < 2^31: exact. An output over its input with several weight
 * blocks runs in spans of pixels held on the stack until complete. Requantization runs over
 * each output pixel's row of channels (s8_requant.h). Other shapes use the reference kernel
 * (ref/ref.h). On CPUs with AVX-512 VNNI, s8_conv_vnni.c takes the shapes it can. */
#include "../../ref/ref.h"
#include "s8_dot.h"
#include "s8_requant.h"
#include "s8_vnni.h"

#define PATCH_MAX 8192    /* int16 taps of one receptive field */
#define OC_MAX 1024       /* output channels of conv2d */
#define WIDE_MAX 32768    /* int16 weights widened at a time (64 KB of stack) */
#define SPAN_BYTES 16384  /* in place: output pixels held until complete */
#define LANES 16          /* int16 lanes of the widest vectors: taps are padded to a multiple */

/* Patch of output pixel (b, oy, ox): (x + offset) per tap and channel, 0 outside. A kernel
 * row wholly inside the input without dilation is one contiguous run. */
FLEX_INLINE void gather(const flex_dims4 *in, const int8_t *input, const flex_window *win,
                        int32_t b, int32_t oy, int32_t ox, int32_t offset,
                        int16_t *restrict patch) {
    const int32_t C = in->c, kw = win->kernel_w;
    const int32_t ix0 = ox * win->stride_w - win->pad_left;
    const int32_t row_inside = win->dilation_w == 1 && ix0 >= 0 && ix0 + kw <= in->w;
    int32_t ky, kx, i;
    for (ky = 0; ky < win->kernel_h; ky++) {
        const int32_t iy = oy * win->stride_h - win->pad_top + ky * win->dilation_h;
        const int32_t row = (b * in->h + iy) * in->w;
        if (iy < 0 || iy >= in->h) {
            for (i = 0; i < kw * C; i++)
                patch[i] = 0;
        } else if (row_inside) {
            const int8_t *restrict src = input + (row + ix0) * C;
            for (i = 0; i < kw * C; i++)
                patch[i] = (int16_t)(src[i] + offset);
        } else {
            for (kx = 0; kx < kw; kx++) {
                const int32_t ix = ix0 + kx * win->dilation_w;
                if (ix >= 0 && ix < in->w) {
                    const int8_t *restrict src = input + (row + ix) * C;
                    for (i = 0; i < C; i++)
                        patch[kx * C + i] = (int16_t)(src[i] + offset);
                } else {
                    for (i = 0; i < C; i++)
                        patch[kx * C + i] = 0;
                }
            }
        }
        patch += kw * C;
    }
}

/* acc[j] = patch . w[j] for `count` int16 rows of length k (a multiple of LANES, so the
 * vectorized loop has no remainder), four rows per pass. */
FLEX_INLINE void dot_rows(const int16_t *restrict patch, const int16_t *restrict w, int32_t k,
                          int32_t count, int32_t *restrict acc) {
    int32_t j = 0, i;
#ifdef __wasm_simd128__
    flex__wasm_dot4_rows_s16(patch, w, k, count, acc, &j);
#else
#define SET(old, s) (s)
    FLEX__HOST_DOT4_ROWS(int16_t, patch, w, k, k, count, j, acc, SET)
#undef SET
#endif
    for (; j < count; j++) {
        const int16_t *restrict w0 = w + j * k;
        int32_t s0 = 0;
        for (i = 0; i < k; i++)
            s0 += patch[i] * w0[i];
        acc[j] = s0;
    }
}

/* Output channels run in blocks of widened weights, each block over a span of pixels. Out
 * of place the span is every pixel; when the output overlaps the input (an in-place arena),
 * a block would overwrite inputs that the next block still reads, so the pixels go in spans
 * whose every channel is computed in span_buf first (the weights widened again per span),
 * and each span is copied out once complete, in increasing order (docs/bst-format.md). */
FLEX_CLONES
static void conv_fast(const flex_dims4 *in, const int8_t *input, const int8_t *filter,
                      const int32_t *bias, const int32_t *multiplier, const int32_t *shift,
                      const flex_window *win, const flex_s8_quant *q, const flex_dims4 *out,
                      int8_t *output) {
    int16_t patch[PATCH_MAX];
    int16_t wide[WIDE_MAX];
    int32_t acc[OC_MAX], left[OC_MAX], right[OC_MAX];
    int8_t span_buf[SPAN_BYTES];
    const int32_t taps = win->kernel_h * win->kernel_w * in->c, OC = out->c;
    const int32_t k = (taps + LANES - 1) / LANES * LANES;
    const int32_t block = WIDE_MAX / k < OC ? WIDE_MAX / k : OC;
    const int32_t units = out->n * out->h * out->w;
    int32_t span = units, p0, p1, p, o0, i, j;
    int8_t *dst = output;
    if (block < OC && flex__s8_overlap(input, (size_t)in->n * in->h * in->w * in->c, output,
                                       (size_t)units * OC)) {
        span = SPAN_BYTES / OC; /* >= 16 pixels: OC <= OC_MAX */
        dst = span_buf;
    }
    flex__host_split_shifts(shift, OC, left, right);
#ifdef __wasm_simd128__
    flex__wasm_requant wq;
    flex__wasm_requant_prepare(shift, OC, &wq);
#endif
    for (i = taps; i < k; i++)
        patch[i] = 0;
    for (p0 = 0; p0 < units; p0 = p1) {
        p1 = units - p0 < span ? units : p0 + span;
        for (o0 = 0; o0 < OC; o0 += block) {
            const int32_t count = OC - o0 < block ? OC - o0 : block;
            int8_t *y = dst + o0;
            for (j = 0; j < count; j++) {
                const int8_t *restrict w = filter + (o0 + j) * taps;
                for (i = 0; i < taps; i++)
                    wide[j * k + i] = w[i];
                for (; i < k; i++)
                    wide[j * k + i] = 0;
            }
            for (p = p0; p < p1; p++, y += OC) {
                const int32_t ox = p % out->w, oy = p / out->w % out->h;
                gather(in, input, win, p / (out->w * out->h), oy, ox, q->input_offset, patch);
                dot_rows(patch, wide, k, count, acc);
#ifdef __wasm_simd128__
                flex__wasm_requant_row(acc, bias ? bias + o0 : 0, multiplier + o0, &wq, o0,
                                       left + o0, right + o0, count, q, y);
#else
                flex__host_requant_row(acc, bias ? bias + o0 : 0, multiplier + o0, left + o0,
                                       right + o0, count, q, y);
#endif
            }
        }
        if (dst != output) /* else this was the only span */
            for (i = 0; i < (p1 - p0) * OC; i++)
                output[p0 * OC + i] = dst[i];
    }
}

FLEX__SIGNATURE_s8_conv2d(flex_s8_conv2d) {
    FLEX_TRY(flex__s8_conv_check(FLEX__ARGS_s8_conv2d));
    if (groups != 1 || win->kernel_h * win->kernel_w * in_dims->c > PATCH_MAX - LANES ||
        out_dims->c > OC_MAX)
        return flex__ref_s8_conv2d(FLEX__ARGS_s8_conv2d);
    if (flex__host_conv_vnni(in_dims, input, filter, bias, multiplier, shift, win, q, out_dims,
                             output))
        return FLEX_OK;
    conv_fast(in_dims, input, filter, bias, multiplier, shift, win, q, out_dims, output);
    return FLEX_OK;
}
