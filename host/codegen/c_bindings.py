"""burnflex's C functions for the kernels of the op table's CALLS
(burn.host.codegen.calls): each reads the kernel's arguments in order (a buffer checked
for its element type, and writable where the kernel writes it; an int32 or a float), checks
that every buffer holds its count, fills the parameter structs and calls the flex_c
function, raising its status as burnflex's hand-written bindings do (burnflex_args.c)."""

from burn.graph.ops import needs_fpu, optional_kernels
from burn.host.codegen.text import wrap_call, wrap_comment

_KIND = {"i8": "BF_S8", "i32": "BF_I32", "f32": "BF_F32"}
_IN = " " * 4
_FLOAT_GUARD = "#if BURNFLEX_FLOAT"


def _count(count):
    factors = [str(f) for f in count]
    return "(int64_t)" + " * ".join(factors) if len(factors) > 1 else factors[0]


def _value(expr, param):
    sign, name = expr
    text = str(name)
    if sign:
        text = "bf_neg(%s)" % text
    if param.ctype == "size_t":
        return "bf_size(kernel, %s)" % text
    return text


def _reader(binding, index, name, scalars):
    buffers = binding.buffers()
    if name in buffers:
        b = buffers[name]
        if b.element == "i16":
            if b.optional:
                raise ValueError("CALLS %s: an int16 buffer cannot be optional" % binding.kernel)
            read = "bf_s16(kernel, args, %d, %d)" % (index, int(b.write))
        elif b.optional:
            read = "bf_optional(kernel, args, %d, %s)" % (index, _KIND[b.element])
        else:
            read = "bf_buffer(kernel, args, %d, %s, %d)" % (index, _KIND[b.element], int(b.write))
        return "%sconst bf_buf %s = %s;" % (_IN, name, read)
    if scalars.get(name) == "float":
        return "%sconst float %s = (float)mp_obj_get_float(args[%d]);" % (_IN, name, index)
    return "%sconst int32_t %s = bf_int(kernel, args[%d]);" % (_IN, name, index)


def _param(arg):
    if arg.kind == "value":
        return _value(arg.expr, arg.param)
    if arg.kind == "struct":
        return "&s_" + arg.param.name
    if arg.kind == "length":
        take = "bf_take(kernel, &%s, %s)" % (arg.name, _count(arg.count))
        return take if not arg.optional else "%s.data ? %s : 0" % (arg.name, take)
    return "%s.data" % arg.name


def function(binding):
    """The lines of one kernel's C function and its function object."""
    k = binding.kernel
    scalars = {p.expr[1]: p.param.ctype for p in binding.params if p.kind == "value"}
    lines = wrap_comment("%s(%s): %s" % (k, ", ".join(binding.args), binding.function))
    lines.append("static mp_obj_t %s(size_t n_args, const mp_obj_t *args) {" % k)
    lines.append('%sstatic const char kernel[] = "%s";' % (_IN, k))
    lines += [_reader(binding, i, a, scalars) for i, a in enumerate(binding.args)]
    for arg in binding.params:
        if arg.kind == "struct":
            values = [_value(e, arg.param) for _, e in arg.fields]
            lines += wrap_call("%sconst %s s_%s = {" % (_IN, arg.struct, arg.param.name), values,
                               "};")
    lines.append(_IN + "(void)n_args;")
    lengths = set(p.name for p in binding.params if p.kind == "length")
    for b in binding.params:
        if b.kind == "buffer" and b.name not in lengths:
            need = "%sbf_need(kernel, &%s, %s);" % (_IN, b.name, _count(b.count))
            lines += [need] if not b.optional else ["%sif (%s.data)" % (_IN, b.name),
                                                    _IN + need]
    lines += wrap_call("%sbf_check(kernel, %s(" % (_IN, binding.function),
                       [_param(p) for p in binding.params], "));")
    lines += [_IN + "return mp_const_none;", "}"]
    n = len(binding.args)
    lines.append("MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(bf_%s_obj, %d, %d, %s);" % (k, n, n, k))
    return lines


def optional_functions(bindings):
    """burnflex_extra_generated.c's region: the optional and int16 kernels' qstrs, spelt out
    for a native module's scan (burnflex_extra.h), then a function per kernel, those that
    need an FPU inside `#if BURNFLEX_FLOAT`."""
    chosen = [b for b in bindings if b.kernel in optional_kernels()]
    lines = wrap_comment("These kernels, spelt out for a native module's qstr scan: " +
                         " ".join("MP_QSTR_" + b.kernel for b in chosen))
    for b in chosen:
        body = function(b)
        if needs_fpu(b.kernel):
            body = [_FLOAT_GUARD] + body + ["#endif"]
        lines += [""] + body
    return lines


def float_functions(bindings):
    """burnflex_f32.c's region, inside its `#if BURNFLEX_FLOAT`: the default kernels' (all
    of which need an FPU: a default integer kernel keeps its hand-written binding, made to
    share code within the armv6m module's budget)."""
    lines = []
    for b in bindings:
        if b.kernel in optional_kernels():
            continue
        if not needs_fpu(b.kernel):
            raise ValueError("CALLS %s: a default integer kernel's binding is hand-written "
                             "(micropython/burnflex_s8.c)" % b.kernel)
        lines += ([""] if lines else []) + function(b)
    return lines
