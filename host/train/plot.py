"""PNG curves of a run's metrics (train and valid per metric), and its float/int8 scores
side by side, from metrics.jsonl."""

import os

from ..atomic import write_bytes_atomic
from . import log


def plot_run(run_dir, out_dir=None):
    """Write one `<metric>.png` per metric into out_dir (default: run_dir), and
    `quantization.png` with the float, PTQ int8 and QAT int8 scores side by side when the
    run has its closing record (`log.final_row`); returns the paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = log.read(run_dir)
    if not rows:
        raise ValueError(str(run_dir) + ": no metrics logged (metrics.jsonl is missing or "
                         "empty)")
    out_dir = out_dir or run_dir
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    final = log.final_scores(rows)
    if final is not None:
        paths.append(_plot_final(plt, out_dir, *final))
    for name in log.metric_names(rows):
        fig, ax = plt.subplots(figsize=(6, 4), dpi=100)
        for prefix, style in (("train_", "-o"), ("valid_", "-s")):
            pts = [(r["epoch"], r[prefix + name]) for r in rows if prefix + name in r]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, markersize=3,
                        label=prefix.rstrip("_"))
        ax.set_xlabel("epoch")
        ax.set_ylabel(name)
        ax.set_title(name)
        ax.grid(alpha=0.3)
        ax.legend()
        paths.append(_save(plt, fig, os.path.join(out_dir, name + ".png")))
    return paths


def _save(plt, fig, path):
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    plt.close(fig)
    write_bytes_atomic(path, buf.getvalue())
    return path


def _plot_final(plt, out_dir, metric, scores):
    """quantization.png: one bar per model kind, its value written on it."""
    fig, ax = plt.subplots(figsize=(5, 4), dpi=100)
    labels = [label for label, _v in scores]
    values = [100 * v if metric == "accuracy" else v for _label, v in scores]
    bars = ax.bar(labels, values, color=["#4c72b0", "#dd8452", "#55a868"][:len(values)])
    for bar, v in zip(bars, values):
        ax.annotate("%.2f%%" % v if metric == "accuracy" else "%.4g" % v,
                    (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                    ha="center", va="bottom")
    ax.set_ylabel("validation accuracy (%)" if metric == "accuracy" else "validation " + metric)
    if metric == "accuracy":
        ax.set_ylim(0, 105)
    ax.set_title("float against int8 (%s)" % metric)
    ax.grid(alpha=0.3, axis="y")
    return _save(plt, fig, os.path.join(out_dir, "quantization.png"))
