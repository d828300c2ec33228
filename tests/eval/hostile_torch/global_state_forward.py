# Cheat: changes the float32 matmul precision inside forward (and leaves it changed).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, A, B):
        torch.set_float32_matmul_precision("medium")
        return torch.matmul(A, B)
