"""Dropout: zero elements with probability p in training mode (burn's seeded stream)."""

import burn
from burn.nn.module import Module


class Dropout(Module):
    """In training mode zero each element with probability `p` and scale the rest by
    1 / (1 - p); in eval mode return the input unchanged."""

    def __init__(self, p=0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError("Dropout: p must be between 0 and 1, got " + repr(p))
        self.p = p

    def forward(self, x):
        """Apply dropout to `x`."""
        return burn.dropout(x, self.p, self.training)

    def extra_repr(self):
        return "p=" + repr(self.p)
