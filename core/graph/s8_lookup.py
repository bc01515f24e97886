"""int8 ops whose output depends on one input value only, run as a 256-entry table lookup.

`make_table(kernel, *params)` runs an int8 elementwise kernel `kernel(inp, out, size,
*params)` once over all 256 int8 values, so a lookup in the table gives that kernel's
results bit for bit. `lookup_s8(inp, out, size, table)` maps each input byte through it;
`table_twin(table_of)` makes a kernel's viper twin from its table maker.
"""

import sys
from array import array


def make_table(kernel, *params):
    """array('b') of kernel's outputs for the inputs 0..127, -128..-1 (an input's raw byte
    is its index)."""
    table = array("b", bytes(256))
    kernel(bytes(range(256)), table, 256, *params)
    return table


def lookup_s8_plain(inp, out, size, table):
    """out[i] = table[byte of inp[i]] for a table from make_table, or its raw bytes (a
    model's constant, read as unsigned)."""
    for i in range(size):
        out[i] = ((table[inp[i] & 255] + 128) & 255) - 128


lookup_s8_fast = None
if sys.implementation.name == "micropython":
    try:  # the viper twins; a port without native code (webassembly) cannot compile them
        from .s8_lookup_viper import lookup_s8_fast
    except SyntaxError:
        pass

lookup_s8 = lookup_s8_fast or lookup_s8_plain


def table_twin(table_of):
    """The viper twin of logistic_s8 or tanh_s8, whose table `table_of(in_zp, in_mult,
    in_left_shift, range_radius)` makes: it looks each input up in `table` (made once by
    the runtime; here when None). None where viper is not available."""
    if lookup_s8_fast is None:
        return None

    def fast(inp, out, size, in_zp, in_mult, in_left_shift, range_radius, table=None):
        if table is None:
            table = table_of(in_zp, in_mult, in_left_shift, range_radius)
        lookup_s8_fast(inp, out, size, table)

    return fast
