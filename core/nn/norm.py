"""Normalisation layers: BatchNorm2d (per channel, running statistics) and LayerNorm."""

import burn
from burn.nn.module import Module, Parameter


class BatchNorm2d(Module):
    """Batch normalisation over the N, H, W axes of NCHW input, one scale and shift per
    channel. In training mode it normalises with the batch statistics and updates
    `running_mean` and `running_var` (unbiased) by `momentum` (None: cumulative average);
    in eval mode it uses the running statistics. `bias=False` keeps the scale only."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, bias=True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        shape = (num_features,)
        self.register_parameter("weight", Parameter(burn.ones(shape)) if affine else None)
        self.register_parameter("bias", Parameter(burn.zeros(shape)) if affine and bias
                                else None)
        if track_running_stats:
            self.register_buffer("running_mean", burn.zeros(shape))
            self.register_buffer("running_var", burn.ones(shape))
            self.register_buffer("num_batches_tracked", burn.tensor(0))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def _check(self, x):
        if x.ndim != 4 or x.shape[1] != self.num_features:
            raise ValueError("BatchNorm2d: expected input of shape (N, " +
                             str(self.num_features) + ", H, W), got " + str(tuple(x.shape)))

    def forward(self, x):
        """Normalise `x` of shape [N, num_features, H, W]."""
        self._check(x)
        tracking = self.running_mean is not None
        update = self.training and tracking
        momentum = 0.0
        if update:
            momentum = self.momentum
            if momentum is None:
                momentum = 1.0 / (self.num_batches_tracked.item() + 1)
        y = burn.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                            self.training or not tracking, momentum, self.eps)
        if update:
            self.num_batches_tracked.copy_(self.num_batches_tracked + 1)
        return y

    def extra_repr(self):
        return (str(self.num_features) + ", eps=" + repr(self.eps) + ", momentum=" +
                repr(self.momentum) + ", affine=" + str(self.affine) + ", bias=" +
                str(self.bias is not None) + ", track_running_stats=" +
                str(self.track_running_stats))


class LayerNorm(Module):
    """Layer normalisation over the trailing `normalized_shape` axes."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        shape = self.normalized_shape
        w = Parameter(burn.ones(shape)) if elementwise_affine else None
        b = Parameter(burn.zeros(shape)) if elementwise_affine and bias else None
        self.register_parameter("weight", w)
        self.register_parameter("bias", b)

    def forward(self, x):
        """Normalise `x` over its last len(normalized_shape) axes."""
        return burn.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (str(self.normalized_shape) + ", eps=" + repr(self.eps) +
                ", elementwise_affine=" + str(self.elementwise_affine) +
                ", bias=" + str(self.bias is not None))
