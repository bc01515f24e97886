"""A firmware made for given models (`burn firmware build --ops-from MODEL.bst`): the kernels
those models bind, and what that selection keeps of the flex C module (the cmake setting
BURNFLEX_OPS) and of the frozen core (the burn.graph modules those kernels need). Kernels
are named as in the op table (burn.graph.ops): conv_s8, softmax_f32, copy_s8, ..."""

import ast
import hashlib
import posixpath

from burn.bst import BstFile
from burn.graph import ops as op_table
from burn.host.firmware import FirmwareError

# The frozen module that tells the board which kernels it has (burn.bst_ops reads it; a
# firmware with every op has none).
BUILT_MODULE = "_firmware_ops.py"
_MAX_ARENA = 1 << 31


_TAGS = {"int8": "_s8", "int16": "_s16", "int32": "_s32"}
_QUANTIZED = tuple(_TAGS.values())


def step_kernel(kind, dtype, out_dtype=None):
    """The kernel an op of `kind` whose first input is `dtype` and first output `out_dtype`
    (default: `dtype`) binds (burn.bst_ops' rule: an op with one kernel always binds it;
    else the kernel named by the kind and both types (cast_f32_s8), else the suffix of the
    integer types, "_s8_s16" for int8 to int16, "_s16" for int16
    to int16 or float32, and the input's alone where no kernel has both (compare_s32 writes
    int8 0/1); an op of float32 inputs, and any other float op, the kernel without those
    suffixes, which a copy, pad or concat of int16 binds too, or the first kernel when all
    are quantized: a float32 quantize binds quantize_s8); a select's values are of its
    output's type, its first input usually the condition (int8 0/1); ValueError for a kind
    the op table lacks."""
    out_dtype = out_dtype or dtype
    if kind == "select":
        dtype = out_dtype
    for row in op_table.OPS:
        if row[0] == kind:
            names = row[3].split()
            if len(names) == 1:
                return names[0]
            both = kind + "".join(_TAGS.get(d, "_f32") for d in (dtype, out_dtype))
            if dtype != out_dtype and both in names:  # named by its two types: cast_f32_s8
                return both
            tags = [_TAGS[d] for d in (dtype, out_dtype) if d in _TAGS]
            wanted = (["".join(tags)] if len(set(tags)) > 1 else []) + tags[:1]
            quantized = [n for n in names if n.endswith(_QUANTIZED)]
            floats = [n for n in names if n not in quantized]
            if dtype == "float32" and floats:  # a float comparison writes int8 0/1
                return floats[0]
            for tag in wanted:
                for n in quantized:
                    if n.endswith(tag) and not n[:-len(tag)].endswith(_QUANTIZED):
                        return n
            return next((n for n in names if n not in quantized), names[0])
    raise ValueError("unknown op %r" % kind)


# Not a kernel: in a selection made for models, burn.graph.control (subgraphs, IF, WHILE,
# CALL_ONCE and resource variables), which a model with any of them needs
CONTROL = "control"


def model_kernels(path):
    """The set of kernels the .bst file at `path` (or a .bst file's bytes) binds, with
    CONTROL when it has subgraphs or variables; FirmwareError for a file that is not a
    readable .bst model."""
    try:
        bst = BstFile(path if isinstance(path, bytes) else str(path), _MAX_ARENA)
        try:
            bst.parse()
            # the subgraphs' ops too; the control ops (burn.graph.control) bind no kernel
            ops = bst.ops + [op for g in bst.subgraphs for op in g[0]]
            control = {kind for kind, _names in op_table.CONTROL}
            kernels = {step_kernel(op[0], bst.tensors[op[1][0]][1], bst.tensors[op[2][0]][1])
                       for op in ops if op[0] not in control}
            if bst.subgraphs or bst.variables or any(op[0] in control for op in ops):
                kernels.add(CONTROL)
            return kernels
        finally:
            bst.close()
    except OSError as e:
        raise FirmwareError("cannot read %s: %s" % (_named(path), e.strerror or e)) from None
    except (ValueError, IndexError, KeyError) as e:
        raise FirmwareError("%s is not a model burn can load: %s" % (_named(path), e)) from None


def _named(path):
    return "the model" if isinstance(path, bytes) else path


def kernels_of(paths):
    """The sorted tuple of kernels the models at `paths` (or .bst files' bytes) bind,
    together."""
    kernels = set()
    for path in paths:
        kernels |= model_kernels(path)
    return tuple(sorted(kernels))


def has_float_kernels(kernels):
    """Whether a selection made for models (lists_kernels) holds float kernels
    (burn.graph.ops.needs_fpu): its firmware builds the float32 kernels whatever the core
    (BURNFLEX_FLOAT; on the Cortex-M0+ they are soft-float, through the pico-sdk's ROM
    float routines). The default selection keeps the port's choice, which leaves them out
    where there is no FPU (their flash)."""
    return lists_kernels(kernels) and any(op_table.needs_fpu(k) for k in kernels
                                          if k != CONTROL)


def default_kernels():
    """The kernels a default firmware keeps: every kernel but the optional ones
    (burn.graph.ops.optional_kernels: the optional kinds' and the int16 ones), as a sorted
    tuple; None while none is optional (a firmware with every kernel)."""
    left_out = op_table.optional_kernels()
    if not left_out:
        return None
    return tuple(sorted(set(op_table.kernels()) - set(left_out)))


def lists_kernels(kernels):
    """Whether a firmware with `kernels` (None: all) freezes BUILT_MODULE: a selection made
    for given models does; the default one does not, to spend no flash on it (a model with
    an optional op is refused there all the same, when its module is missing)."""
    return kernels is not None and tuple(kernels) != default_kernels()


def label(kernels):
    """A short stable name of a selection, for cache and file names."""
    return hashlib.sha256(" ".join(kernels).encode()).hexdigest()[:8]


def _graph_imports(core_dir, rel):
    """The burn.graph modules (as graph/<name>.py) that core file `rel` imports, at any
    depth of its code: by absolute or relative import statement, or by a literal
    __import__("burn.graph.x")."""
    tree = ast.parse((core_dir / rel).read_text(), rel)
    package = ["burn"] + [p for p in posixpath.dirname(rel).split("/") if p]
    modules = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = ".".join(package[:len(package) - node.level + 1]) if node.level else ""
            full = ".".join(p for p in (base, node.module) if p)
            modules.append(full)
            modules += [full + "." + a.name for a in node.names]
        elif isinstance(node, ast.Import):
            modules += [a.name for a in node.names]
        elif (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__"
              and node.args and isinstance(node.args[0], ast.Constant)):
            modules.append(str(node.args[0].value))
    return {"graph/%s.py" % m[len("burn.graph."):] for m in modules
            if m.startswith("burn.graph.") and "." not in m[len("burn.graph."):]}


CONTROL_FILE = "graph/control.py"


def kept_core_files(core_dir, files, kernels):
    """The subset of core `files` (paths relative to core/) a firmware with `kernels`
    freezes: every file outside burn.graph, graph/__init__.py, the modules of the kernels
    (and the int16 ops' prepare step with int16 kernels), and the burn.graph modules any of
    those import, transitively. Control flow and variables (burn.graph.control, which
    burn.model imports only for a model that has them) only where `kernels` holds CONTROL
    (a selection for such a model)."""
    graph = {f for f in files if posixpath.dirname(f) == "graph"
             and f not in ("graph/__init__.py", CONTROL_FILE)}
    keep = set(files) - graph - (set() if CONTROL in kernels else {CONTROL_FILE})
    kernels = [k for k in kernels if k != CONTROL]
    keep.update("graph/%s.py" % op_table.kernel_args(k)[0] for k in kernels)
    # an optional op's prepare step is the module named after its kind (burn.bst_ops)
    keep.update(f for f in ("graph/%s.py" % op[0] for op in op_table.OPS
                            if set(op[3].split()) & set(kernels)) if f in graph)
    if any("_s16" in k or "_s32" in k for k in kernels):  # bst_ops hands them to it by name
        keep.add("graph/s16_prepare.py")
    todo = list(keep)
    while todo:
        for dep in _graph_imports(core_dir, todo.pop()) & graph:
            if dep not in keep:
                keep.add(dep)
                todo.append(dep)
    return [f for f in files if f in keep]


_BUILT_TEXT = '''"""The kernels this firmware was built with (burn firmware build
--ops-from), and the check burn.bst_ops makes before it binds one."""

KERNELS = (%s)


def check(step, kernel):
    """Fail `step` when its kernel was left out of this firmware."""
    if kernel not in KERNELS:
        step.fail("this firmware was built without op %%s (kernel %%s); rebuild it with "
                  "burn firmware build --ops-from and this model" %% (step.kind, kernel))
'''


def built_module_text(kernels):
    """The source of burn._firmware_ops for a firmware with `kernels`."""
    return _BUILT_TEXT % "".join("%r, " % k for k in kernels)
