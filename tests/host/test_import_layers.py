"""burn.host modules import each other in layers: no module-level import cycle.

Every module under host/ is parsed with `ast` (nothing is imported); an import at module level
(also inside a module-level `if`/`try` or a class body, which run at import time) is an edge;
an import inside a function is not. A cycle means that which module works depends on which one
was imported first.
"""

import ast
import os

HOST = os.path.join(os.path.dirname(__file__), "..", "..", "host")

# Cycles that run through files split elsewhere, each a set of the modules on it.
KNOWN_CYCLES = []


def _modules():
    """Map every burn.host module name to its source file."""
    found = {}
    for folder, _dirs, files in os.walk(HOST):
        rel = os.path.relpath(folder, HOST)
        parts = ["burn", "host"] + ([] if rel == "." else rel.split(os.sep))
        for name in files:
            if not name.endswith(".py"):
                continue
            stem = name[:-3]
            found[".".join(parts if stem == "__init__" else parts + [stem])] = os.path.join(
                folder, name
            )
    return found


def _top_level(body):
    """Yield the import statements that run when the module is imported."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        else:
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(node, field, None)
                if isinstance(inner, list):
                    yield from _top_level(inner)


def _targets(node, module, is_package, modules):
    """The burn.host modules that one import statement loads."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
        return [name for name in names if name in modules]
    if node.level:
        base = module.split(".")
        if not is_package:
            base = base[:-1]
        base = base[: len(base) - (node.level - 1)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module
    out = []
    for alias in node.names:
        sub = source + "." + alias.name
        if sub in modules:
            out.append(sub)
        elif source in modules:
            out.append(source)
    return out


def _graph():
    """Module-level import edges between burn.host modules."""
    modules = _modules()
    graph = {}
    for module, path in modules.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        is_package = path.endswith("__init__.py")
        edges = set()
        for node in _top_level(tree.body):
            edges.update(_targets(node, module, is_package, modules))
        edges.discard(module)
        graph[module] = edges
    return graph


def _cycles(graph):
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.add(top)
                if top == node:
                    break
            if len(component) > 1:
                out.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


def test_the_graph_sees_the_importers():
    """The parser finds real edges (a test that finds no edges would pass on anything)."""
    graph = _graph()
    assert "burn.host.importers.onnx_import" in graph
    assert any(edge.startswith("burn.host.importers.") for edge in
               graph["burn.host.importers.onnx_import"])


def test_a_made_up_cycle_is_found():
    """The cycle finder reports a cycle it is given."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [{"a", "b", "c"}]


def test_no_module_level_import_cycle():
    """No burn.host modules import each other at module level, but the known ones."""
    found = _cycles(_graph())
    unexpected = [sorted(c) for c in found if c not in KNOWN_CYCLES]
    assert unexpected == []
