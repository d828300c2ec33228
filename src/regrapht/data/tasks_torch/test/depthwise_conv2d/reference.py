import torch
import torch.nn as nn

batch_size = 32
channels = 128
height = 128
width = 128


class Model(nn.Module):
    """Each channel convolved with its own 5x5 filter."""

    def __init__(self, channels: int):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 5, padding=2, groups=channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return [channels]
