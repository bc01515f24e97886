"""The C text of a compiled model: `NAME.h` and `NAME.c`, from a Trace (trace.py).

NAME.c calls the flex_c kernels in plan order with their parameters as `static const` data
(weights and parameter blocks go to flash), in one arena whose int8, int16, int32 and
float32 parts lie one after another, each aligned to its element. Nothing is parsed at run
time.
"""

import numpy as np

from burn.host.compile.prototypes import prototypes
from burn.host.compile.trace import (
    ARENA_DTYPES,
    ArenaRef,
    Call,
    Clamp,
    CompileError,
    Copy,
    Outside,
)
from burn.host.flex.binding import Struct

CTYPES = {"int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t", "int32": "int32_t",
          "float32": "float", "bool": "uint8_t"}
ITEMSIZE = {"int8": 1, "int16": 2, "int32": 4, "float32": 4}
_PER_LINE = 16


def arena_layout(arena_bytes):
    """{dtype: byte offset of its part} and the total bytes (a multiple of 4)."""
    offsets, at = {}, 0
    for dtype in ARENA_DTYPES:
        at = (at + ITEMSIZE[dtype] - 1) // ITEMSIZE[dtype] * ITEMSIZE[dtype]
        offsets[dtype] = at
        at += arena_bytes[dtype]
    return offsets, (at + 3) // 4 * 4


def _int(v):
    v = int(v)
    return "(-2147483647 - 1)" if v == -(1 << 31) else str(v)


def _values(arr):
    """C initializer text of an array's values (floats as their bit patterns)."""
    flat = np.ascontiguousarray(arr).reshape(-1)
    if flat.dtype == np.float32:
        items = ["0x%08xu" % v for v in flat.view(np.uint32)]
    else:
        items = [_int(v) for v in flat]
    lines = [", ".join(items[i:i + _PER_LINE]) for i in range(0, len(items), _PER_LINE)]
    return "{\n    " + ",\n    ".join(lines) + "\n}" if lines else "{0}"


def _dtype_name(arr):
    name = np.dtype(arr.dtype).name
    return "float32" if name == "float32" else name


class _Emitter:
    def __init__(self, trace, name):
        self.t, self.n = trace, name
        self.protos = prototypes()
        self.offsets, self.total = arena_layout(trace.arena_bytes)
        self.decls = []  # static data, in order of first use
        self.params = {}  # (ctype, values) -> C name
        self.consts = {}  # id(Outside) -> C name
        self.mutable = set(id(o) for o in self._written())

    def _written(self):
        """The Outside buffers some kernel writes (passed where the C type is not const)."""
        for step in self.t.steps:
            if not isinstance(step, Call):
                continue
            for param, arg in zip(self._params(step), step.args):
                if isinstance(arg, Outside) and not param.readonly:
                    yield arg

    def _params(self, call):
        params = self.protos.get(call.name)
        if params is None or len(params) != len(call.args):
            raise CompileError("kernel %s has no C prototype that takes %d arguments"
                               % (call.name, len(call.args)))
        return params

    def arena(self, ref, ctype="uint8_t", const=False):
        """C expression of arena place `ref` as a pointer to `ctype`."""
        return "(%s%s *)(a + %d)" % ("const " if const else "", ctype,
                                       self.offsets[ref.dtype] + ref.offset)

    def outside(self, buf):
        """C name of buffer `buf` outside the arena, declared on first use (const unless a
        kernel writes it)."""
        key = id(buf)
        if key not in self.consts:
            dtype = _dtype_name(buf.values)
            c = "%s_%s%d" % (self.n, "s" if key in self.mutable else "c", len(self.consts))
            self.consts[key] = c
            count = max(1, buf.values.size)
            if dtype == "float32":
                self.decls.append("static %sunion { uint32_t u[%d]; float f[%d]; } %s = {%s};"
                                  % ("" if key in self.mutable else "const ", count, count,
                                     c, _values(buf.values)))
                self.consts[key] = c + ".f"
            else:
                self.decls.append("static %s%s %s[%d] = %s;" % (
                    "" if key in self.mutable else "const ", CTYPES[dtype], c, count,
                    _values(buf.values)))
            if key in self.mutable:
                self.state.append((self.consts[key], buf))
        return self.consts[key]

    def struct(self, s):
        """C expression pointing at parameter block `s` (one static const per distinct one)."""
        key = (s.ctype, tuple(s.values))
        if key not in self.params:
            c = "%s_p%d" % (self.n, len(self.params))
            self.params[key] = c
            self.decls.append("static const %s %s = {%s};" % (
                s.ctype, c, ", ".join(_int(v) for v in s.values)))
        return "&" + self.params[key]

    def arg(self, param, a):
        """C expression of argument `a` for prototype parameter `param`."""
        if a is None:
            return "NULL"
        if isinstance(a, Struct):
            return self.struct(a)
        if isinstance(a, ArenaRef):
            return self.arena(a, param.pointee or "uint8_t", param.readonly)
        if isinstance(a, Outside):
            text = self.outside(a)
            return "(%s *)%s" % (param.ctype.rstrip(" *"), text) if "void" in param.ctype \
                else text
        if isinstance(a, list):  # a list of pointers
            items = [self.arena(x, "void", param.readonly) if isinstance(x, ArenaRef)
                     else "(const void *)" + self.outside(x) for x in a]
            return "(%s[]){%s}" % (param.ctype[:-1].strip(), ", ".join(items))
        if isinstance(a, float):
            bits = int(np.array([a], np.float32).view(np.uint32)[0])
            return "%s_float(0x%08xu)" % (self.n, bits)
        return _int(a)

    def steps(self):
        """The C lines of every step, in plan order."""
        lines = []
        for i, step in enumerate(self.t.steps):
            if isinstance(step, Copy):
                lines.append("    memmove(a + %d, a + %d, %d);" % (
                    self.offsets[step.dst.dtype] + step.dst.offset,
                    self.offsets[step.src.dtype] + step.src.offset, step.nbytes))
                continue
            if isinstance(step, Clamp):
                lines += ["    { /* step %d: clamp */" % i,
                          "        const int8_t *x = %s;" % self.arena(step.src, "int8_t", True),
                          "        int8_t *y = %s;" % self.arena(step.dst, "int8_t"),
                          "        int32_t i;",
                          "        for (i = 0; i < %d; i++)" % step.size,
                          "            y[i] = (int8_t)(x[i] < %d ? %d : (x[i] > %d ? %d : x[i]));"
                          % (step.lo, step.lo, step.hi, step.hi), "    }"]
                continue
            args = [self.arg(p, a) for p, a in zip(self._params(step), step.args)]
            lines.append("    if ((s = %s(%s)) != FLEX_OK) /* step %d */\n        return s;"
                         % (step.name, ",\n            ".join(args), i))
        return lines

    def io_params(self):
        """The C parameters of the inputs, then the outputs, typed per the model."""
        ins = ["const %s *input%d" % (CTYPES[d], k) for k, (_r, d, _s) in
               enumerate(self.t.inputs)]
        outs = ["%s *output%d" % (CTYPES[d], k) for k, (_r, d, _s) in
                enumerate(self.t.outputs)]
        return ins + outs


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def emit(trace, name):
    """(header text, source text) of the model as C library `name`."""
    e = _Emitter(trace, name)
    e.state = []
    body = e.steps()
    up = name.upper()
    io = e.io_params()
    io_args = ", ".join(p.split()[-1].lstrip("*") for p in io)
    h = ["/* %s: a model compiled to C by `burn compile` (flex_c kernels, no interpreter). */"
         % name, "#ifndef %s_H" % up, "#define %s_H" % up, "", "#include <stddef.h>",
         "#include <stdint.h>", "", "#ifdef __cplusplus", 'extern "C" {', "#endif", "",
         "/* Bytes of working memory one inference needs (the static arena's size). */",
         "#define %s_ARENA_BYTES %d" % (up, e.total)]
    for kind, items in (("INPUT", trace.inputs), ("OUTPUT", trace.outputs)):
        for k, (_ref, dtype, shape) in enumerate(items):
            h.append("#define %s_%s%d_SIZE %d /* %s, shape %s */" % (
                up, kind, k, _numel(shape), CTYPES[dtype], "x".join(map(str, shape))))
    h += ["", "extern const size_t %s_arena_bytes;" % name, "",
          "/* One inference in the static arena: 0, or the failing kernel's flex_status. */",
          "int %s_run(%s);" % (name, ", ".join(io)), "",
          "/* The same in the caller's `arena` (%s_ARENA_BYTES bytes, 4-byte aligned; else -5,"
          " FLEX_E_PARAM). */" % up,
          "int %s_run_in(void *arena, %s);" % (name, ", ".join(io)), "",
          "/* The state that ops with memory keep between inferences back to its start. */",
          "void %s_reset(void);" % name, "",
          "/* The model's self-test vectors from a reset state: 0 when every output matches "
          "bit for bit\n * (float outputs within 1e-4 + 1e-3 |reference|), k when test k "
          "(from 1) differs,\n * or a negative flex_status. */",
          "int %s_selftest(void);" % name, "", "#ifdef __cplusplus", "}", "#endif", "",
          "#endif", ""]
    c = ["/* %s: generated by `burn compile`; see %s.h. */" % (name, name),
         '#include "%s.h"' % name, "", "#include <string.h>", "", '#include "flex.h"', ""]
    if any("%s_float(" % name in line for line in body):
        c += ["static float %s_float(uint32_t bits) {" % name,
              "    union { uint32_t u; float f; } v;", "    v.u = bits;", "    return v.f;",
              "}", ""]
    c += e.decls
    c += ["", "const size_t %s_arena_bytes = %d;" % (name, e.total),
          "static uint32_t %s_arena[%d];" % (name, e.total // 4), "",
          "static int %s_steps(uint8_t *a) {" % name, "    int s;"]
    c += body + ["    (void)s;", "    return 0;", "}", ""]
    c += ["int %s_run_in(void *arena, %s) {" % (name, ", ".join(io)),
          "    uint8_t *a = (uint8_t *)arena;", "    int s;",
          "    if (a == NULL || ((uintptr_t)a & 3) != 0)", "        return -5;"]
    for k, (ref, _d, _s) in enumerate(trace.inputs):
        c.append("    memcpy(a + %d, input%d, %d);" % (
            e.offsets[ref.dtype] + ref.offset, k, ref.nbytes))
    c += ["    if ((s = %s_steps(a)) != 0)" % name, "        return s;"]
    for k, (ref, _d, _s) in enumerate(trace.outputs):
        c.append("    memcpy(output%d, a + %d, %d);" % (
            k, e.offsets[ref.dtype] + ref.offset, ref.nbytes))
    c += ["    return 0;", "}", "",
          "int %s_run(%s) {" % (name, ", ".join(io)),
          "    return %s_run_in(%s_arena, %s);" % (name, name, io_args), "}", ""]
    c += _reset(name, e.state) + _selftest(name, trace)
    return "\n".join(h), "\n".join(c)


def _reset(name, state):
    lines, inits = ["void %s_reset(void) {" % name], []
    for k, (cname, buf) in enumerate(state):
        values = buf.values.reshape(-1)
        base = cname[:-2] if cname.endswith(".f") else cname
        if values.size and np.all(values.view(np.uint8) == 0):
            lines.append("    memset(&%s, 0, sizeof %s);" % (base, base))
        else:
            init = "%s_init%d" % (name, k)
            ctype = "uint32_t" if values.dtype == np.float32 else CTYPES[_dtype_name(values)]
            data = values.view(np.uint32) if values.dtype == np.float32 else values
            inits.append("static const %s %s[%d] = %s;" % (ctype, init, values.size,
                                                           _values(data)))
            lines.append("    memcpy(&%s, %s, sizeof %s);" % (base, init, init))
    return inits + lines + ["}", ""]


def _selftest(name, trace):
    lines = []
    for t, (ins, outs) in enumerate(trace.tests):
        for kind, arrays in (("in", ins), ("out", outs)):
            for k, arr in enumerate(arrays):
                arr = np.asarray(arr)
                if arr.dtype == np.float32:
                    lines.append("static const union { uint32_t u[%d]; float f[%d]; } "
                                 "%s_t%d_%s%d = {%s};" % (arr.size, arr.size, name, t, kind, k,
                                                          _values(arr)))
                else:
                    lines.append("static const %s %s_t%d_%s%d[%d] = %s;" % (
                        CTYPES[_dtype_name(arr)], name, t, kind, k, arr.size, _values(arr)))
    outs = ["static %s %s_got%d[%d];" % (CTYPES[d], name, k, _numel(s))
            for k, (_r, d, s) in enumerate(trace.outputs)]
    lines += outs + ["", "int %s_selftest(void) {" % name, "    int s;", "    size_t i;",
                     "    (void)i;", "    %s_reset();" % name]
    for t, (ins, outs_t) in enumerate(trace.tests):
        args = ["%s_t%d_in%d%s" % (name, t, k, ".f" if np.asarray(a).dtype == np.float32
                                   else "") for k, a in enumerate(ins)]
        args += ["%s_got%d" % (name, k) for k in range(len(outs_t))]
        lines += ["    if ((s = %s_run(%s)) != 0)" % (name, ", ".join(args)),
                  "        return s < 0 ? s : -s;"]
        for k, arr in enumerate(outs_t):
            arr = np.asarray(arr)
            ref = "%s_t%d_out%d" % (name, t, k)
            if arr.dtype == np.float32:
                lines += ["    for (i = 0; i < %d; i++) {" % arr.size,
                          "        float r = %s.f[i], d = %s_got%d[i] - r;" % (ref, name, k),
                          "        if (d < 0) d = -d;", "        if (r < 0) r = -r;",
                          "        if (d != d || d > 1e-4f + 1e-3f * r)",
                          "            return %d;" % (t + 1), "    }"]
            else:
                lines += ["    if (memcmp(%s_got%d, %s, sizeof %s) != 0)" % (name, k, ref, ref),
                          "        return %d;" % (t + 1)]
    lines += ["    return 0;", "}", ""]
    return lines
