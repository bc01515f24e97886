"""The tape of reverse-mode autodiff: nodes, the no-grad switch and the backward pass."""


class Node:
    """An Autodiff handle: the inner backend's value plus what its gradient needs.

    `size` is the element count. `backward` maps the gradient of this node (an inner
    handle) to one gradient per parent (inner handles, or None where a parent gets
    nothing). Leaves have no parents; a leaf that requires grad accumulates its gradient
    in `grad`.
    """

    __slots__ = ("backward", "grad", "parents", "requires_grad", "size", "value")

    def __init__(self, value, size, parents=(), backward=None, requires_grad=False):
        self.value = value
        self.size = size
        self.parents = parents
        self.backward = backward
        self.requires_grad = requires_grad
        self.grad = None

    @property
    def is_leaf(self):
        """True for nodes made by creation ops or marked requires_grad by the user."""
        return self.backward is None


class _GradMode:
    enabled = True


class no_grad:
    """Context manager (and decorator) under which Autodiff records nothing."""

    def __enter__(self):
        self._previous = _GradMode.enabled
        _GradMode.enabled = False
        return self

    def __exit__(self, *exc):
        _GradMode.enabled = self._previous
        return False

    def __call__(self, fn):
        def wrapped(*args, **kwargs):
            with no_grad():
                return fn(*args, **kwargs)

        wrapped.__name__ = getattr(fn, "__name__", "wrapped")
        wrapped.__doc__ = getattr(fn, "__doc__", None)
        return wrapped


def grad_enabled():
    """Whether operations are being recorded right now."""
    return _GradMode.enabled


def _topological_order(root):
    """Nodes reachable from `root` that require grad, each after all of its consumers."""
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for parent in node.parents:
            if parent.requires_grad and id(parent) not in seen:
                stack.append((parent, False))
    order.reverse()
    return order


def run_backward(root, seed, add):
    """Propagate `seed` (the gradient of `root`) to every leaf that requires grad.

    `add(a, b, n)` sums two inner handles of n elements. Leaves accumulate into `.grad`
    across calls (gradient accumulation); the graph's closures are released afterwards.
    """
    grads = {id(root): seed}
    for node in _topological_order(root):
        g = grads.pop(id(node), None)
        if g is None:
            continue
        if node.is_leaf:
            node.grad = g if node.grad is None else add(node.grad, g, node.size)
            continue
        parent_grads = node.backward(g)
        for parent, pg in zip(node.parents, parent_grads):
            if pg is None or not parent.requires_grad:
                continue
            key = id(parent)
            grads[key] = pg if key not in grads else add(grads[key], pg, parent.size)
        node.backward = _released
        node.parents = ()


def _released(_g):
    raise RuntimeError(
        "backward: this graph was already used by a backward pass; run the forward again")
