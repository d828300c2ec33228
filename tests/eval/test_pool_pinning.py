"""Lanes pinned to their GPU, on a machine without one: a stand-in nvidia-smi (a process boundary)
lists two GPUs, and each lane's process sees its own alone, as its evaluator and workers would."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from regrapht.eval import toolchain
from regrapht.eval.devices import LaneSpecError, gpu_lanes, machine_name
from regrapht.eval.pool import DevicePool, runs_in_process
from tests.eval.conftest import quick_config

LISTING = """\
NVIDIA H100 80GB HBM3, 9.0, 580.159.04, 81559, 0, GPU-aaaa-0000
NVIDIA H100 80GB HBM3, 9.0, 580.159.04, 81559, 1, GPU-bbbb-1111
"""


def what_the_lane_sees(state) -> tuple[str, list[str], str]:
    return os.environ.get("CUDA_VISIBLE_DEVICES", ""), [g.uuid for g in toolchain.gpus()], toolchain.cuda_arch()


@pytest.fixture()
def two_gpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    fake = tmp_path / "bin" / "nvidia-smi"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\ncat <<'EOF'\n{LISTING}EOF\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.delenv("REGRAPHT_CUDA_ARCH", raising=False)
    toolchain.gpus.cache_clear()
    yield
    toolchain.gpus.cache_clear()


def test_the_host_listing_is_read_with_index_and_uuid(two_gpus, monkeypatch):
    assert [(g.index, g.uuid) for g in toolchain.gpus()] == [(0, "GPU-aaaa-0000"), (1, "GPU-bbbb-1111")]
    assert machine_name("cuda") == "gpu:NVIDIA H100 80GB HBM3"
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    toolchain.gpus.cache_clear()
    [only] = toolchain.gpus()
    assert only.uuid == "GPU-bbbb-1111"
    with pytest.raises(LaneSpecError, match=r"names GPU 1, but this process sees 1 GPU\(s\)"):
        gpu_lanes("0,1")


def test_each_lane_process_sees_its_gpu_alone(two_gpus, build_cache):
    lanes = gpu_lanes(None)
    assert not runs_in_process(lanes) and runs_in_process(lanes[:1]) and not runs_in_process(lanes[1:])
    with DevicePool.local(quick_config(build_cache), lanes) as pool:
        seen = [lane.call(what_the_lane_sees) for lane in pool.lanes]
        assert pool.machine("cuda") == "gpu:NVIDIA H100 80GB HBM3"
    assert seen == [
        ("GPU-aaaa-0000", ["GPU-aaaa-0000"], "sm_90a"),
        ("GPU-bbbb-1111", ["GPU-bbbb-1111"], "sm_90a"),
    ]
