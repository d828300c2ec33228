# Computes relu honestly but leaves a file outside its scratch folder, where a later candidate (or
# the user) would find it. The sandbox must refuse the write, and no file may remain.
from pathlib import Path

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        (Path(__file__).resolve().parent.parent / "planted-by-a-candidate.txt").write_text("seen you")
        return torch.relu(x)
