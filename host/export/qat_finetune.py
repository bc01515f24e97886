"""Fine-tune a trained float model with quantization-aware training and compare it with
post-training quantization: the float, PTQ int8 and QAT int8 accuracies (or reconstruction
errors) side by side (the int8 ones are the exported graphs' own outputs, run by
`int8_numpy`)."""

import numpy as np

from ..autodiff import autodiff_device
from ..convert import to_numpy, to_tensor
from ..data import ArrayDataset, DataLoader
from . import graph_input, prepare_qat, quantize
from .int8_numpy import run_int8


def int8_outputs(graph, x):
    """The float values of an int8 graph's outputs [N, ...] for model-layout samples `x`
    (the raw int8 outputs, dequantized with the output tensor's scale and zero point)."""
    q = np.stack([graph_input(graph, s) for s in x])
    out = run_int8(graph, q).reshape(len(x), -1).astype(np.float32)
    t = graph.tensors[graph.outputs[0][0]]
    return (out - t.zero_point) * t.scale if t.dtype == "int8" else out


def float_outputs(model, x, batch=512):
    """`model`'s outputs [N, ...] in eval mode for samples `x`."""
    from ..autodiff import no_grad

    dev = next(iter(model.parameters())).device
    model.eval()
    with no_grad():
        out = [to_numpy(model(to_tensor(x[i:i + batch], dev))) for i in range(0, len(x), batch)]
    return np.concatenate(out).reshape(len(x), -1)


def score(outputs, y, metric="accuracy"):
    """'accuracy' of the argmax of `outputs` against labels `y`, or the 'mse' of `outputs`
    against targets `y`."""
    if metric == "accuracy":
        return float((outputs.argmax(axis=1) == y).mean())
    if metric == "mse":
        return float(((outputs - np.asarray(y).reshape(len(y), -1)) ** 2).mean())
    raise ValueError("metric must be 'accuracy' or 'mse', got %r" % (metric,))


def int8_accuracy(graph, x, y):
    """Accuracy of an int8 graph's argmax over model-layout samples `x` with labels `y`."""
    return score(int8_outputs(graph, x), y)


def float_accuracy(model, x, y, batch=512):
    """Accuracy of `model` in eval mode over `x` with labels `y`."""
    return score(float_outputs(model, x, batch), y)


def ptq_scores(model, calibration, x_valid, y_valid, metric="accuracy"):
    """{"float", "ptq"}: `metric` of the float model and of its post-training int8 graph
    (calibrated on `calibration`) on the validation data."""
    return {"float": score(float_outputs(model, x_valid), y_valid, metric),
            "ptq": score(int8_outputs(quantize(model, calibration, tests=0), x_valid),
                         y_valid, metric)}


def finetune_qat(model, x_train, y_train, calibration, x_valid=None, y_valid=None, epochs=2,
                 lr=5e-4, batch=32, observe_epochs=1, backend="numpy", dashboard="plain",
                 metric="accuracy"):
    """Fine-tune `model` (trained, float) with QAT on (`x_train`, `y_train`) for `epochs`
    epochs of Adam at `lr`, observers active during the first `observe_epochs`; returns
    (QATModel in eval mode, {"float", "ptq", "qat"} scores on the validation data, or an
    empty dict without it). `metric` 'accuracy' trains with cross-entropy on labels,
    'mse' with the mean squared error on targets (an autoencoder's inputs)."""
    from ..train.learner import Learner
    from ..train.losses import cross_entropy, mse_loss
    from ..train.optim import Adam
    from ..train.schedule import CosineLR

    if epochs < 1:
        raise ValueError("QAT epochs must be >= 1, got %r" % (epochs,))
    if not lr > 0:
        raise ValueError("QAT learning rate must be positive, got %r" % (lr,))
    classify = metric == "accuracy"
    dev = autodiff_device(backend)
    model = model.to(dev)
    scores = {}
    if x_valid is not None:
        scores = ptq_scores(model, calibration, x_valid, y_valid, metric)
    targets = np.asarray(y_train, np.int32 if classify else np.float32)
    loader = DataLoader(ArrayDataset(np.asarray(x_train, np.float32), targets),
                        batch, shuffle=True, device=dev)
    qat = prepare_qat(model.train(), calibration, observe_batches=observe_epochs * len(loader))
    opt = Adam(qat.parameters(), lr=lr)
    Learner(qat, opt, loss_fn=cross_entropy if classify else mse_loss,
            schedule=CosineLR(opt, total=epochs), dashboard=dashboard,
            classification=classify).fit(loader, epochs=epochs)
    qat.eval()
    if x_valid is not None:
        scores["qat"] = score(int8_outputs(qat.int8_graph(), x_valid), y_valid, metric)
    return qat, scores


def labeled_data(spec):
    """(x_train, y_train, x_valid, y_valid) for QAT from `spec`: 'digits' (the built-in set
    split 0.8/0.2 with seed 0, as `burn demo` trains) or a FILE.npz holding arrays `x` and
    `y` (and optionally `x_valid`, `y_valid`; without them there is no validation)."""
    if spec == "digits":
        from ..data import load_digits, random_split

        train, valid = random_split(load_digits(), [0.8, 0.2], seed=0)
        return train.batch(np.arange(len(train))) + valid.batch(np.arange(len(valid)))
    if spec is None or not spec.endswith(".npz"):
        raise ValueError("QAT trains, so it needs labeled samples: 'digits' or a FILE.npz "
                         "with arrays x and y, got %r" % (spec,))
    try:
        with np.load(spec, allow_pickle=False) as f:
            arrays = {k: f[k] for k in f.files}
    except (OSError, ValueError) as e:
        raise ValueError("%s: not a numpy .npz file (%s)" % (spec, e)) from e
    missing = [k for k in ("x", "y") if k not in arrays]
    if missing:
        raise ValueError("%s: no array %s (it holds %s)" % (spec, " or ".join(missing),
                                                           ", ".join(sorted(arrays)) or "none"))
    out = []
    for xk, yk in (("x", "y"), ("x_valid", "y_valid")):
        if xk not in arrays:
            out += [None, None]
            continue
        x, y = arrays[xk], arrays.get(yk)
        if y is None or x.ndim not in (2, 4) or y.shape != (len(x),) or \
                not np.issubdtype(x.dtype, np.number) or not np.issubdtype(y.dtype, np.integer):
            raise ValueError("%s: expected %s numbers [N, C, H, W] or [N, features] and %s "
                             "integer labels [N], got %s and %s" % (
                                 spec, xk, yk, x.shape, None if y is None else y.shape))
        out += [x.astype(np.float32), y.astype(np.int32)]
    return tuple(out)
