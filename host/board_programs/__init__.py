"""Programs that run ON the board, kept as real `.py` files (MicroPython code, linted and
compiled by mpy-cross in the tests), and how the host sends them.

Every other module of this package is a board program: top-level function definitions
only, their names starting with `_` (they live in the REPL's globals while they run). The
host sends a program's code (less its docstrings and comments, which would only lengthen
what goes over the wire), then a call of one of its functions whose arguments are written as
Python literals (`repr`), then `forget`'s call that removes the program's names again; no
board code is built by formatting:

    link.exec(board_programs.once("probe", "_probe"))
"""

import ast
from functools import cache
from pathlib import Path

_HERE = Path(__file__).resolve().parent


def programs():
    """The names of every board program of this package."""
    return sorted(p.stem for p in _HERE.glob("*.py") if p.stem != "__init__")


def path(program):
    """The file of board program `program`."""
    return _HERE / (program + ".py")


@cache
def source(program):
    """The code of board program `program` as it goes to the board: the file's, without its
    docstrings and comments."""
    tree = ast.parse(path(program).read_text())
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and len(body) > 1 and _is_docstring(body[0]):
            body.pop(0)
    return ast.unparse(tree) + "\n"


def _is_docstring(statement):
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant) \
        and isinstance(statement.value.value, str)


@cache
def defined(program):
    """The names board program `program` binds in the board's globals: its functions and
    the globals they declare."""
    tree = ast.parse(path(program).read_text())
    names = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            names += [name for name in node.names if name not in names]
    return tuple(names)


def call(function, *args):
    """A line of board code calling `function` with `args` written as literals."""
    return "%s(%s)\n" % (function, ", ".join(repr(arg) for arg in args))


def forget(*names):
    """Code that removes the names of board programs `names` from the board's globals."""
    gone = [name for program in names for name in defined(program)]
    return source("forget") + call("_forget", gone + list(defined("forget")))


def once(program, function, *args, uses=()):
    """Code that defines board program `program` (after the programs it `uses`), calls its
    `function` with `args` and forgets them all again."""
    sent = (*uses, program)
    return "".join(source(p) for p in sent) + call(function, *args) + forget(*sent)
