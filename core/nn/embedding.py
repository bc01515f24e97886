"""Embedding: a lookup table from integer ids to vectors."""

import burn
from burn.nn.init import normal_tensor
from burn.nn.module import Module, Parameter


class Embedding(Module):
    """Rows of `weight` [num_embeddings, embedding_dim] picked by int32 indices, initialised
    from N(0, 1); the row `padding_idx` (if given) starts at zero."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None):
        super().__init__()
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError("Embedding: padding_idx " + str(padding_idx) +
                                 " is out of range for " + str(num_embeddings) + " embeddings")
            padding_idx %= num_embeddings
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = padding_idx
        w = normal_tensor((num_embeddings, embedding_dim), 0.0, 1.0)
        if padding_idx is not None:
            keep = [1.0] * num_embeddings
            keep[padding_idx] = 0.0
            w = w * burn.tensor(keep).reshape((num_embeddings, 1))
        self.register_parameter("weight", Parameter(w))

    def forward(self, indices):
        """Vectors for `indices` (an int tensor of any shape): shape [*indices, dim]."""
        return burn.embedding(indices, self.weight)

    def extra_repr(self):
        s = str(self.num_embeddings) + ", " + str(self.embedding_dim)
        if self.padding_idx is not None:
            s += ", padding_idx=" + str(self.padding_idx)
        return s
