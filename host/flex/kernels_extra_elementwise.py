"""The optional elementwise ops of burn.graph (flex_c/src/extra) on flex_c: arithmetic
(burnflex_extra_arith.c), int8 division (burnflex_extra_div.c), comparisons and selection
(burnflex_extra_logic.c), PRELU (burnflex_extra_prelu.c) and the unary tables and
activations (burnflex_extra_unary.c).
"""

import numpy as np

from burn.host.flex.params import ARITH, as_f32, as_i8, broadcast_dims, struct, view


class ElementwiseKernels:
    """GraphKernels' optional elementwise kernels; the composed class gives them `_run`."""

    def _add_like(self, name, args):
        """flex_s8_sub or flex_s8_squared_difference (flex_s8_add's arguments) from the
        burn.graph arguments `args`; a swap (SUB's b - a) passes b as flex's first input."""
        size, b_size = args["size"], args["b_size"]
        da, db = broadcast_dims(size, b_size)
        first, second = (da, as_i8(args["a"], size)), (db, as_i8(args["b"], b_size))
        if args.get("swap"):
            first, second = second, first
            args = dict(args)
            for field in ("zp", "mult", "shift"):
                args["a_" + field], args["b_" + field] = args["b_" + field], args["a_" + field]
        self._run(name, [first[0], first[1], first[1].size, second[0], second[1],
                         second[1].size, struct("flex_s8_add_params", args), da,
                         as_i8(args["out"], size), size], "size %d, b_size %d" % (size, b_size))

    def sub_s8(self, a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp, b_mult, b_shift,
               out_zp, out_mult, out_shift, left_shift, act_min, act_max, swap):
        """int8 SUB, a - b (b - a when swap is 1), b broadcast (burn.graph.s8_arith)."""
        self._add_like("flex_s8_sub", locals())

    def squared_difference_s8(self, a, b, out, size, b_size, a_zp, a_mult, a_shift, b_zp,
                              b_mult, b_shift, out_zp, out_mult, out_shift, left_shift,
                              act_min, act_max):
        """int8 SQUARED_DIFFERENCE, b broadcast (burn.graph.s8_arith)."""
        self._add_like("flex_s8_squared_difference", locals())

    def _arith(self, name, op, a, b, out, size, b_size, dtype, *act):
        self._run(name, [ARITH.index(op), size, view(a, dtype, size), view(b, dtype, b_size),
                         b_size, *act, view(out, dtype, size)],
                  "size %d, b_size %d" % (size, b_size))

    def maximum_s8(self, a, b, out, size, b_size):
        """int8 MAXIMUM of the stored values, b broadcast (burn.graph.s8_arith)."""
        self._arith("flex_s8_arith", "maximum", a, b, out, size, b_size, np.int8)

    def minimum_s8(self, a, b, out, size, b_size):
        """int8 MINIMUM of the stored values, b broadcast (burn.graph.s8_arith)."""
        self._arith("flex_s8_arith", "minimum", a, b, out, size, b_size, np.int8)

    def sub_f32(self, a, b, out, size, b_size, act, swap):
        """float32 SUB, a - b (b - a when swap is 1), b broadcast (burn.graph.f32_arith)."""
        self._arith("flex_f32_arith", "sub_swapped" if swap else "sub", a, b, out, size,
                    b_size, np.float32, act)

    def squared_difference_f32(self, a, b, out, size, b_size):
        """float32 SQUARED_DIFFERENCE, b broadcast (burn.graph.f32_arith)."""
        self._arith("flex_f32_arith", "squared_difference", a, b, out, size, b_size,
                    np.float32, 0)

    def maximum_f32(self, a, b, out, size, b_size):
        """float32 MAXIMUM, b broadcast (burn.graph.f32_arith)."""
        self._arith("flex_f32_arith", "maximum", a, b, out, size, b_size, np.float32, 0)

    def minimum_f32(self, a, b, out, size, b_size):
        """float32 MINIMUM, b broadcast (burn.graph.f32_arith)."""
        self._arith("flex_f32_arith", "minimum", a, b, out, size, b_size, np.float32, 0)

    def div_f32(self, a, b, out, size, b_size, op, swap, act):
        """float32 DIV, FLOOR_DIV, FLOOR_MOD (op 0, 1, 2), b op a when swap is 1, b broadcast
        (burn.graph.div)."""
        name = ("div", "floor_div", "floor_mod")[op] + ("_swapped" if swap else "")
        self._arith("flex_f32_arith", name, a, b, out, size, b_size, np.float32, act)

    def compare_s8(self, a, b, out, size, b_size, op, a_zp, a_mult, a_shift, b_zp, b_mult,
                   b_shift):
        """int8 comparison of the rescaled operands into 0/1, b broadcast (burn.graph.logic)."""
        self._run("flex_s8_compare", [op, size, as_i8(a, size), as_i8(b, b_size), b_size,
                                      struct("flex_s8_compare_params", locals()),
                                      as_i8(out, size)], "size %d, b_size %d" % (size, b_size))

    def compare_f32(self, a, b, out, size, b_size, op):
        """float32 comparison into int8 0/1, b broadcast (burn.graph.logic)."""
        self._run("flex_f32_compare", [op, size, as_f32(a, size), as_f32(b, b_size), b_size,
                                       as_i8(out, size)], "size %d, b_size %d" % (size, b_size))

    def _select(self, cond, x, y, out, size, c_size, x_size, y_size, dtype):
        self._run("flex_select", [np.dtype(dtype).itemsize, size, as_i8(cond, c_size), c_size,
                                  view(x, dtype, x_size), x_size, view(y, dtype, y_size),
                                  y_size, view(out, dtype, size)],
                  "size %d, sizes %d, %d, %d" % (size, c_size, x_size, y_size))

    def select_s8(self, cond, x, y, out, size, c_size, x_size, y_size):
        """int8 SELECT_V2, each operand broadcast (burn.graph.logic)."""
        self._select(cond, x, y, out, size, c_size, x_size, y_size, np.int8)

    def select_f32(self, cond, x, y, out, size, c_size, x_size, y_size):
        """float32 SELECT_V2, each operand broadcast (burn.graph.logic)."""
        self._select(cond, x, y, out, size, c_size, x_size, y_size, np.float32)

    def div_s8(self, a, b, out, size, b_size, swap, a_zp, b_zp, out_zp, mult, shift, act_min,
               act_max):
        """int8 DIV, b / a when swap is 1, b broadcast (burn.graph.div)."""
        self._run("flex_s8_div", [size, as_i8(a, size), as_i8(b, b_size), b_size,
                                  struct("flex_s8_div_params", locals()), as_i8(out, size)],
                  "size %d, b_size %d" % (size, b_size))

    def unary_f32(self, inp, out, size, fn, alpha):
        """A float32 unary activation by flex_c op code (burn.graph.unary, optional)."""
        self._run("flex_f32_activation", [fn, size, as_f32(inp, size), float(alpha),
                                          as_f32(out, size)], "size %d, fn %d" % (size, fn))
