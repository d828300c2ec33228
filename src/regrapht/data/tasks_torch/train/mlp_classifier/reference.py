import torch
import torch.nn as nn

batch_size = 2048
d_in = 2048
hidden = 4096
classes = 1000


class Model(nn.Module):
    """An MLP with two hidden ReLU layers."""

    def __init__(self, d_in: int, hidden: int, classes: int):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, classes)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def get_inputs():
    return [torch.randn(batch_size, d_in)]


def get_init_inputs():
    return [d_in, hidden, classes]
