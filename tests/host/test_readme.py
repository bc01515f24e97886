"""The README keeps up with the tree: its documentation list links every page of docs/ (and
only pages that exist), and its layout block names every top-level folder."""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_blocks import REPO, blocks

# Folders a build or an install leaves at the top of a checkout: not part of the layout
# (`setup.py sdist`, which tests/host/test_packaging.py runs meanwhile, assembles the
# release tree in burn_micro-<version>/ for a moment).
_NOT_LAYOUT = re.compile(r"^(\..*|build|dist|__pycache__|.*\.egg-info|burn_micro-.*)$")


def _section(title):
    """The README's text from the heading `## title` to the next `## ` heading."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index("\n## %s\n" % title)
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else len(text)], text[:start].count("\n") + 2


def test_the_documentation_list_links_every_page():
    section, _ = _section("Documentation")
    linked = set(re.findall(r"\]\((docs/[^)#]+\.md)\)", section))
    pages = {"docs/" + p.name for p in (REPO / "docs").glob("*.md")}
    assert not pages - linked, "README.md's Documentation list lacks %s" % sorted(pages - linked)
    assert not linked - pages, "README.md links pages that do not exist: %s" % sorted(
        linked - pages)


def test_the_layout_block_names_every_top_level_folder():
    section, first_line = _section("Layout")
    last_line = first_line + section.count("\n")
    layout = [b for b in blocks("README.md") if first_line <= b.line <= last_line]
    assert len(layout) == 1, "the Layout section should hold one block"
    named = {line.split("/")[0] for line in layout[0].code.splitlines()
             if re.match(r"^[\w.-]+/\s", line)}
    folders = {p.name for p in REPO.iterdir() if p.is_dir() and not _NOT_LAYOUT.match(p.name)}
    assert not folders - named, "README.md's Layout block lacks %s" % sorted(folders - named)
    assert not named - folders, "README.md's Layout block names %s, not in the tree" % sorted(
        named - folders)
