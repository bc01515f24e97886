"""The commands of the documentation's shell blocks, checked without running them.

Blocks marked `<!-- not run: ... -->` (a board, a long build, your own files) are still
commands a reader types, so their commands are checked against the product: a `burn` or
`burn-flash` command goes through the real argparse parser and the subcommand's own option
checks (burn.host.cli.parse_args); `python SCRIPT` and `pytest PATH` name files of the
checkout, and their `--options` are ones the script's or pytest's `--help` lists. Console
blocks are checked the same way, for their `$ ` lines.
"""

import contextlib
import functools
import io
import re
import shlex
import subprocess
import sys

from docs_blocks import REPO, RUN

_SEPARATORS = {"&&", "||", ";", "|", "&", "(", ")"}
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_TOP_FOLDERS = {p.name for p in REPO.iterdir() if p.is_dir() and not p.name.startswith(".")}


def _lines(block):
    """The block's logical command lines: backslash continuations joined, a quoted string
    kept whole across lines, a console block's `$ ` lines only."""
    pending, out = "", []
    for raw in block.code.splitlines():
        if block.lang == "console" and not pending:
            if not raw.startswith("$ "):
                continue
            raw = raw[2:]
        if raw.endswith("\\"):
            pending += raw[:-1] + " "
            continue
        pending += raw
        try:
            shlex.split(pending, comments=True)
        except ValueError:  # a quotation that goes on on the next line
            pending += "\n"
            continue
        out.append(pending)
        pending = ""
    return out


def commands(block):
    """The simple commands of a shell or console block, each as an argv list (environment
    assignments before the command left out)."""
    if RUN.get(block.lang) != "sh" and block.lang != "console":
        return []
    found = []
    for line in _lines(block):
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        current = []
        for token in list(lexer) + [";"]:
            if token in _SEPARATORS:
                while current and _ASSIGNMENT.match(current[0]):
                    current.pop(0)
                if current:
                    found.append(current)
                current = []
            else:
                current.append(token)
    return found


def check_burn(argv):
    """Why the `burn`/`burn-flash` command `argv` is refused by its parser, or ''."""
    from burn.host.cli import build_parser, flash_main, parse_args

    parser = flash_main.build_parser() if argv[0] == "burn-flash" else build_parser()
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            parse_args(parser, argv[1:])
    except SystemExit as stop:
        if stop.code:
            return err.getvalue().strip().splitlines()[-1]
    return ""


def _repo_paths(args):
    """The arguments that name something in the checkout (they start with a top folder)."""
    return [a for a in args if not a.startswith("-") and a.split("/")[0] in _TOP_FOLDERS]


def _options(args):
    return {a.split("=")[0] for a in args if a.startswith("--")}


@functools.lru_cache(maxsize=None)
def _help(argv):
    """The --help text of the tuple `argv` run in the checkout (once each); RuntimeError
    when --help itself fails."""
    proc = subprocess.run([sys.executable, *argv, "--help"], cwd=REPO, capture_output=True,
                          text=True, timeout=120, check=False)
    if proc.returncode:
        raise RuntimeError("%s --help failed: %s" % (" ".join(argv), proc.stderr[-500:]))
    return proc.stdout


def _unknown_options(options, help_argv):
    """The `options` that the --help of `help_argv` does not list."""
    if not options:
        return []
    text = _help(tuple(help_argv))
    return sorted(o for o in options
                  if not re.search(r"(^|[\s,\[])%s(?=[\s=,\]]|$)" % re.escape(o), text))


def check_script(argv):
    """Why `python SCRIPT ARGS` (a script of the checkout) is wrong, or ''."""
    script = argv[1]
    if not (REPO / script).is_file():
        return "%s is not a file of the checkout" % script
    unknown = _unknown_options(_options(argv[2:]), [script])
    return "%s has no option %s" % (script, ", ".join(unknown)) if unknown else ""


def check_pytest(args):
    """Why `pytest ARGS` is wrong (a test path that does not exist, an option its --help
    does not list with the same paths and plugins), or ''."""
    paths = _repo_paths(args)
    missing = [p for p in paths if not (REPO / p).exists()]
    if missing:
        return "%s: not in the checkout" % ", ".join(missing)
    plugins = [a for i, a in enumerate(args) if i and args[i - 1] == "-p"]
    context = ["-m", "pytest", "-p", "no:cacheprovider"]
    for plugin in plugins:
        context += ["-p", plugin]
    unknown = _unknown_options(_options(args), context + paths)
    return "pytest has no option %s here" % ", ".join(unknown) if unknown else ""


def check(argv):
    """Why the documented command `argv` is wrong, or '' (also for commands not checked:
    git, mpremote, the page's own files, ...)."""
    if argv[0] in ("burn", "burn-flash"):
        return check_burn(argv)
    if argv[0] == "pytest":
        return check_pytest(argv[1:])
    if argv[0] in ("python", "python3") and argv[1:3] == ["-m", "pytest"]:
        return check_pytest(argv[3:])
    if argv[0] in ("python", "python3") and len(argv) > 1 and _repo_paths(argv[1:2]):
        return check_script(argv)
    return ""
