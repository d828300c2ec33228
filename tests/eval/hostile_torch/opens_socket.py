# Opens a TCP socket (to send its inputs away, or to fetch an answer). The sandbox must refuse it.
import socket

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.settimeout(0.2)
            s.connect_ex(("127.0.0.1", 9))
        return torch.relu(x)
