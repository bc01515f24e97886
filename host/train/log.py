"""The metrics log of a run: one JSON line per epoch (`metrics.jsonl`) and a CSV copy."""

import csv
import io
import json
import os

from ..atomic import write_text_atomic

JSONL = "metrics.jsonl"
CSV = "metrics.csv"


def append(run_dir, row):
    """Append one epoch's row to metrics.jsonl (flushed to disk) and rewrite metrics.csv."""
    with open(os.path.join(run_dir, JSONL), "a") as f:
        f.write(json.dumps(row, sort_keys=True) + "\n")
        f.flush()
        os.fsync(f.fileno())
    write_csv(run_dir, read(run_dir))


def read(run_dir):
    """The rows logged so far; a last line cut short by a crash is ignored."""
    path = os.path.join(run_dir, JSONL)
    if not os.path.exists(path):
        return []
    rows = []
    with open(path) as f:
        for line in f:
            try:
                rows.append(json.loads(line))
            except ValueError:
                break
    return rows


def replace(run_dir, rows):
    """Make the log hold exactly `rows` (a resumed run restores its checkpoint's history,
    which may be ahead of a log cut short by a crash, or behind a log written past it)."""
    text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows)
    write_text_atomic(os.path.join(run_dir, JSONL), text)
    write_csv(run_dir, rows)


def write_csv(run_dir, rows):
    """metrics.csv with one column per key seen in any row."""
    keys = sorted({k for r in rows for k in r}, key=lambda k: (k != "epoch", k))
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=keys)
    w.writeheader()
    for r in rows:
        w.writerow(r)
    write_text_atomic(os.path.join(run_dir, CSV), out.getvalue())


def metric_names(rows):
    """Base metric names that have a train_ or valid_ column, in first-seen order."""
    names = []
    for r in rows:
        for k in r:
            for prefix in ("train_", "valid_"):
                if k.startswith(prefix) and k[len(prefix):] not in names:
                    names.append(k[len(prefix):])
    return names


FINAL = "final"
KINDS = (("float", "float"), ("ptq_int8", "PTQ int8"), ("qat_int8", "QAT int8"))


def final_row(epoch, metric, scores, **extra):
    """The closing record of a run: `scores` {"float", "ptq", "qat"} (those measured) of
    `metric` ('accuracy' or 'mse') as float_<metric>, ptq_int8_<metric>, qat_int8_<metric>,
    marked {"final": "quantization"}, plus `extra` (e.g. the exported file)."""
    row = {"epoch": epoch, FINAL: "quantization", "metric": metric}
    for (key, _label), name in zip(KINDS, ("float", "ptq", "qat")):
        if name in scores:
            row["%s_%s" % (key, metric)] = scores[name]
    row.update(extra)
    return row


def final_scores(rows):
    """(metric, [(label, value)] in float, PTQ, QAT order) of the run's last closing
    record, or None when it has none."""
    for r in reversed(rows):
        if r.get(FINAL) == "quantization":
            metric = r["metric"]
            return metric, [(label, r["%s_%s" % (key, metric)]) for key, label in KINDS
                            if "%s_%s" % (key, metric) in r]
    return None
