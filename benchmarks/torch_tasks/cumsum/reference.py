import torch
import torch.nn as nn

batch_size = 256
dim = 16384


class Model(nn.Module):
    """Inclusive prefix sum along the last dimension of a [batch_size, dim] tensor."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(x, dim=1)


def get_inputs():
    # Uniform in [0, 1): prefix sums grow steadily, so relative error is a fair measure.
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
