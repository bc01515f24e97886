"""The kernels a `.bst` model runs on in the host's Python: the choices of `burn run
--backend`, also the runtime of the host-side self-test of `burn-flash` and `burn repl`.

    model = load(data)                  # "auto": flex_c through cffi when burn._flex is built
    model = load("kws.bst", "pure")     # the core's plain Python kernels (slow, reference)

The viper kernels exist only on MicroPython, so they are no choice here.
"""

import burn
from burn.host.flex import binding

RUNTIMES = ("auto", "flex", "pure")
RUNTIME_HELP = ("kernels: flex (the C kernels of burn._flex), pure (the core's plain Python, "
                "slow) or auto (flex when burn._flex is built, else pure; the default)")
_NO_FLEX = ("the flex runtime needs burn._flex (the C kernels built with cffi), which is not "
            "built here: `pip install -e .` builds it, `burn doctor` checks it")


def flex_available():
    """Whether burn._flex, the host build of the C kernels, loads."""
    return binding.available()


def load(source, runtime="auto", input_layout=None):
    """`burn.load(source, input_layout=input_layout)` with its int8 and float32 ops on
    `runtime` (one of RUNTIMES). ValueError for an invalid model, or for "flex" when
    burn._flex is not built."""
    if runtime not in RUNTIMES:
        raise ValueError("unknown runtime %r; the choices are %s" % (runtime,
                                                                    ", ".join(RUNTIMES)))
    flex = runtime == "flex" or (runtime == "auto" and flex_available())
    if flex and not flex_available():
        raise ValueError(_NO_FLEX)
    model = burn.load(source, variant="plain", input_layout=input_layout)
    if flex:
        from burn.host.flex.runtime import use_flex

        use_flex(model)
    return model


def runtime_of(model):
    """"flex" for a model `load` moved to the C kernels, else "pure"."""
    return "flex" if getattr(model, "flex_ops", 0) else "pure"
