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
