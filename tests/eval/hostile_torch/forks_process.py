# Starts a process (to run work outside the timed call, or a shell). On the cpu target without a
# torch.compile baseline nothing honest creates processes: the sandbox kills the worker.
import os

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        return torch.relu(x)
