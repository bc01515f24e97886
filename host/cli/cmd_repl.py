"""`burn repl`: the board's own REPL, with the core (and a model) put on the board first.

    burn repl --board rp2040 model.bst            # attached board; then at its prompt:
    >>> import burn; m = burn.load("/model.bst"); x = burn.zeros((1, 8, 8, 1), dtype=burn.int8)
    >>> m(x).tolist()
    burn repl --virtual model.bst                 # a virtual board for the session
    burn repl --emulated model.bst                # an emulated RP2040 (real firmware)
    burn repl --virtual model.bst -c "import burn; burn.load('model.bst').self_test()"

    echo 'print(1 + 1)' | burn repl --emulated   # input from a pipe: run, print, exit

The terminal is mpremote's (`mpremote connect PORT repl`), with the board's banner and
prompt shown at once: Ctrl-] or Ctrl-X leaves it. `-c CODE` runs CODE on the board instead
and prints what it prints; as at the REPL, the value of a final expression is printed too.
Without a terminal on stdin (a pipe, a file), what stdin holds runs as `-c` would run it.
"""

import ast
import subprocess
import sys

from burn.host.board_session import Emulated, add_board_options


def register(subparsers):
    """Add `burn repl`."""
    p = subparsers.add_parser("repl", help="open a board's REPL with the core and a model "
                                           "on it")
    p.add_argument("model", nargs="?", help="a .bst model to put on the board first")
    add_board_options(p, "start a virtual board for the session",
                      flash_dir_help="with --virtual: folder keeping its flash")
    p.add_argument("-c", dest="code", help="run CODE on the board, print its output, exit "
                   "(without -c, input from a pipe or file is run the same way)")
    p.set_defaults(run=run)


def with_printed_value(code):
    """`code` changed so that the value of a final expression statement is printed, as the
    REPL does; code that does not end in an expression (or does not parse) is unchanged."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        return code
    last = tree.body[-1]
    lines = code.splitlines(keepends=True)
    start = sum(len(line) for line in lines[:last.lineno - 1]) + last.col_offset
    end = sum(len(line) for line in lines[:last.end_lineno - 1]) + last.end_col_offset
    return (code[:start] + "_ = (" + code[start:end] + ")\n"
            "if _ is not None:\n    print(repr(_))\n")


def try_line(remote, spec):
    """A REPL line that loads the model at `remote` on the board and runs it on an input of
    zeros of the model's input `spec` (a Model.info() input: shape, dtype)."""
    return ("import burn; m = burn.load(%r); x = burn.zeros(%r, dtype=burn.%s); "
            "m(x).tolist()" % (remote, tuple(spec["shape"]), spec["dtype"]))


def piped_program(stream):
    """The program in `stream` (stdin that is no terminal, or None when it is closed), as
    text; ValueError when it is not UTF-8, the encoding of MicroPython source."""
    data = stream.buffer.read() if stream is not None else b""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError("the program on stdin is not UTF-8 text (byte %d)" % exc.start) \
            from None


def run(args):
    """Prepare the board, then run `-c CODE` or hand the terminal to its REPL."""
    from burn.host.board_session import open_board
    from burn.host.deploy import flash
    from burn.host.deploy.errors import FlashError
    from burn.host.link import DeviceError, LinkError

    def say(text):
        print(text, file=sys.stderr)

    code = args.code
    if code is None and not (sys.stdin is not None and sys.stdin.isatty()):
        try:
            code = piped_program(sys.stdin)
        except ValueError as exc:
            say("burn repl: %s" % exc)
            return 2
    try:
        session = open_board(args.port, args.board, args.virtual, args.flash_dir,
                             emulated=Emulated.from_args(args))
    except LinkError as exc:
        say("burn repl: %s" % exc)
        return 2
    with session:
        try:
            report = flash(session, args.model, run_measure=False, say=say)
        except (FlashError, ValueError, OSError) as exc:
            say("burn repl: %s" % exc)
            return 1
        if code is not None:
            try:
                out = session.link.exec(with_printed_value(code), timeout=None)
            except DeviceError as exc:
                sys.stdout.write(exc.output)
                say(exc.traceback)
                return 1
            except LinkError as exc:
                say("burn repl: %s" % exc)
                return 1
            sys.stdout.write(out)
            return 0
        session.link.close()  # mpremote opens the port; a virtual board keeps running
        if args.model:
            spec = report.model.inputs[0]
            say("the model is %s; try it at the prompt (x: zeros of its input's shape):\n"
                ">>> %s" % (report.remote_model, try_line(report.remote_model, spec)))
        # mpremote's port opening drops what the board sent before, its banner and prompt
        # among it: an empty program in the raw REPL first makes mpremote leave the raw REPL
        # itself, and the board's banner and `>>>` then reach the terminal at once.
        return subprocess.call([sys.executable, "-m", "mpremote", "connect", session.port,
                                "resume", "exec", "", "repl"])
