"""The argument vocabulary of the flex_c kernel bindings (burn.host.flex.graph_kernels):
typed views of the caller's buffers, flex.h's parameter structs filled from burn.graph's
argument names, and the geometry blocks (dims, window, quant) the kernels share.
"""

import numpy as np

from burn.host.flex.binding import Struct


def view(buf, dtype, count=None):
    """The first `count` elements (None: all) of `buf` as a numpy array of `dtype`, without
    copying."""
    if isinstance(buf, np.ndarray):
        arr = buf.reshape(-1)
        if arr.dtype != dtype:
            arr = arr.view(dtype)
    else:
        arr = np.frombuffer(buf, dtype=dtype)
    if count is None:
        return arr
    if arr.size < count:
        raise ValueError("flex: buffer holds %d elements, %d needed" % (arr.size, count))
    return arr[:count]


def pad_after(in_size, out_size, k, stride, dilation, pad_before):
    """Trailing padding that makes out_size the floor-mode output size (the C kernels check
    the full window geometry)."""
    eff = dilation * (k - 1) + 1
    return max(0, (out_size - 1) * stride + eff - in_size - pad_before)


# flex.h's parameter structs, field by field in the struct's order: "field=arg" fills the
# field from the burn.graph.ops argument `arg` ("-arg": minus it, flex_c takes offsets where
# burn has zero points); a lone "field" is the argument of that name. Checked against flex.h
# by tests/host/test_op_table.py.
STRUCTS = {
    "flex_dims4": "n h w c",
    "flex_window": "kernel_h=kh kernel_w=kw stride_h stride_w dilation_h=dil_h "
                   "dilation_w=dil_w pad_top pad_bottom pad_left pad_right",
    "flex_s8_quant": "input_offset=-in_zp output_offset=out_zp act_min act_max",
    "flex_s8_add_params": "input1_offset=-a_zp input1_multiplier=a_mult input1_shift=a_shift "
                          "input2_offset=-b_zp input2_multiplier=b_mult input2_shift=b_shift "
                          "left_shift output_offset=out_zp output_multiplier=out_mult "
                          "output_shift=out_shift act_min act_max",
    "flex_s8_mul_params": "input1_offset=-a_zp input2_offset=-b_zp output_offset=out_zp "
                          "output_multiplier=mult output_shift=shift act_min act_max",
    "flex_transpose_window": "kernel_h=kh kernel_w=kw stride_h stride_w pad_top pad_left",
    "flex_s8_prelu_params": "input_offset=-in_zp alpha_offset=-alpha_zp output_offset=out_zp "
                            "pos_mult pos_shift neg_mult neg_shift",
    "flex_svdf_dims": "batch input_size filters memory rank",
    "flex_svdf_quant": "input_zero_point=in_zp state_zero_point=state_zp "
                       "output_zero_point=out_zp multiplier1=state_mult shift1=state_shift "
                       "multiplier2=out_mult shift2=out_shift state_bits",
    "flex_s16_quant": "input_offset=-in_zp output_offset=out_zp act_min act_max",
    "flex_matmul_dims": "batches m k n a_step b_step adj_x adj_y",
    "flex_s8_compare_params": "input1_offset=-a_zp input1_multiplier=a_mult "
                              "input1_shift=a_shift input2_offset=-b_zp "
                              "input2_multiplier=b_mult input2_shift=b_shift",
    "flex_s8_div_params": "swap input1_offset=-a_zp input2_offset=-b_zp output_offset=out_zp "
                          "output_multiplier=mult output_shift=shift act_min act_max",


    "flex_lstm_dims": "batch steps input_size units time_major",
    "flex_lstm_quant": "input_zero_point=in_zp output_zero_point=out_zp cell_clip cell_power "
                       "forget_multiplier=fc_mult forget_shift=fc_shift "
                       "input_multiplier=ic_mult input_shift=ic_shift "
                       "hidden_multiplier=hid_mult hidden_shift=hid_shift",
}


# flex.h's FLEX_ARITH_* codes, in order (checked against flex.h by tests/host/test_arith_ops.py)
ARITH = ("maximum", "minimum", "sub", "sub_swapped", "squared_difference",
         "div", "div_swapped", "floor_div", "floor_div_swapped", "floor_mod", "floor_mod_swapped")


def struct(name, args):
    """flex.h parameter struct `name` filled from `args`, a kernel's arguments by name, in
    the field order of STRUCTS."""
    fields = []
    for spec in STRUCTS[name].split():
        arg = spec.split("=")[-1]
        value = args[arg.lstrip("-")]
        fields.append(-value if arg[0] == "-" else value)
    return Struct(name, tuple(fields))


def window(ih, iw, oh, ow, kh, kw, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left):
    """A flex_window parameter block from burn.graph's geometry arguments."""
    pad_bottom = pad_after(ih, oh, kh, stride_h, dil_h, pad_top)
    pad_right = pad_after(iw, ow, kw, stride_w, dil_w, pad_left)
    return struct("flex_window", locals())


def dims(n, h, w, c):
    """A flex_dims4 parameter block."""
    return struct("flex_dims4", locals())


def quant(in_zp, out_zp, act_min, act_max):
    """A flex_s8_quant parameter block."""
    return struct("flex_s8_quant", locals())


def as_i8(buf, n):
    """The first n elements of `buf` as int8."""
    return view(buf, np.int8, n)


def as_i16(buf, n):
    """The first n elements of `buf` as int16."""
    return view(buf, np.int16, n)


def as_i32(buf, n):
    """The first n elements of `buf` as int32."""
    return view(buf, np.int32, n)


def as_f32(buf, n):
    """The first n elements of `buf` as float32."""
    return view(buf, np.float32, n)


def bias_f32(bias, n):
    """(the float32 bias or None, its element count): a float kernel's optional bias."""
    b = None if bias is None else as_f32(bias, n)
    return b, 0 if b is None else n


def broadcast_dims(size, b_size):
    """flex_dims4 blocks of a binary op's a and of its b repeated along the innermost
    dims."""
    if b_size < 1 or size % b_size:
        raise ValueError("flex: b_size %d does not divide size %d" % (b_size, size))
    return dims(1, 1, size // b_size, b_size), dims(1, 1, 1, b_size)


def is_float(buf):
    """True when `buf` holds float32 elements."""
    if isinstance(buf, np.ndarray):
        return buf.dtype == np.float32
    return getattr(buf, "typecode", None) == "f" or (
        isinstance(buf, memoryview) and buf.format == "f")


def element_dtype(buf):
    """float32, int32, int16 or int8: the element type of a layout kernel's buffer, by its
    typecode (int8 for bytes and bytearrays)."""
    if isinstance(buf, np.ndarray):
        code = buf.dtype.char
    else:
        code = getattr(buf, "typecode", None) or getattr(buf, "format", None)
    return {"f": np.float32, "i": np.int32, "h": np.int16}.get(code, np.int8)
