"""The end every `burn import` to a .bst shares: write the graph, check it, report."""

import sys


def write_graph(src, out, graph_of):
    """Write the Graph `graph_of()` returns to the .bst file `out` (under a temporary name,
    checked by burn.load, then renamed: burn.host.bst_writer.write_bst) and print its sizes:
    exit status 0. An OSError or ValueError from the import or the write prints the reason
    against `src`: exit status 1. `graph_of` returns None when it wrote its output itself."""
    import burn
    from burn.host.bst_writer import write_bst

    try:
        graph = graph_of()
        if graph is None:
            return 0
        written = write_bst(graph, out)
    except (OSError, ValueError) as e:
        print("burn import: %s: %s" % (src, " ".join(str(e).split())), file=sys.stderr)
        return 1
    model = burn.load(written)
    print("wrote %s: %d bytes, %d ops, arena %d bytes, %d reference tests" % (
        out, len(written), len(graph.ops), model.arena_bytes, len(graph.tests)))
    return 0
