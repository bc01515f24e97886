"""The code blocks of README.md and docs/*.md, as the documentation test runs them.

A fenced block's language says what it is: `python` and `sh` (also `bash`, `shell`) are
examples and are run; `text` (output, listings), `console` (a terminal session with its
output), `pycon` (a REPL session), `json`, `c` and `toml` are shown, not run. An HTML comment
on the line before a block changes that:

    <!-- not run: REASON -->   an example that cannot run here (a board, a long build, ...)
    <!-- file: NAME -->        the block (of any language: a C file too) is the file NAME
                               that later blocks use
    <!-- run in: checkout -->  a shell block that runs in the repository's folder

A block that is not run still has its commands checked against the product (a `burn`
command by its real parser, a script or test path by the checkout): docs_commands.py.

Each page runs in a fresh folder that holds `model.bst` (a small int8 model with self-test
vectors) and `x.npy` (an input for it), the names the pages use for "your model"; HOME is
a fresh folder too, and the cache (`$BURN_CACHE_DIR`) is the user's.
"""

import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RUN = {"python": "python", "sh": "sh", "bash": "sh", "shell": "sh"}
SHOWN = {"text", "console", "pycon", "json", "c", "toml"}
_FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
_MARK = re.compile(r"^\s*<!--\s*(not run|file|run in):\s*(.*?)\s*-->\s*$")


@dataclass
class Block:
    """One fenced block: where it is, its language, its code and its marker."""

    page: str
    line: int
    lang: str
    code: str
    mark: str = ""
    arg: str = ""

    @property
    def where(self):
        """page:line of the opening fence."""
        return "%s:%d" % (self.page, self.line)

    @property
    def runs(self):
        """Whether the documentation test runs (or writes) this block."""
        return self.mark == "file" or (self.lang in RUN and self.mark != "not run")


def pages():
    """The documentation pages, relative to the repository."""
    return ["README.md"] + sorted("docs/" + p.name for p in (REPO / "docs").glob("*.md"))


def blocks(page):
    """The fenced blocks of `page` in order; ValueError for a fence left open."""
    lines = (REPO / page).read_text(encoding="utf-8").split("\n")
    found, i = [], 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent = len(opening.group(1))
        end = i + 1
        while end < len(lines) and not re.match(r"^\s*```\s*$", lines[end]):
            end += 1
        if end == len(lines):
            raise ValueError("%s:%d: a code block is never closed" % (page, i + 1))
        code = "\n".join(line[indent:] for line in lines[i + 1:end]) + "\n"
        mark = _MARK.match(lines[i - 1]) if i else None
        found.append(Block(page, i + 1, opening.group(2), code,
                           mark.group(1) if mark else "", mark.group(2) if mark else ""))
        i = end + 1
    return found


def main(page):
    """Run the blocks of `page` in order in the current folder (the test's driver): Python
    blocks in one namespace, shell blocks each in `bash -e`; exit 1 at the first failure."""
    import subprocess
    import traceback

    namespace = {"__name__": "__main__"}
    sys.path[0] = str(Path.cwd())  # as for a script run from the page's folder
    for block in blocks(page):
        if not block.runs:
            continue
        print("=== %s (%s)" % (block.where, block.mark or block.lang), flush=True)
        if block.mark == "file":
            Path(block.arg).write_text(block.code, encoding="utf-8")
            continue
        if RUN[block.lang] == "python":
            try:
                exec(compile(block.code, block.where, "exec"), namespace)
            except BaseException:
                traceback.print_exc()
                print("FAILED %s" % block.where, flush=True)
                return 1
            continue
        cwd = str(REPO) if (block.mark, block.arg) == ("run in", "checkout") else None
        proc = subprocess.run(["bash", "-e", "-c", block.code], cwd=cwd, check=False)
        if proc.returncode:
            print("FAILED %s: exit status %d" % (block.where, proc.returncode), flush=True)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
