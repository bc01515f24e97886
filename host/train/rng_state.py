"""The random-number state a training run depends on, kept in its checkpoints so that a
resumed run repeats the uninterrupted one bit for bit: burn's stream (Dropout, `rand`,
`nn.init`), numpy's global generator, and the training loader's shuffling (its seed and
epoch, when it has a `state_dict`)."""

import numpy as np

from burn import random


def capture(loader=None):
    """The state as plain data (ints, a float, a uint32 array), for a checkpoint."""
    numpy_state = np.random.get_state(legacy=False)
    return {"burn": random.get_state(), "numpy": numpy_state,
            "loader": loader.state_dict() if hasattr(loader, "state_dict") else None}


def restore(state, loader=None):
    """Put back a state `capture` returned (read back from a checkpoint); ValueError names
    the part that is not a state."""
    if not isinstance(state, dict) or not {"burn", "numpy"} <= set(state):
        raise ValueError("the checkpoint's random-number state is not a dict with 'burn' "
                         "and 'numpy' entries")
    try:
        np.random.RandomState().set_state(state["numpy"])  # checked on a scratch generator
    except (TypeError, ValueError, KeyError, IndexError) as e:
        raise ValueError("the checkpoint's numpy random state is not one: %s" % e) from None
    random.set_state(state["burn"])
    if state.get("loader") is not None and hasattr(loader, "load_state_dict"):
        loader.load_state_dict(state["loader"])
    np.random.set_state(state["numpy"])
