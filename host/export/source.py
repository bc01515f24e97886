"""Where an export starts from: a model factory (`package.module:function` or
`path/to/file.py:function`) that builds the architecture, and a Learner checkpoint (a file,
or a run folder whose `best.ckpt` is taken) that holds the weights."""

import importlib
import importlib.util
import os
import sys

import burn
from burn import nn

from ..train import checkpoint as ckpt


def load_factory(spec):
    """The function named by `spec`: `package.module:function` (imported with the current
    folder on sys.path) or `path/to/file.py:function`."""
    where, sep, name = spec.rpartition(":")
    if not sep or not where or not name:
        raise ValueError("model factory %r: expected MODULE:FUNCTION, e.g. "
                         "mypackage.models:build or models.py:build" % spec)
    if where.endswith(".py"):
        if not os.path.isfile(where):
            raise ValueError("model factory %r: no file %s" % (spec, where))
        unit = importlib.util.spec_from_file_location(
            "_burn_factory_" + os.path.basename(where)[:-3], where)
        module = importlib.util.module_from_spec(unit)
        unit.loader.exec_module(module)
    else:
        if os.getcwd() not in sys.path and "" not in sys.path:
            sys.path.insert(0, os.getcwd())
        try:
            module = importlib.import_module(where)
        except ImportError as e:
            raise ValueError("model factory %r: cannot import %s (%s)" % (spec, where, e)) from e
    fn = getattr(module, name, None)
    if not callable(fn):
        raise ValueError("model factory %r: %s has no function %s" % (spec, where, name))
    return fn


def checkpoint_path(source):
    """The checkpoint file of `source`: the file itself, or a run folder's best.ckpt (its
    newest epoch checkpoint when there is no best.ckpt)."""
    if os.path.isfile(source):
        return source
    if not os.path.isdir(source):
        raise ValueError("%s: no such checkpoint file or run folder" % source)
    best = os.path.join(source, ckpt.BEST)
    if os.path.isfile(best):
        return best
    epochs = ckpt.CheckpointDir(source).epochs()
    if not epochs:
        raise ValueError("%s: no best.ckpt and no epoch checkpoints in this folder" % source)
    return ckpt.CheckpointDir(source).path(epochs[-1])


def checkpoint_accuracy(payload):
    """The validation accuracy recorded for the checkpoint's epoch, or None."""
    for row in payload.get("history") or ():
        if row.get("epoch") == payload.get("epoch") and "valid_accuracy" in row:
            return float(row["valid_accuracy"])
    return None


def load_trained(source, factory_spec, device="numpy"):
    """(model, checkpoint payload, checkpoint path): the factory's model with the
    checkpoint's weights, in eval mode, moved to `device` (numpy runs the calibration
    fastest)."""
    path = checkpoint_path(source)
    payload = ckpt.read(path)
    model = load_factory(factory_spec)()
    if not isinstance(model, nn.Module):
        raise ValueError("model factory %r returned %s, not a burn.nn Module"
                         % (factory_spec, type(model).__name__))
    try:
        ckpt.load_model_state(model, payload["model"])
    except ValueError as e:
        raise ValueError("%s does not fit the model of %s: %s" % (path, factory_spec, e)) from e
    return model.to(burn.device(device)).eval(), payload, path
