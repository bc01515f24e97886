"""`burn demo`: train a digits CNN on the host, quantize it, flash it to a board (a virtual
RP2040 when none is attached) and compare host and device accuracy, latency and memory."""

import sys

from burn.host.board_session import Emulated, add_board_options
from burn.host.cli.number_args import positive_int


def register(subparsers):
    """Add `burn demo`."""
    p = subparsers.add_parser("demo", help="train, quantize, flash and evaluate a digits "
                                           "CNN on a board (virtual if none is attached)")
    p.add_argument("--epochs", type=positive_int, default=None,
                   help="training epochs (default 6; fewer is faster and less accurate)")
    add_board_options(p, "use a virtual board even if one is attached",
                      port_help="serial port of the board (default: found by USB id, else a "
                      "virtual RP2040)")
    p.add_argument("--out", metavar="FOLDER",
                   help="folder for the model file digits.bst (default: the cache's demo "
                        "folder, $BURN_CACHE_DIR/demo or ~/.cache/burn/demo)")
    p.set_defaults(run=run)


def run(args):
    """Run the demo; 0 when the device's accuracy is the host int8 model's."""
    from burn.host import demo
    from burn.host.deploy.errors import FlashError
    from burn.host.link import LinkError

    def say(text):
        print(text, flush=True)

    try:
        epochs = demo.DEFAULT_EPOCHS if args.epochs is None else args.epochs
        results = demo.run_demo(epochs, args.port, args.board, args.virtual, args.out, say,
                                sys.stdout, emulated=Emulated.from_args(args))
    except (FlashError, LinkError, RuntimeError, ValueError) as exc:
        print("burn demo: %s" % exc, file=sys.stderr)
        return 1
    if results["device_accuracy"] != results["int8_accuracy"]:
        print("burn demo: the device's accuracy differs from the host int8 model's",
              file=sys.stderr)
        return 1
    return 0
