"""The TFLite ops burn imports, and the converter of each.

A converter registers itself with `@converts("ADD", "MUL", arity=2, ...)`, naming the TFLite
builtin ops it converts and what the engine must know of them before it runs (their
required inputs, whether their tensors keep the TFLite shape, which types they take): the
one place where an op is described. The handler modules (ops_*.py) register; the engine
(convert.py) and the structure checks (check.py) read `CONVERTERS`.
"""

from collections import namedtuple

from burn.graph.ops import CONTROL, OPS

# the TFLite ops of burn.graph.ops (its kernels' ops, and the control ops without kernels):
# the copy's are folded away (or become copies)
SUPPORTED = tuple(sorted({name for op in OPS for name in op[2].split()} |
                         {name for op in CONTROL for name in op[1].split()}))
FOLDED = tuple(name for op in OPS if op[0] == "copy" for name in op[2].split())

# convert(c, node): emits the node's graph ops or raises Fail; arity: the required inputs
# (omitted inputs, -1, may follow them); shaped: the graph tensors carry the TFLite shape
# (the .bst kernels read it); bool_inputs: it reads BOOL inputs (held as int8 0/1); int16:
# it runs with int16 activations (int16x8: int8 weights); int32: it runs on int32 data (not
# only on int32 indices); plain_ints: the types of burn.bst.PLAIN_INTS (int64, uint8, uint32:
# plain integers) it runs on; many_outputs: one output or more (the others have one)
Spec = namedtuple("Spec", "convert arity shaped bool_inputs int16 int32 plain_ints "
                  "many_outputs")
CONVERTERS = {}  # TFLite op name -> Spec


class Fail(ValueError):
    """An op the importer cannot convert."""


def converts(*ops, arity=1, shaped=False, bool_inputs=False, int16=False, int32=False,
             plain_ints=(), many_outputs=False):
    """Register the decorated function as the converter of the TFLite builtin `ops`."""
    def register(fn):
        for op in ops:
            assert op not in CONVERTERS, "two converters for " + op
            CONVERTERS[op] = Spec(fn, arity, shaped, bool_inputs, int16, int32, plain_ints,
                                  many_outputs)
        return fn
    return register
