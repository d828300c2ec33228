# Hostile (cuda): an honest Triton ReLU whose forward busy-waits ~200 us on the host before its
# launch. Behind the timing's 300 us hold that host work is in no event time: host work of that kind
# (a part of the result computed on the CPU, say) would be free. The dispatch gate counts what its
# dispatch takes beyond an honest launch path's. Uses the host clock: only for tests with the source
# screen off (the screen refuses a candidate that touches the timer).
import time

import torch
import torch.nn as nn
import triton
import triton.language as tl

HOST_WORK_S = 200e-6


@triton.jit
def _relu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.where(x > 0, x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        until = time.perf_counter() + HOST_WORK_S
        while time.perf_counter() < until:
            pass
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n:
            _relu[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
