"""Gradient building blocks over an inner backend's primitives.

Backward rules need a few compound operations (un-broadcasting, scattering a slice back,
transposed convolution, pooling gradients, batch normalisation). They are written here
once, over the primitive protocol, so every backend gets them. A backend may supply faster
versions by defining methods of the same name (`conv2d_grad_input`, `conv2d_grad_weight`,
`max_pool_grad`, `avg_pool_grad`, `log_softmax_forward`, `linear_forward`,
`linear_backward`, and the pairs `conv2d_keep_columns` / `conv2d_grad_weight_kept`,
`batch_norm_forward` / `batch_norm_backward` and
`cross_entropy_forward` / `cross_entropy_backward`, each sharing its saved state), which
are used instead.
"""

from burn import dtype as _dt
from burn.shape import numel

from ..backends.window import pool_frame

F32 = _dt.float32


class Inner:
    """Shape-aware shorthands over one inner backend (all handles are float32)."""

    def __init__(self, inner):
        self.inner = inner
        for names in (("conv2d_grad_input",), ("conv2d_grad_weight",), ("max_pool_grad",),
                      ("avg_pool_grad",), ("log_softmax_forward",), ("linear_forward",),
                      ("linear_backward",),
                      ("conv2d_keep_columns", "conv2d_grad_weight_kept"),
                      ("batch_norm_forward", "batch_norm_backward"),
                      ("cross_entropy_forward", "cross_entropy_backward")):
            fast = [getattr(inner, name, None) for name in names]
            if None not in fast:
                for name, f in zip(names, fast):
                    setattr(self, name, f)

    numel = staticmethod(numel)

    def _same(self, op, a, b, n):
        return self.inner.binary(op, a, (n,), b, (n,), (n,), F32)

    def add(self, a, b, n):
        """a + b for two handles of n elements."""
        return self._same("add", a, b, n)

    def mul(self, a, b, n):
        """a * b for two handles of n elements."""
        return self._same("mul", a, b, n)

    def div(self, a, b, n):
        """a / b for two handles of n elements."""
        return self._same("div", a, b, n)

    def scale(self, a, s, n):
        """a * s for a Python float s."""
        return self.inner.binary("mul", a, (n,), s, (), (n,), F32)

    def one_minus(self, a, n):
        """1 - a."""
        neg = self.inner.unary("neg", a, n, F32)
        return self.inner.binary("add", neg, (n,), 1.0, (), (n,), F32)

    def cast_float(self, mask, n):
        """A bool handle as 0.0/1.0 floats."""
        return self.inner.cast(mask, n, _dt.bool_, F32)

    def compare(self, op, a, scalar, n):
        """(a <op> scalar) as 0.0/1.0 floats."""
        return self.cast_float(self.inner.binary(op, a, (n,), scalar, (), (n,), F32), n)

    def zeros(self, shape):
        """A float handle of zeros."""
        return self.inner.full(self.numel(shape), 0.0, F32)

    def sum_to(self, g, g_shape, shape):
        """Sum `g` over the axes along which `shape` was broadcast up to `g_shape`."""
        g_shape = tuple(g_shape)
        shape = tuple(shape)
        if g_shape == shape:
            return g
        lead = len(g_shape) - len(shape)
        cur = g_shape
        for axis in range(len(g_shape)):
            want = 1 if axis < lead else shape[axis - lead]
            if cur[axis] != want:
                g = self.inner.reduce("sum", g, cur, axis, F32)
                cur = cur[:axis] + (1,) + cur[axis + 1:]
        return g

    def unslice(self, g, shape, starts, steps, out_shape):
        """Gradient of a strided slice: `g` placed back where the slice came from."""
        cur = tuple(out_shape)
        for axis in range(len(shape)):
            start, step, count = starts[axis], steps[axis], cur[axis]
            size = shape[axis]
            if count == 0:
                return self.zeros(shape)
            if step < 0:
                g = self._flip(g, cur, axis)
                start = start + step * (count - 1)
                step = -step
            span = (count - 1) * step + 1
            if step > 1:
                g, cur = self._spread(g, cur, axis, step, span)
            pads = [(0, 0)] * len(cur)
            pads[axis] = (start, size - start - span)
            g = self.inner.pad(g, cur, pads, 0.0, F32)
            cur = cur[:axis] + (size,) + cur[axis + 1:]
        return g

    def _flip(self, g, shape, axis):
        starts = tuple(shape[axis] - 1 if i == axis else 0 for i in range(len(shape)))
        steps = tuple(-1 if i == axis else 1 for i in range(len(shape)))
        return self.inner.slice(g, shape, starts, steps, shape, F32)

    def _spread(self, g, shape, axis, step, span):
        """Insert step-1 zeros between elements along `axis`; returns (handle, shape)."""
        outer = shape[:axis + 1]
        inner = shape[axis + 1:]
        split = outer + (1,) + inner
        pads = [(0, 0)] * len(split)
        pads[axis + 1] = (0, step - 1)
        g = self.inner.pad(g, split, pads, 0.0, F32)
        wide = shape[:axis] + (shape[axis] * step,) + inner
        starts = (0,) * len(wide)
        cut = shape[:axis] + (span,) + inner
        g = self.inner.slice(g, wide, starts, (1,) * len(wide), cut, F32)
        return g, cut

    def scatter_add(self, g, shape, dim, idx, n_idx):
        """Gradient of gather: sum rows of `g` into the positions `idx` selected."""
        size = shape[dim]
        rank = len(shape)
        perm = tuple(i for i in range(rank) if i != dim) + (dim,)
        g_shape = tuple(n_idx if i == dim else s for i, s in enumerate(shape))
        moved = self.inner.permute(g, g_shape, perm, F32)
        rows = self.numel(g_shape) // n_idx if n_idx else 0
        iota = self.inner.arange(0, 1, size, _dt.int32)
        hot = self.inner.binary("eq", idx, (n_idx, 1), iota, (1, size), (n_idx, size),
                                _dt.int32)
        hot = self.cast_float(hot, n_idx * size)
        out = self.inner.matmul(moved, (1, rows, n_idx), hot, (1, n_idx, size),
                                (1, rows, size), F32)
        moved_shape = tuple(g_shape[i] for i in perm[:-1]) + (size,)
        inverse = [0] * rank
        for i, p in enumerate(perm):
            inverse[p] = i
        return self.inner.permute(out, moved_shape, tuple(inverse), F32)

    def conv2d_grad_input(self, g, g_shape, w, w_shape, x_shape, stride, padding,
                          dilation, groups):
        """Gradient of conv2d with respect to its input (a transposed convolution)."""
        n, c, h, wd = x_shape
        o, cg, kh, kw = w_shape
        og = o // groups
        sh, sw = stride
        dh, dw = dilation
        pt, _, pl, _ = padding
        cur = g_shape
        if sh > 1:
            g, cur = self._spread(g, cur, 2, sh, (cur[2] - 1) * sh + 1)
        if sw > 1:
            g, cur = self._spread(g, cur, 3, sw, (cur[3] - 1) * sw + 1)
        eh, ew = (kh - 1) * dh, (kw - 1) * dw
        g = self.inner.pad(g, cur, [(0, 0), (0, 0), (eh, eh), (ew, ew)], 0.0, F32)
        cur = (n, o, cur[2] + 2 * eh, cur[3] + 2 * ew)
        # Weights flipped in space, with in/out channels swapped within each group.
        flipped = self.inner.slice(w, w_shape, (0, 0, kh - 1, kw - 1), (1, 1, -1, -1),
                                   w_shape, F32)
        swapped = self.inner.permute(flipped, (groups, og, cg, kh, kw), (0, 2, 1, 3, 4), F32)
        full_h, full_w = cur[2] - eh, cur[3] - ew
        full = self.inner.conv2d(g, cur, swapped, (c, og, kh, kw), None, (1, 1),
                                 (0, 0, 0, 0), dilation, groups, (n, c, full_h, full_w), F32)
        # `full` covers padded-input rows 0..full_h-1; keep the real rows.
        extra_h = max(0, pt + h - full_h)
        extra_w = max(0, pl + wd - full_w)
        if extra_h or extra_w:
            full = self.inner.pad(full, (n, c, full_h, full_w),
                                  [(0, 0), (0, 0), (0, extra_h), (0, extra_w)], 0.0, F32)
            full_h += extra_h
            full_w += extra_w
        return self.inner.slice(full, (n, c, full_h, full_w), (0, 0, pt, pl), (1, 1, 1, 1),
                                x_shape, F32)

    def conv2d_grad_weight(self, g, g_shape, x, x_shape, w_shape, stride, padding,
                           dilation, groups):
        """Gradient of conv2d with respect to its weight (a correlation of x with g)."""
        n, _c, h, wd = x_shape
        o, cg, kh, kw = w_shape
        og = o // groups
        pt, pb, pl, pr = padding
        hp, wp = h + pt + pb, wd + pl + pr
        if pt or pb or pl or pr:
            x = self.inner.pad(x, x_shape, [(0, 0), (0, 0), (pt, pb), (pl, pr)], 0.0, F32)
        # x as a batch of cg images with groups*n channels; g as groups*og filters over n.
        xs = self.inner.permute(x, (n, groups, cg, hp, wp), (2, 1, 0, 3, 4), F32)
        gs = self.inner.permute(g, (n, groups, og, g_shape[2], g_shape[3]), (1, 2, 0, 3, 4),
                                F32)
        oh2 = (hp - (g_shape[2] - 1) * stride[0] - 1) // dilation[0] + 1
        ow2 = (wp - (g_shape[3] - 1) * stride[1] - 1) // dilation[1] + 1
        out = self.inner.conv2d(xs, (cg, groups * n, hp, wp), gs,
                                (o, n, g_shape[2], g_shape[3]), None, dilation, (0, 0, 0, 0),
                                stride, groups, (cg, o, oh2, ow2), F32)
        out = self.inner.slice(out, (cg, o, oh2, ow2), (0, 0, 0, 0), (1, 1, 1, 1),
                               (cg, o, kh, kw), F32)
        return self.inner.permute(out, (cg, o, kh, kw), (1, 0, 2, 3), F32)

    def _windows(self, x_shape, kernel, stride, padding, dilation, out_shape):
        """(padded shape, padding, [(starts, steps)] per kernel offset in scan order)."""
        pads = pool_frame(x_shape, kernel, stride, padding, dilation, out_shape[2:])
        n, c, h, w = x_shape
        padded = (n, c, h + pads[0] + pads[1], w + pads[2] + pads[3])
        offsets = []
        for i in range(kernel[0]):
            for j in range(kernel[1]):
                offsets.append(((0, 0, i * dilation[0], j * dilation[1]),
                                (1, 1, stride[0], stride[1])))
        return padded, pads, offsets

    def _crop(self, g, padded, pads, x_shape):
        return self.inner.slice(g, padded, (0, 0, pads[0], pads[2]), (1, 1, 1, 1), x_shape,
                                F32)

    def max_pool_grad(self, g, y, x, x_shape, kernel, stride, padding, dilation, out_shape):
        """Gradient of max pooling: each window's gradient goes to its first maximum."""
        padded, pads, offsets = self._windows(x_shape, kernel, stride, padding, dilation,
                                              out_shape)
        m = self.numel(out_shape)
        xp = self.inner.pad(x, x_shape, [(0, 0), (0, 0), (pads[0], pads[1]),
                                         (pads[2], pads[3])], float("-inf"), F32)
        free = self.inner.full(m, 1.0, F32)
        total = self.zeros(padded)
        for starts, steps in offsets:
            window = self.inner.slice(xp, padded, starts, steps, out_shape, F32)
            hit = self.cast_float(self._eq(window, y, m), m)
            hit = self.mul(hit, free, m)
            free = self.add(free, self.inner.unary("neg", hit, m, F32), m)
            part = self.unslice(self.mul(g, hit, m), padded, starts, steps, out_shape)
            total = self.add(total, part, self.numel(padded))
        return self._crop(total, padded, pads, x_shape)

    def _eq(self, a, b, n):
        return self.inner.binary("eq", a, (n,), b, (n,), (n,), F32)

    def avg_pool_grad(self, g, divisors, x_shape, kernel, stride, padding, dilation,
                      out_shape):
        """Gradient of average pooling, given each output's divisor ([oh*ow] floats)."""
        padded, pads, offsets = self._windows(x_shape, kernel, stride, padding, dilation,
                                              out_shape)
        hw = (1, 1, out_shape[2], out_shape[3])
        div = self.inner.from_flat(divisors, F32)
        share = self.inner.binary("div", g, out_shape, div, hw, out_shape, F32)
        total = self.zeros(padded)
        for starts, steps in offsets:
            part = self.unslice(share, padded, starts, steps, out_shape)
            total = self.add(total, part, self.numel(padded))
        return self._crop(total, padded, pads, x_shape)

    def batch_norm_forward(self, x, shape, mean, var, weight, bias, eps):
        """Batch normalisation of x (shape [n, c, ...]) over dim 1: (y, mean, var, saved).
        `mean` and `var` ([c] handles) are the statistics to normalise with, or None for the
        batch's own, which are then returned (var biased); weight and bias are [c] handles
        or None. `saved` is what batch_norm_backward needs."""
        n, c = shape[0], shape[1]
        rest = self.numel(shape[2:])
        m = n * rest
        # Channels first: [c, n, rest] viewed as [c, m], so statistics are one reduction each.
        xc = self.inner.permute(x, (n, c, rest), (1, 0, 2), F32)
        batch = mean is None
        if batch:
            mean = self.scale(self.inner.reduce("sum", xc, (c, m), 1, F32), 1.0 / m, c)
        centred = self.inner.binary("sub", xc, (c, m), mean, (c, 1), (c, m), F32)
        if batch:
            var = self.scale(self.inner.reduce("sum", self.mul(centred, centred, c * m), (c, m),
                                               1, F32), 1.0 / m, c)
        r = self.inner.unary("rsqrt", self.inner.binary("add", var, (c,), eps, (), (c,), F32),
                             c, F32)
        xhat = self.inner.binary("mul", centred, (c, m), r, (c, 1), (c, m), F32)
        y = self._per_channel("mul", xhat, weight, c, m)
        y = self._per_channel("add", y, bias, c, m)
        y = self.inner.permute(y, (c, n, rest), (1, 0, 2), F32)
        return y, mean, var, (shape, xhat, r, batch)

    def batch_norm_backward(self, g, saved, weight, need_x):
        """Gradients (x or None, weight, bias) of batch_norm_forward for the output gradient
        `g`; the input's flows through the statistics too when they were the batch's."""
        shape, xhat, r, batch = saved
        n, c = shape[0], shape[1]
        rest = self.numel(shape[2:])
        m = n * rest
        gc = self.inner.permute(g, (n, c, rest), (1, 0, 2), F32)
        gw = self.inner.reduce("sum", self.mul(gc, xhat, c * m), (c, m), 1, F32)
        gb = self.inner.reduce("sum", gc, (c, m), 1, F32)
        gx = None
        if need_x:
            gxhat = self._per_channel("mul", gc, weight, c, m)
            if batch:
                # dx = r/m * (m*dxhat - sum(dxhat) - xhat*sum(dxhat*xhat)), per channel
                s1 = self._per_channel("mul", gb, weight, c, 1)
                s2 = self._per_channel("mul", gw, weight, c, 1)
                t = self.inner.binary("mul", xhat, (c, m), s2, (c, 1), (c, m), F32)
                t = self.inner.binary("add", t, (c, m), s1, (c, 1), (c, m), F32)
                t = self.inner.binary("sub", self.scale(gxhat, float(m), c * m), (c, m), t,
                                      (c, m), (c, m), F32)
                gx = self.inner.binary("mul", t, (c, m), self.scale(r, 1.0 / m, c), (c, 1),
                                       (c, m), F32)
            else:
                gx = self.inner.binary("mul", gxhat, (c, m), r, (c, 1), (c, m), F32)
            gx = self.inner.permute(gx, (c, n, rest), (1, 0, 2), F32)
        return gx, gw, gb

    def _per_channel(self, op, a, v, c, m):
        """a [c, m] <op> v [c] broadcast along m; `a` itself when v is None."""
        if v is None:
            return a
        return self.inner.binary(op, a, (c, m), v, (c, 1), (c, m), F32)

    def log_softmax_forward(self, x, shape, dim):
        """log(softmax(x)) along `dim` of a handle of `shape`."""
        n = self.numel(shape)
        kept = tuple(1 if i == dim else s for i, s in enumerate(shape))
        top = self.inner.reduce("max", x, shape, dim, F32)
        shifted = self.inner.binary("sub", x, shape, top, kept, shape, F32)
        total = self.inner.reduce("sum", self.inner.unary("exp", shifted, n, F32), shape, dim,
                                  F32)
        return self.inner.binary("sub", shifted, shape,
                                 self.inner.unary("log", total, self.numel(kept), F32), kept,
                                 shape, F32)

    def cross_entropy_forward(self, logits, target, n, c, smoothing, reduction):
        """(loss, saved): softmax cross-entropy of logits [n, c] against int32 class indices
        [n] with label `smoothing`, per row ([n], reduction "none") or summed or averaged
        over the batch ([1]). With weights w (the one-hot rows, smoothed) a row's loss is
        -sum(w * log_softmax(x)); `saved` is what cross_entropy_backward needs."""
        nc = n * c
        logp = self.log_softmax_forward(logits, (n, c), 1)
        iota = self.inner.arange(0, 1, c, _dt.int32)
        w = self.cast_float(self.inner.binary("eq", target, (n, 1), iota, (1, c), (n, c),
                                              _dt.int32), nc)
        if smoothing:
            w = self.inner.binary("add", self.scale(w, 1.0 - smoothing, nc), (nc,),
                                  smoothing / c, (), (nc,), F32)
        rows = self.inner.reduce("sum", self.mul(logp, w, nc), (n, c), 1, F32)
        factor = -1.0 / n if reduction == "mean" else -1.0
        if reduction == "none":
            size, loss = n, self.scale(rows, factor, n)
        else:
            size, loss = 1, self.scale(self.inner.reduce("sum", rows, (n,), 0, F32), factor, 1)
        return loss, (logp, w, n, c, factor, size)

    def cross_entropy_backward(self, g, saved):
        """Gradient [n * c] of cross_entropy_forward's logits for the loss gradient `g`:
        (softmax(x) * sum(w) - w) * g * -factor (factor: -1/n for "mean", else -1)."""
        logp, w, n, c, factor, size = saved
        inner = self.inner
        p = inner.unary("exp", logp, n * c, F32)
        wsum = inner.reduce("sum", w, (n, c), 1, F32)
        d = inner.binary("sub", inner.binary("mul", p, (n, c), wsum, (n, 1), (n, c), F32),
                         (n, c), w, (n, c), (n, c), F32)
        g = self.scale(g, -factor, size)
        return inner.binary("mul", d, (n, c), g, (size, 1), (n, c), F32)

    def linear_forward(self, x, w, b, rows, fin, fout):
        """x [rows, fin] @ w.T (w [fout, fin]) + b ([fout] or None)."""
        wt = self.inner.permute(w, (fout, fin), (1, 0), F32)
        y = self.inner.matmul(x, (1, rows, fin), wt, (1, fin, fout), (1, rows, fout), F32)
        if b is None:
            return y
        return self.inner.binary("add", y, (rows, fout), b, (1, fout), (rows, fout), F32)

    def linear_backward(self, g, x, w, rows, fin, fout, need):
        """Gradients (x, w, b) of linear_forward for g [rows, fout], None where `need` (three
        flags) is false."""
        gx = gw = gb = None
        if need[0]:
            gx = self.inner.matmul(g, (1, rows, fout), w, (1, fout, fin), (1, rows, fin), F32)
        if need[1]:
            gt = self.inner.permute(g, (rows, fout), (1, 0), F32)
            gw = self.inner.matmul(gt, (1, fout, rows), x, (1, rows, fin), (1, fout, fin), F32)
        if need[2]:
            gb = self.inner.reduce("sum", g, (rows, fout), 0, F32)
        return gx, gw, gb
