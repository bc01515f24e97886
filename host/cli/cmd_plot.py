"""`burn plot RUN_DIR`: PNG curves of a training run's metrics."""

import sys


def register(sub):
    """Add the `plot` subcommand."""
    p = sub.add_parser("plot", help="write PNG curves of a training run's metrics",
                       description="Read RUN_DIR/metrics.jsonl (written by the Learner) and "
                                   "write one PNG per metric with train and valid curves.")
    p.add_argument("run_dir", help="the run folder given to the Learner as run_dir")
    p.add_argument("-o", "--out", help="folder for the PNG files (default: RUN_DIR)")
    p.set_defaults(run=run)


def run(args):
    """Write the curves and list the files."""
    from burn.host.train.plot import plot_run

    try:
        paths = plot_run(args.run_dir, args.out)
    except (ValueError, OSError) as e:
        print("burn plot: " + str(e), file=sys.stderr)
        return 1
    for p in paths:
        print(p)
    return 0
