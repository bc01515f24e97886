"""`burn demo`: the whole journey in one command.

Train a small CNN on the 8x8 digits on the host (autodiff<numpy>), quantize it to an int8
`.bst` file, flash it to a board (an attached one, else a virtual RP2040), classify every
validation image ON the board over the serial link, and compare: host float accuracy, host
int8 accuracy, device accuracy, device-host agreement, on-device latency, heap and flash.
The model file goes to the cache (`cache_dir("demo")`) unless a folder is given.
"""

import base64
import time
from pathlib import Path

import numpy as np

import burn
from burn import nn

from . import board_programs
from .autodiff import autodiff_device
from .board_session import open_board
from .cache import cache_dir
from .data import DataLoader, load_digits, random_split
from .deploy import flash
from .export import export_bst, graph_input
from .train.learner import Learner, predict
from .train.optim import Adam
from .train.schedule import CosineLR

DEFAULT_EPOCHS = 6
BATCH = 60  # images per exchange with the board

def build_model():
    """The demo CNN: about 7,000 parameters, small enough for an RP2040's heap."""
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(16 * 4 * 4, 10))


def train(epochs, say):
    """Train the demo CNN on 80% of the digits; (model, train set, validation set)."""
    dev = autodiff_device("numpy")
    burn.seed(0)
    model = build_model().to(dev)
    train_set, valid_set = random_split(load_digits(), [0.8, 0.2], seed=0)
    say("training a CNN on %d digits (8x8), validating on %d, on %s"
        % (len(train_set), len(valid_set), dev))
    opt = Adam(model.parameters(), lr=5e-3)
    learner = Learner(model, opt, schedule=CosineLR(opt, total=epochs), dashboard="plain")
    learner.fit(DataLoader(train_set, 32, shuffle=True, device=dev),
                DataLoader(valid_set, 512, device=dev), epochs=epochs)
    return model, train_set, valid_set


def host_int8_outputs(path, graph, images):
    """The int8 graph inputs of `images` and the host runtime's int8 outputs for them."""
    model = burn.load(str(path))
    inputs = np.stack([graph_input(graph, image) for image in images]).astype(np.int8)
    outputs = np.stack([np.array(model.run(x.reshape(-1)), np.int8) for x in inputs])
    return inputs, outputs


def device_outputs(link, inputs, outputs_per_image, say):
    """Classify packed int8 `inputs` on the board in batches; (outputs, total µs, fastest
    single inference in µs)."""
    results, spent, best = [], 0, None
    for start in range(0, len(inputs), BATCH):
        chunk = inputs[start:start + BATCH]
        packed = base64.b64encode(chunk.tobytes()).decode("ascii")
        text = link.exec(board_programs.call("_classify", packed, len(chunk)), timeout=600)
        data, micros, fastest = text.split()
        results.append(np.frombuffer(base64.b64decode(data), np.int8))
        spent += int(micros)
        best = int(fastest) if best is None else min(best, int(fastest))
        say("  on the board: %d/%d images" % (start + len(chunk), len(inputs)))
    return np.concatenate(results).reshape(len(inputs), outputs_per_image), spent, best


def output_dir(out_dir):
    """The folder the demo writes its model to: `out_dir`, or the cache's demo folder."""
    folder = Path(out_dir) if out_dir else cache_dir("demo")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def run_demo(epochs=DEFAULT_EPOCHS, port=None, board=None, virtual=False, out_dir=None,
             say=print, progress_stream=None, emulated=None):
    """The whole demo (on an emulated board when `emulated` is a board_session.Emulated);
    writes digits.bst into `out_dir` (default: the cache's demo folder) and returns a dict
    of the results (accuracies, agreement, latency, heap, flash) after printing them as a
    table."""
    t0 = time.monotonic()
    model, train_set, valid_set = train(epochs, say)
    x_valid, y_valid = valid_set.batch(np.arange(len(valid_set)))
    x_train, _ = train_set.batch(np.arange(len(train_set)))
    float_acc = float((predict(model, DataLoader(valid_set, 512, device=model_device(model)))
                       == y_valid).mean())

    path = output_dir(out_dir) / "digits.bst"
    say("quantizing to int8 (calibration: 256 training images)")
    graph = export_bst(model, str(path), calibration=x_train[:256],
                       labels=[str(d) for d in range(10)], metadata={"dataset": "digits"},
                       progress=lambda text: say("  " + text))
    say("running the int8 model on the host over %d validation images" % len(x_valid))
    inputs, host_out = host_int8_outputs(path, graph, x_valid)
    int8_acc = float((host_out.argmax(axis=1) == y_valid).mean())

    say("flashing")
    with open_board(port, board, virtual, fallback_virtual=True, say=say,
                    emulated=emulated) as session:
        report = flash(session, str(path), say=say, progress_stream=progress_stream)
        if not report.ok:
            raise RuntimeError("the self-test failed on the board: " + report.self_test_error)
        say("classifying the %d validation images on the board" % len(x_valid))
        link = session.link
        # board_programs' demo, loaded once: `_classify` then runs every batch
        link.exec(board_programs.source("demo") +
                  board_programs.call("_demo_load", report.remote_model, BATCH))
        dev_out, micros, fastest = device_outputs(link, inputs, host_out.shape[1], say)
        where = session.where
    device_acc = float((dev_out.argmax(axis=1) == y_valid).mean())
    m = report.measured
    results = {
        "images": len(x_valid), "float_accuracy": float_acc, "int8_accuracy": int8_acc,
        "device_accuracy": device_acc,
        "identical_outputs": int((dev_out == host_out).all(axis=1).sum()),
        "same_predictions": int((dev_out.argmax(axis=1) == host_out.argmax(axis=1)).sum()),
        "self_tests": m["tests"], "kernels": m.get("backend", "?"),
        "latency_ms": micros / 1000.0 / len(x_valid), "latency_best_ms": fastest / 1000.0,
        "cpu_mhz": m["freq"] / 1e6 if m.get("freq") else None,
        "heap_in_use": m["heap_model"] + m["heap_inference"],
        "heap_total": report.facts.heap_total,
        "heap_model": m["heap_model"] - m["heap_kernels"],
        "arena_bytes": report.model.arena_bytes, "model_bytes": report.model.size,
        "software": report.software.flash_words(),
        "model_path": str(path), "where": where, "seconds": time.monotonic() - t0,
    }
    for line in table(results):
        say(line)
    return results


def model_device(model):
    """The device of a model's parameters."""
    return next(iter(model.parameters())).device


def table(r):
    """The results as printed lines."""
    n = r["images"]
    rows = [
        ("host float32 accuracy", "%.2f%%" % (100 * r["float_accuracy"])),
        ("host int8 accuracy", "%.2f%%" % (100 * r["int8_accuracy"])),
        ("device accuracy", "%.2f%%" % (100 * r["device_accuracy"])),
        ("device = host int8", "%d/%d outputs bit-identical, %d/%d same class"
         % (r["identical_outputs"], n, r["same_predictions"], n)),
        ("self-test on the device", "%d reference vectors passed" % r["self_tests"]),
        ("latency on the device", "%.3f ms per inference, mean over the %d images (fastest "
         "%.3f ms; %s kernels)" % (r["latency_ms"], n, r["latency_best_ms"], r["kernels"])),
    ]
    if r.get("cpu_mhz"):  # the board reported its clock: the same mean latency in cycles
        rows.append(("latency in cycles", "{:,} per inference at the board's {:g} MHz".format(
            round(r["latency_ms"] * 1000 * r["cpu_mhz"]), r["cpu_mhz"])))
    rows += [
        ("heap during inference", "%s bytes of %s in use; the model holds %s (arena %s)"
         % tuple("{:,}".format(v) for v in (r["heap_in_use"], r["heap_total"],
                                            r["heap_model"], r["arena_bytes"]))),
        ("flash used", "model {:,} bytes + {}".format(r["model_bytes"], r["software"])),
    ]
    width = max(len(name) for name, _ in rows)
    lines = ["", "results on %s, %d validation images (%.0f s in all), model file %s:"
             % (r["where"], n, r["seconds"], r["model_path"])]
    lines += ["  %s  %s" % (name.ljust(width), value) for name, value in rows]
    return lines
