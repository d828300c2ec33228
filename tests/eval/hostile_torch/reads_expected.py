# Reads the judge's float64 expected outputs from the evaluator's scratch (the reference's folder lies
# beside the candidate's: its name is secret, so it lists the folder) and returns the one whose shape
# matches.
# Unconfined it is judged correct; the sandbox must refuse the read.
import os
from pathlib import Path

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        scratch = Path(__file__).resolve().parent.parent
        for name in os.listdir(scratch):  # Path.glob would hide the refusal
            folder = scratch / name / "expected"
            if name.startswith("ref-") and folder.exists():
                for i in range(8):
                    (want,) = torch.load(folder / f"s{i}-seed0.pt", weights_only=True)
                    if want.shape == x.shape:
                        return want.to(x.dtype)
        return torch.relu(x)
