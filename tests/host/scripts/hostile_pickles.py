"""Pickles written opcode by opcode, for the tests and the fuzz of the restricted unpickler:
a small assembler, the hostile pickles the tests name, and random well-formed opcode
streams that call admitted globals with random arguments and set the state (BUILD) of
whatever they hold."""

import pickle as P
import struct


def text(s):
    """Push the str `s`."""
    b = s.encode("utf-8", "surrogatepass")
    return P.BINUNICODE + struct.pack("<I", len(b)) + b


def raw(b):
    """Push the bytes `b`."""
    if len(b) < 256:
        return P.SHORT_BINBYTES + bytes([len(b)]) + b
    return P.BINBYTES + struct.pack("<I", len(b)) + b


def num(n):
    """Push the int `n` (any size)."""
    if -2 ** 31 <= n < 2 ** 31:
        return P.BININT + struct.pack("<i", n)
    b = n.to_bytes((n.bit_length() + 8) // 8, "little", signed=True)
    return P.LONG1 + bytes([len(b)]) + b if len(b) < 256 else \
        P.LONG4 + struct.pack("<i", len(b)) + b


def glob(module, name):
    """Push the global `module.name` (GLOBAL, which every protocol has)."""
    return P.GLOBAL + module.encode() + b"\n" + name.encode() + b"\n"


def tup(*items):
    """Push a tuple of the pushed `items`."""
    return P.MARK + b"".join(items) + P.TUPLE


def call(fn, *args):
    """Push `fn(*args)` (REDUCE)."""
    return fn + tup(*args) + P.REDUCE


def build(state):
    """Set the state of the object on top of the stack to the pushed `state` (BUILD)."""
    return state + P.BUILD


def put(i):
    """Remember the top of the stack as memo slot `i` (0..255)."""
    return P.BINPUT + bytes([i])


def get(i):
    """Push memo slot `i`."""
    return P.BINGET + bytes([i])


def dict_of(**items):
    """Push a dict of str keys and pushed values."""
    return P.EMPTY_DICT + P.MARK + b"".join(text(k) + v for k, v in items.items()) + \
        P.SETITEMS


def pickle(body, protocol=2):
    """A whole pickle: the PROTO header, `body` (which pushes one object), STOP."""
    return P.PROTO + bytes([protocol]) + body + P.STOP


NUMPY_CORE = "numpy._core.multiarray"
NONE = P.NONE


def numpy_dtype(spec, state_order="<"):
    """Push numpy.dtype(spec) with its byte order set by BUILD, as numpy writes it."""
    return call(glob("numpy", "dtype"), text(spec), P.NEWFALSE, P.NEWTRUE) + build(tup(
        num(3), text(state_order), NONE, NONE, NONE, num(-1), num(-1), num(0)))


def numpy_array(dtype, shape, data):
    """Push an array as numpy pickles one: _reconstruct, then BUILD of (1, shape, dtype,
    fortran, bytes); `dtype` pushes the dtype (numpy_dtype, or get(i) of one)."""
    return call(glob(NUMPY_CORE, "_reconstruct"), glob("numpy", "ndarray"), tup(num(0)),
                raw(b"b")) + build(tup(num(1), tup(*map(num, shape)), dtype, P.NEWFALSE,
                                       raw(data)))


def dtype_rebuilt_after_array(elsize, spec="f4"):
    """An old burn checkpoint {"model": array} whose dtype's state is set again once the
    array exists, with item size `elsize` (numpy would then read past the array)."""
    dtype = numpy_dtype(spec) + put(1)
    again = get(1) + build(tup(num(3), text("|"), NONE, NONE, NONE, num(elsize), num(1),
                               num(0))) + P.POP
    return pickle(dict_of(model=numpy_array(dtype, (2,), b"\0" * 8)) + again, protocol=4)


def state_of_global(module, name, state, protocol=2):
    """A pickle {"x": module.name} that first sets the global's state to `state` (dict
    state: its attributes; a (None, dict) pair: setattr of each)."""
    return pickle(dict_of(x=glob(module, name) + build(state)), protocol)


# Every global the two readers admit (PyTorch checkpoints, old burn checkpoints), and a
# few they refuse; the random streams draw from these.
TORCH_GLOBALS = [("torch._utils", "_rebuild_tensor"), ("torch._utils", "_rebuild_tensor_v2"),
                 ("torch._utils", "_rebuild_tensor_v3"), ("torch._utils", "_rebuild_parameter"),
                 ("torch._utils", "_rebuild_parameter_with_state"), ("torch", "Size"),
                 ("torch", "FloatStorage"), ("torch", "LongStorage"),
                 ("torch", "UntypedStorage"), ("torch", "float32"), ("torch", "bfloat16")]
NUMPY_GLOBALS = [("numpy", "dtype"), ("numpy", "ndarray"), (NUMPY_CORE, "_reconstruct"),
                 (NUMPY_CORE, "scalar"), ("numpy.core.multiarray", "scalar"),
                 ("_codecs", "encode")]
SHARED_GLOBALS = [("collections", "OrderedDict")]
REFUSED_GLOBALS = [("builtins", "getattr"), ("posix", "system"), ("numpy", "frombuffer")]
_SPECS = {"f4": 4, "f8": 8, "i8": 8, "b1": 1, "u1": 1, "f2": 2, "V8": 8, "U5": 20, "O8": 8}


class _Stream:
    """One random opcode stream; `memo` counts the slots it has filled."""

    def __init__(self, rng, admitted):
        self.rng = rng
        self.admitted = admitted
        self.memo = 0

    def _global(self):
        names = REFUSED_GLOBALS if self.rng.random() < 0.05 else self.admitted
        return glob(*self.rng.choice(names))

    def value(self, depth):
        """Opcodes that push one random value (and may remember it in the memo)."""
        rng = self.rng
        pick = rng.randrange(14 if depth > 0 else 6)
        if pick == 0:
            out = num(rng.choice([0, 1, 2, 3, -1, 4096, 10 ** 8, 2 ** 31, 2 ** 63, -2 ** 70]))
        elif pick == 1:
            out = text(rng.choice(["storage", "0", "1", "cpu", "<", "|", "latin1", "b"] +
                                  list(_SPECS)))
        elif pick == 2:
            out = raw(bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 4, 8, 16]))))
        elif pick == 3:
            out = rng.choice([P.NONE, P.NEWTRUE, P.NEWFALSE, P.EMPTY_DICT, P.EMPTY_LIST,
                              P.EMPTY_TUPLE])
        elif pick == 4:
            out = self._global()
        elif pick == 5 and self.memo:
            return get(rng.randrange(self.memo))
        elif pick <= 7:
            out = tup(*(self.value(depth - 1) for _ in range(rng.randrange(6))))
        elif pick == 8:
            out = dict_of(**{k: self.value(depth - 1) for k in
                             rng.sample(["model", "dtype", "_metadata", "w"], 2)})
        elif pick <= 10:
            out = call(self._global(),
                       *(self.value(depth - 1) for _ in range(rng.randrange(6))))
        elif pick == 11 and ("numpy", "dtype") in self.admitted:
            spec, n = rng.choice(list(_SPECS.items())), rng.randrange(4)
            size = n * spec[1] if rng.random() < 0.7 else rng.choice([0, 4, 8, 16])
            out = numpy_array(numpy_dtype(spec[0]), (n,), bytes(size))
        elif pick >= 12:  # set the state of something new or remembered, keep it on the stack
            target = get(rng.randrange(self.memo)) if self.memo and rng.random() < 0.6 \
                else self.value(depth - 1)
            out = target + build(self.value(depth - 1))
        else:
            out = self._global()
        if self.memo < 250 and rng.random() < 0.5:
            out += put(self.memo)
            self.memo += 1
        return out


def random_pickle(rng, admitted, depth=4):
    """A random well-formed pickle whose object is a dict of random values, followed by a
    few BUILDs on what it remembered (the order numpy and PyTorch never use). Its globals
    are drawn from `admitted` ((module, name) pairs), one in twenty from REFUSED_GLOBALS."""
    stream = _Stream(rng, admitted)
    body = dict_of(**{k: stream.value(depth) for k in ("model", "epoch", "x")})
    for _ in range(rng.randrange(3)):
        if stream.memo:
            body += get(rng.randrange(stream.memo)) + build(stream.value(2)) + P.POP
    return pickle(body, rng.choice([2, 4]))
