"""The message numbers of the modules `import burn` loads match burn.errors.MESSAGES.

Those modules raise `burn.shape.error(_E_<NAME>, ...)` with numbers that MicroPython folds
into their bytecode; on CPython the constants are plain globals, so their agreement with
the message functions `_<name>` is checked here (the messages themselves are checked by
the tests of each op, on both interpreters).
"""

import importlib

from burn import errors

MODULES = ("burn", "burn.shape", "burn.tensor", "burn.creation", "burn.dtype", "burn.device")


def _codes():
    for module in MODULES:
        for name, value in vars(importlib.import_module(module)).items():
            if name.startswith("_E_"):
                yield module, name, value


def test_every_code_names_its_message_function():
    seen = list(_codes())
    assert len(seen) >= len(errors.MESSAGES)
    for module, name, value in seen:
        assert errors.MESSAGES[value].__name__ == "_" + name[3:].lower(), (module, name)


def test_every_message_is_used():
    assert sorted({value for _, _, value in _codes()}) == list(range(len(errors.MESSAGES)))


def test_messages_name_the_op_and_the_values():
    assert str(errors.MESSAGES[18]("add", (2, 3), (4,))) == \
        "add: shapes (2, 3) and (4,) do not broadcast"
    e = errors.MESSAGES[20]("sum", 3, 2)
    assert isinstance(e, IndexError)
    assert str(e) == "sum: dim 3 is out of range [-2, 1] for a tensor of 2 dims"
