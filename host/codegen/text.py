"""Line layout of generated C: calls and initialisers wrapped at the project's width."""

WIDTH = 99


def wrap_call(head, args, tail, width=WIDTH, indent=None):
    """Lines of `head` + the comma-separated `args` + `tail`, wrapped at `width` columns,
    continuation lines aligned after `head` (or indented four more spaces than it when
    `head` is too long for that, or by `indent` spaces when given)."""
    if indent is not None:
        indent = " " * indent
    elif len(head) > width // 2:
        indent = " " * (len(head) - len(head.lstrip()) + 4)
    else:
        indent = " " * len(head)
    lines, line = [], head
    for i, arg in enumerate(args):
        piece = arg + ("," if i < len(args) - 1 else tail)
        if line not in (head, indent) and len(line) + 1 + len(piece) > width:
            lines.append(line.rstrip())
            line = indent + piece
        else:
            line += ("" if line in (head, indent) else " ") + piece
    if not args:
        line += tail
    lines.append(line)
    return lines


def wrap_comment(text, width=WIDTH):
    """A C block comment holding `text`, wrapped between words at `width` columns."""
    lines, line = [], "/*"
    for word in text.split():
        if len(line) + 1 + len(word) > width - 3:
            lines.append(line)
            line = " *"
        line += " " + word
    return lines + [line + " */"]
