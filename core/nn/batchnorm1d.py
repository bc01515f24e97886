"""BatchNorm1d: batch normalisation of [N, C] or [N, C, L] input, run as BatchNorm2d."""

from burn.nn.norm import BatchNorm2d


class BatchNorm1d(BatchNorm2d):
    """Batch normalisation over the N (and L) axes, one scale and shift per channel, with
    PyTorch's arguments and state_dict keys; training and eval as BatchNorm2d, whose
    forward normalises the [N, C, 1, L] view of the input."""

    def _check(self, x):
        # BatchNorm2d.forward checks the [N, C, 1, L] view that forward hands it too
        view = x.ndim == 4 and x.shape[2] == 1
        if (x.ndim not in (2, 3) and not view) or x.shape[1] != self.num_features:
            raise ValueError("BatchNorm1d: expected input of shape (N, " +
                             str(self.num_features) + ") or (N, " + str(self.num_features) +
                             ", L), got " + str(tuple(x.shape)))

    def forward(self, x):
        """Normalise `x` of shape [N, num_features] or [N, num_features, L]."""
        self._check(x)
        n, c = x.shape[0], x.shape[1]
        y = BatchNorm2d.forward(self, x.reshape(n, c, 1, -1))
        return y.reshape(x.shape)
