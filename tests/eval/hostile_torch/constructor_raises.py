import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        raise ValueError("no weights for you")

    def forward(self, x):
        return x
