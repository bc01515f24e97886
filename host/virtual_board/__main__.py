"""`python -m burn.host.virtual_board --board rp2040 --flash-dir DIR`: run one virtual board.

Prints `PORT <path>` on a line of its own once the pty exists, then serves until SIGTERM,
SIGINT or, with `--lifeline FD`, the end of that pipe (its writer, the process that started
the board, has ended). `--lock-fd FD` is the flash folder's lock, already taken by that
process. `burn board virtual` is the friendly front end; this is what `VirtualBoard` starts.
"""

import argparse
import os
import signal
import sys

from burn.host.virtual_board.supervisor import Supervisor


def main(argv=None):
    """Run a virtual board in this process until told to stop."""
    parser = argparse.ArgumentParser(prog="python -m burn.host.virtual_board")
    parser.add_argument("--board", default="rp2040")
    parser.add_argument("--flash-dir", required=True)
    parser.add_argument("--lock-fd", type=int)
    parser.add_argument("--lifeline", type=int)
    args = parser.parse_args(argv)
    supervisor = Supervisor(args.board, args.flash_dir, args.lock_fd, args.lifeline)
    signal.signal(signal.SIGTERM, lambda *_: supervisor.stop())
    signal.signal(signal.SIGINT, lambda *_: supervisor.stop())
    print("PORT " + supervisor.port, flush=True)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # the launcher stops reading after the port line
    supervisor.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
