"""Gradient methods for a backend that records them (the host's Autodiff): backward,
detach, requires_grad_. The core backends do no differentiation."""


def backward(x, grad=None):
    """Accumulate d(x)/d(leaf) into the `.grad` of every leaf that requires grad."""
    f = getattr(x.backend, "backward", None)
    if f is None:
        raise RuntimeError("backward: the " + x.backend.name + " backend records no "
                           "gradients; use a device wrapped in Autodiff")
    f(x.handle, x.shape, None if grad is None else grad.handle)


def detach(x):
    """The same values without autodiff history."""
    f = getattr(x.backend, "detach", None)
    return x._new(f(x.handle) if f else x.handle, x.shape)


def requires_grad_(x, flag=True):
    """Mark `x` as a leaf whose gradient is wanted; returns it."""
    x.requires_grad = flag
    return x
