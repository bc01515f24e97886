"""Op groups of flex_c's objects, for code-size reports: which part of a build each object
(named as flex_c/sources.py `object_name` names it) belongs to."""

import posixpath

# group: object file names (without folder), reference, optimised and helper files alike
GROUPS = {
    "conv": ("s8_conv", "s8_conv_vnni", "s8_depthwise", "f32_conv", "f32_conv_wide",
             "f32_winograd", "m0_pairs", "patch", "m0_depthwise", "m0_dw_channels"),
    "transpose conv": ("s8_transpose_conv", "f32_transpose_conv"),
    "svdf (optional)": ("s8_svdf", "f32_svdf"),
    "fully connected": ("s8_fully_connected", "f32_gemm"),
    "conv/fc shared": ("m0_dot", "m0_requant", "dsp_dot", "dsp_requant", "rv_dot", "a64_dot"),
    "elementwise": ("s8_elementwise", "f32_elementwise"),
    "pool/reduce": ("s8_pool", "s8_mean", "f32_pool", "f32_reduce"),
    "softmax/activations": ("s8_activation",),
    "layout": ("layout",),
    "quantize": ("s8_quantize", "s8_requantize"),
    "float graph ops": ("f32_graph", "f32_graph_conv", "f32_graph_depthwise", "f32_rom_dot"),
    "training": ("f32_norm", "f32_optim"),
    "runtime": ("fixedpoint", "fmath", "s8_checks", "validate", "plan", "plan_call", "plan_fast",
                "split", "vector_width", "mem"),
    "unary activations": ("s8_lookup", "f32_unary"),
    "prelu": ("s8_prelu", "f32_prelu"),
    "log softmax": ("s8_log_softmax",),
    "int16x8": (),  # every s16_* object (op_group)
    "strided copy (optional)": ("strided",),
    "reduce (optional)": ("s8_reduce_axes", "f32_reduce_axes"),
    "resize (optional)": ("s8_resize", "f32_resize"),
    "arg (optional)": ("s8_arg", "f32_arg"),
    "l2norm (optional)": ("s8_l2norm", "f32_l2norm"),
    "matmul (optional)": ("s8_batch_matmul", "f32_batch_matmul"),
    "arithmetic (optional)": ("s8_arith", "f32_arith", "s32_arith"),
    "compare/select (optional)": ("s8_compare", "f32_compare", "select"),
    "int8 div (optional)": ("s8_div",),
    "lstm (optional)": ("lstm_check", "s8_lstm", "f32_lstm"),
    "gather (optional)": ("gather",),
    "cast (optional)": ("cast", "f32_cast"),
}
_GROUP_OF = {name: group for group, names in GROUPS.items() for name in names}


def op_group(object_name):
    """The group of an object ("opt/cortex_m0plus/s8_conv" -> "conv"); "other" for a file
    that GROUPS does not list yet."""
    base = posixpath.basename(object_name)
    if base.startswith("s16_"):
        return "int16x8"
    return _GROUP_OF.get(base, "other")


def group_sizes(rows, is_float):
    """[(group, int8 bytes, float bytes)] in GROUPS order ("other" last), from `rows` of
    (object name, bytes, ...) and the predicate that tells float objects apart; groups
    with no bytes are left out."""
    totals = {}
    for row in rows:
        name, size = row[0], row[1]
        pair = totals.setdefault(op_group(name), [0, 0])
        pair[1 if is_float(name) else 0] += size
    order = list(GROUPS) + ["other"]
    return [(g, totals[g][0], totals[g][1]) for g in order if g in totals]
