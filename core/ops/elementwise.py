"""Elementwise methods: the named forms of the operators (add, sub, mul, div, pow, abs, neg,
and the comparisons eq ne lt le gt ge; the operators themselves are on Tensor), exp, log,
sqrt, activations, rounding, trigonometry and erf."""


def abs(x):
    """Absolute value, elementwise."""
    return x._unary("abs")


def neg(x):
    """-x, elementwise."""
    return x._unary("neg")


def add(x, other):
    """x + other, broadcasting; other may be a number."""
    return x._binary("add", other)


def sub(x, other):
    """x - other, broadcasting; other may be a number."""
    return x._binary("sub", other)


def mul(x, other):
    """x * other, broadcasting; other may be a number."""
    return x._binary("mul", other)


def div(x, other):
    """x / other (float tensors), broadcasting; other may be a number."""
    return x._binary("div", other)


def pow(x, other):
    """x ** other, broadcasting; other may be a number."""
    return x._binary("pow", other)


def exp(x):
    """e**x, elementwise."""
    return x._unary("exp")


def log(x):
    """Natural logarithm, elementwise."""
    return x._unary("log")


def sqrt(x):
    """Square root, elementwise."""
    return x._unary("sqrt")


def tanh(x):
    """Hyperbolic tangent, elementwise."""
    return x._unary("tanh")


def sigmoid(x):
    """1 / (1 + exp(-x)), elementwise."""
    return x._unary("sigmoid")


def relu(x):
    """max(x, 0), elementwise."""
    return x._unary("relu")


def rsqrt(x):
    """1 / sqrt(x), elementwise."""
    return x._unary("rsqrt")


def sin(x):
    """Sine, elementwise."""
    return x._unary("sin")


def cos(x):
    """Cosine, elementwise."""
    return x._unary("cos")


def floor(x):
    """Round down, elementwise."""
    return x._unary("floor")


def ceil(x):
    """Round up, elementwise."""
    return x._unary("ceil")


def round(x):
    """Round half to even, elementwise."""
    return x._unary("round")


def sign(x):
    """-1, 0 or 1, elementwise."""
    return x._unary("sign")


def reciprocal(x):
    """1 / x, elementwise."""
    return x._unary("reciprocal")


def erf(x):
    """Gauss error function, elementwise."""
    return x._unary("erf")


def eq(x, other):
    """x == other (bool tensor), broadcasting; other may be a number."""
    return x._binary("eq", other)


def ne(x, other):
    """x != other (bool tensor), broadcasting; other may be a number."""
    return x._binary("ne", other)


def lt(x, other):
    """x < other (bool tensor), broadcasting; other may be a number."""
    return x._binary("lt", other)


def le(x, other):
    """x <= other (bool tensor), broadcasting; other may be a number."""
    return x._binary("le", other)


def gt(x, other):
    """x > other (bool tensor), broadcasting; other may be a number."""
    return x._binary("gt", other)


def ge(x, other):
    """x >= other (bool tensor), broadcasting; other may be a number."""
    return x._binary("ge", other)
