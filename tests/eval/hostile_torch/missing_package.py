import torch.nn as nn
import triton_but_not_installed_anywhere  # noqa: F401


class ModelNew(nn.Module):
    def forward(self, x):
        return x
