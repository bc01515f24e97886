/* Winograd F(4, 3) along the rows for the float32 NHWC convolutions of the exported graph
 * with three filter columns, column stride 1 and no groups (any filter height, row stride
 * and row dilation), on hosts with vector types. Output columns go in fours (tiles); a tile
 * of one output row needs, in each of its filter rows ky, six input columns d:
 *
 *   V = B^T d (per input row and channel),  U = G g (per filter row and channel pair),
 *   M[e] = sum over ky and input channels of V[e] U[e], e < 6 (one GEMM per e, whose rows
 *   are the tiles and whose K runs over the filter rows and input channels: 6 multiply-adds
 *   per tile and channel pair where direct summation needs 12),  y = A^T M, then the bias
 *   and the clamp (the interpolation points 0, 1, -1, 2, -2 and infinity).
 *
 * The filter is packed and transformed once per call (per block of output channels), V one
 * band of input rows at a time (a column outside the image reads a zero vector; a row
 * outside it is zero). The transforms only scale by small powers of two and by 1/6, 1/12,
 * 1/24: results stay within about 2e-6 of the largest output (direct summation: 2e-7).
 * Every output of a tile depends on all six of its input columns (a NaN among them reaches
 * all four), so a span (flex__by_spans) must start at a tile: the inputs of outputs before it may
 * already be overwritten. */
#include "../common/internal.h"

#if defined(FLEX_VECTOR) && FLEX_GEMM_NR == 16

typedef flex__v8 v8;
typedef flex__v8u v8u;

/* Scratch, in floats: the transformed filter of one block of output channels, and the
 * transformed input rows plus GEMM products of one band of output rows (first the packed
 * filter). */
#define U_MAX 32768
#define VM_MAX 16384
#define M FLEX_WINOGRAD_TILE
#define E 6 /* positions of a tile's transform: M + 2 */
#define IC_MIN 8 /* fewer input channels: the GEMMs' K gets too short to pay off */
#define K_MAX (U_MAX / E / 16 - 16) /* filter rows x input channels: 16 columns of U fit */
#define IC_MAX K_MAX

static const float zeros[IC_MAX] = {0};

#define LOAD(p) (*(const v8u *)(p))
#define SPLAT(f) ((v8){f, f, f, f, f, f, f, f})
#define STORE(p, v) (*(v8u *)(p) = (v))

/* Floats from U[e] to U[e+1]: one cache line more than its k x np panels, so that the E
 * planes written side by side do not map to the same cache sets. */
#define U_PLANE(k, np) ((k) * (np) + 16)

typedef struct {
    const flex_dims4 *in, *out;
    const flex_window *win;
    const float *x, *bias;
    int32_t tiles;   /* tiles per output row */
    int32_t kh_ext;  /* input rows a window spans */
    int32_t v_row;   /* floats of V per input row: tiles x E positions x in.c */
    int32_t band;    /* output rows per band */
    float lo, hi;
} wino;

/* U[e][ky * ic + c][0:16] = (G g)[e] for the 16 output channels of a packed panel of the
 * filter (rows: taps (ky, kx, c)), every filter row ky and input channel c; u: the panel's
 * place in U[0]; u_e: floats from U[e] to U[e+1]. */
FLEX_CLONES
static void filter_panel(const float *panel, int32_t kh, int32_t ic, float *u, int32_t u_e) {
    const v8 quarter = SPLAT(0.25f), sixth = SPLAT(-1.0f / 6.0f);
    const v8 twelfth = SPLAT(1.0f / 12.0f), twentyfourth = SPLAT(1.0f / 24.0f);
    int32_t r, h;
    for (r = 0; r < kh * ic; r++) { /* r = ky * ic + c */
        const float *g = panel + ((r / ic) * 3 * ic + r % ic) * FLEX_GEMM_NR;
        float *o = u + r * FLEX_GEMM_NR;
        for (h = 0; h < FLEX_GEMM_NR; h += 8) {
            const v8 g0 = LOAD(g + h), g1 = LOAD(g + ic * FLEX_GEMM_NR + h);
            const v8 g2 = LOAD(g + 2 * ic * FLEX_GEMM_NR + h), s = g0 + g2;
            const v8 t = (g0 + g2 * SPLAT(4.0f)) * twentyfourth, q = g1 * twelfth;
            STORE(o + h, g0 * quarter);
            STORE(o + u_e + h, (s + g1) * sixth);
            STORE(o + 2 * u_e + h, (s - g1) * sixth);
            STORE(o + 3 * u_e + h, t + q);
            STORE(o + 4 * u_e + h, t - q);
            STORE(o + 5 * u_e + h, g2);
        }
    }
}

/* v[tile * E * ic + e * ic + c] = (B^T d)[e] for every tile of input row iy of image b (a
 * zero row outside the image). */
FLEX_CLONES
static void input_row(const wino *z, int32_t b, int32_t iy, float *v) {
    const int32_t ic = z->in->c, iw = z->in->w, pad = z->win->pad_left;
    const v8 two = SPLAT(2.0f), four = SPLAT(4.0f), five = SPLAT(5.0f);
    const float *row;
    int32_t t, c, j;
    if (iy < 0 || iy >= z->in->h) {
        for (c = 0; c < z->v_row; c += 8)
            STORE(v + c, LOAD(zeros));
        return;
    }
    row = z->x + (b * z->in->h + iy) * iw * ic;
    for (t = 0; t < z->tiles; t++, v += E * ic) {
        const float *d[E];
        for (j = 0; j < E; j++) {
            const int32_t ix = M * t - pad + j;
            d[j] = ix >= 0 && ix < iw ? row + ix * ic : zeros;
        }
        for (c = 0; c < ic; c += 8) {
            const v8 d0 = LOAD(d[0] + c), d1 = LOAD(d[1] + c), d2 = LOAD(d[2] + c);
            const v8 d3 = LOAD(d[3] + c), d4 = LOAD(d[4] + c), d5 = LOAD(d[5] + c);
            const v8 a = d3 + d4 - (d1 + d2) * four, b2 = d4 - d3 + (d1 - d2) * four;
            const v8 e = d4 - d2, f = (d3 - d1) * two;
            STORE(v + c, d0 * four - d2 * five + d4);
            STORE(v + ic + c, a);
            STORE(v + 2 * ic + c, b2);
            STORE(v + 3 * ic + c, e + f);
            STORE(v + 4 * ic + c, e - f);
            STORE(v + 5 * ic + c, d1 * four - d3 * five + d5);
        }
    }
}

/* The pixels in [p0, p1) of tiles [q0, q1) of the band that starts at output row oy0 of
 * image b: y = A^T M over output channels [o0, o0 + nb) (M[e] of tile q: at
 * m + (q * E + e) * np), plus the bias, clamped (NaN stays), into dst (pixel p0 first). */
FLEX_CLONES
static void output_tiles(const wino *z, int32_t b, int32_t oy0, int32_t q0, int32_t q1,
                         const float *m, int32_t np, int32_t o0, int32_t nb, int32_t p0,
                         int32_t p1, float *dst) {
    const int32_t ow = z->out->w, oc = z->out->c;
    const v8 lo = SPLAT(z->lo), hi = SPLAT(z->hi), two = SPLAT(2.0f), four = SPLAT(4.0f);
    const v8 eight = SPLAT(8.0f);
    int32_t q, c, j;
    for (q = q0; q < q1; q++) {
        const int32_t ox = (q % z->tiles) * M;
        const int32_t first = (b * z->out->h + oy0 + q / z->tiles) * ow + ox;
        const float *mq = m + q * E * np;
        float *out[M]; /* the tile's pixels in dst, NULL where none */
        for (j = 0; j < M; j++)
            out[j] = ox + j < ow && first + j >= p0 && first + j < p1
                         ? dst + (first + j - p0) * oc + o0
                         : 0;
        for (c = 0; c < nb; c += 8) {
            const v8 m0 = LOAD(mq + c), m1 = LOAD(mq + np + c), m2 = LOAD(mq + 2 * np + c);
            const v8 m3 = LOAD(mq + 3 * np + c), m4 = LOAD(mq + 4 * np + c);
            const v8 m5 = LOAD(mq + 5 * np + c);
            const v8 bias = z->bias ? LOAD(z->bias + o0 + c) : LOAD(zeros);
            const v8 s12 = m1 + m2, d12 = m1 - m2, s34 = m3 + m4, d34 = m3 - m4;
            v8 y[M];
            y[0] = m0 + s12 + s34 + bias;
            y[1] = d12 + d34 * two + bias;
            y[2] = s12 + s34 * four + bias;
            y[3] = d12 + d34 * eight + m5 + bias;
            for (j = 0; j < M; j++)
                if (out[j]) {
                    flex__clamp8(&y[j], &lo, &hi);
                    STORE(out[j] + c, y[j]);
                }
        }
    }
}

/* Output channels [o0, o0 + nb) of pixels [p0, p1) with U (the transformed filter of those
 * channels, padded to np) ready; vm: VM_MAX floats of scratch. */
static void run_bands(const wino *z, const float *u, int32_t o0, int32_t nb, int32_t np,
                      int32_t p0, int32_t p1, float *vm, float *dst) {
    const flex_window *w = z->win;
    const int32_t ic = z->in->c, oh = z->out->h, ow = z->out->w, pixels = oh * ow;
    const int32_t kh = w->kernel_h;
    int32_t off[K_MAX / IC_MIN], len[K_MAX / IC_MIN], p = p0, ky, e;
    flex__rows rows;
    for (ky = 0; ky < kh; ky++)
        len[ky] = ic;
    rows.off = off;
    rows.len = len;
    rows.segs = kh;
    rows.k = kh * ic;
    rows.width = z->tiles;
    rows.ystep = w->stride_h * z->v_row;
    rows.xstep = E * ic;
    while (p < p1) { /* one band of output rows of one image */
        const int32_t b = p / pixels, at = p % pixels, oy0 = at / ow;
        const int32_t oy1 = oh - oy0 < z->band ? oh : oy0 + z->band;
        const int32_t end = p1 - p < oy1 * ow - at ? at + p1 - p : oy1 * ow; /* in image */
        const int32_t q0 = (at / ow - oy0) * z->tiles + at % ow / M;
        const int32_t q1 = ((end - 1) / ow - oy0) * z->tiles + (end - 1) % ow / M + 1;
        const int32_t iy0 = oy0 * w->stride_h - w->pad_top;
        const int32_t in_rows = (oy1 - oy0 - 1) * w->stride_h + z->kh_ext;
        float *v = vm, *m = vm + in_rows * z->v_row;
        int32_t r;
        for (r = 0; r < in_rows; r++)
            input_row(z, b, iy0 + r, v + r * z->v_row);
        rows.src = v;
        for (e = 0; e < E; e++) {
            for (ky = 0; ky < kh; ky++)
                off[ky] = ky * w->dilation_h * z->v_row + e * ic;
            flex__gemm_gather(&rows, q0, q1, nb, u + e * U_PLANE(kh * ic, np), 0, 1, 0, 0.0f,
                              0.0f, m + q0 * E * np + e * np, E * np);
        }
        output_tiles(z, b, oy0, q0, q1, m, np, o0, nb, p0, p1, dst);
        p += end - at;
    }
}

int flex__winograd_conv(const flex_dims4 *in, const float *x, const float *w, const float *bias,
                        const flex_window *win, int32_t groups, float lo, float hi,
                        const flex_dims4 *out, int32_t p0, int32_t p1, float *dst) {
    FLEX_ALIGNED float u[U_MAX];
    FLEX_ALIGNED float vm[VM_MAX];
    const int32_t ic = in->c, oc = out->c, kh = win->kernel_h, sh = win->stride_h;
    int32_t k, ob, o0, j;
    int64_t v_row, m_row, band;
    flex__strided f;
    wino z;
    if (win->kernel_w != 3 || win->stride_w != 1 || win->dilation_w != 1 || groups != 1 ||
        ic % 8 || oc % 8 || ic < IC_MIN || ic > K_MAX || kh > K_MAX / ic || out->w < M ||
        p0 % out->w % M)
        return 0;
    k = kh * ic;
    ob = (U_MAX / E - 16) / k; /* output channels per block: U and the packed filter fit */
    ob = (ob < VM_MAX / (3 * k) ? ob : VM_MAX / (3 * k)) / 16 * 16;
    z.tiles = (out->w + M - 1) / M;
    z.kh_ext = (kh - 1) * win->dilation_h + 1;
    v_row = (int64_t)z.tiles * E * ic;
    m_row = (int64_t)z.tiles * E * (oc < ob ? (oc + 15) / 16 * 16 : ob);
    band = (VM_MAX - (z.kh_ext - sh) * v_row) / (sh * v_row + m_row);
    if (band < 1)
        return 0; /* the rows of one output row do not fit */
    z.v_row = (int32_t)v_row;
    z.band = (int32_t)band;
    z.in = in;
    z.out = out;
    z.win = win;
    z.x = x;
    z.bias = bias;
    z.lo = lo;
    z.hi = hi;
    f.b = w;
    f.rs = 1;
    f.cs = 3 * k;
    for (o0 = 0; o0 < oc; o0 += ob) {
        const int32_t nb = oc - o0 < ob ? oc - o0 : ob, np = (nb + 15) / 16 * 16;
        flex__pack_block(flex__pack_strided, &f, 0, 3 * k, o0, nb, vm);
        for (j = 0; j < np; j += FLEX_GEMM_NR)
            filter_panel(vm + j * 3 * k, kh, ic, u + j * k, U_PLANE(k, np));
        run_bands(&z, u, o0, nb, np, p0, p1, vm, dst);
    }
    return 1;
}

#else

int flex__winograd_conv(const flex_dims4 *in, const float *x, const float *w, const float *bias,
                        const flex_window *win, int32_t groups, float lo, float hi,
                        const flex_dims4 *out, int32_t p0, int32_t p1, float *dst) {
    (void)in, (void)x, (void)w, (void)bias, (void)win, (void)groups, (void)lo, (void)hi;
    (void)out, (void)p0, (void)p1, (void)dst;
    return 0;
}

#endif
