import torch
import torch.nn as nn

batch_size = 512
image = 64


class Model(nn.Module):
    """Two conv blocks and a linear classifier."""

    def __init__(self, image: int):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Linear(64 * (image // 4) * (image // 4), 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.features(x).flatten(1))


def get_inputs():
    return [torch.randn(batch_size, 3, image, image)]


def get_init_inputs():
    return [image]
