"""PNG curves of a run's metrics (train and valid per metric), from metrics.jsonl."""

import os

from ..atomic import write_bytes_atomic
from . import log


def plot_run(run_dir, out_dir=None):
    """Write one `<metric>.png` per metric into out_dir (default: run_dir); returns paths."""
    import io

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
        buf = io.BytesIO()
        fig.savefig(buf, format="png", bbox_inches="tight")
        plt.close(fig)
        path = os.path.join(out_dir, name + ".png")
        write_bytes_atomic(path, buf.getvalue())
        paths.append(path)
    return paths
