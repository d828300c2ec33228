import torch
import torch.nn as nn

batch_size = 32
in_channels = 64
out_channels = 128
length = 16384
kernel_size = 7


class Model(nn.Module):
    """y = conv1d(x, W, b), stride 1, padding kernel_size // 2."""

    def __init__(self, cin: int, cout: int, k: int):
        super().__init__()
        self.conv = nn.Conv1d(cin, cout, k, padding=k // 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch_size, in_channels, length)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
