"""Ray across hosts, on the cpu target: a local cluster of two nodes, one CPU lane each; the records
come back in order with one evaluator's verdicts, and a node removed mid-run loses nothing."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

import regrapht
from regrapht.eval import Evaluator
from regrapht.eval.ray_pool import TaskFiles, ray_pool
from regrapht.tasks import load_task
from tests.eval.conftest import HERE, candidate, quick_config

MIX = ["correct.cpp", "wrong.cpp", "syntax_error.cpp", "segfault.cpp", "partial.cpp"]
EXPECTED = ["correct", "wrong_answer", "compile_error", "runtime_error", "wrong_answer"]


def test_a_task_lands_from_its_files(tmp_path):
    task = load_task(HERE / "tasks" / "vec_scale")
    files = TaskFiles.of(task)
    landed = files.land(tmp_path)
    assert landed.id == task.id and landed.content_hash() == task.content_hash()
    assert landed.root.parent.name == task.content_hash()
    assert files.land(tmp_path).root == landed.root  # once per node


@pytest.fixture(scope="module")
def cluster():
    ray = pytest.importorskip("ray", reason="Ray is an optional extra: pip install 'regrapht[ray]'")
    from ray.cluster_utils import Cluster

    # The nodes' workers import regrapht from where this test does, whatever their working folder.
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(Path(regrapht.__file__).parent.parent), *filter(None, [old])])
    small = {"object_store_memory": 80 << 20}
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, **small})
    nodes = [c.add_node(num_cpus=1, **small) for _ in range(2)]
    c.wait_for_nodes()
    ray.init(address=c.address, log_to_driver=False)
    try:
        yield c, nodes
    finally:
        ray.shutdown()
        c.shutdown()
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


@pytest.mark.slow
def test_ray_lanes_on_two_nodes_and_a_node_removed_mid_run(cluster, tmp_path):
    c, nodes = cluster
    tasks = [load_task(HERE / "tasks" / "vec_scale"), load_task(HERE / "tasks" / "vec_scale_host")]
    items = [(task, candidate(name), "cpu") for name in MIX for task in tasks]
    config = quick_config(tmp_path / "cache", timing=False, static_screen=False, symbol_screen=False)
    with Evaluator(config) as one:
        alone = one.evaluate_many(items)
    pool = ray_pool(config, c.address, "cpu")
    try:
        assert len(pool.lanes) == 2 and len({lane.node_id for lane in pool.lanes}) == 2
        first = pool.evaluate_many(items)
        assert [r.verdict_signature() for r in first] == [r.verdict_signature() for r in alone]
        assert {r.fingerprint["lane"] for r in first} == {lane.name for lane in pool.lanes}

        # Again, with one node taken away while its lane is evaluating (other tasks: cold on both).
        more = [load_task(HERE / "tasks" / "argmax_any"), load_task(HERE / "tasks" / "sin_series")]
        again = [(task, source, target) for task, source, target in items] + [
            (task, candidate("correct.cpp"), "cpu") for task in more
        ]
        victim = pool.lanes[0]
        done: list = []
        runner = threading.Thread(target=lambda: done.append(pool.evaluate_many(again)), daemon=True)
        runner.start()
        deadline = time.monotonic() + 120
        while not victim.busy and time.monotonic() < deadline:
            time.sleep(0.01)
        assert victim.busy
        c.remove_node(next(n for n in nodes if n.node_id == victim.node_id))
        runner.join(timeout=600)
        [results] = done
        assert len(pool.deaths) == 1 and "Ray actor died" in pool.deaths[0]
        survivor = pool.lanes[1].name
        assert [r.fingerprint["lane"] for r in results] == [survivor] * len(again)
        assert [r.status for r in results[: len(items)]] == [s for s in EXPECTED for _ in range(2)]
        assert [r.task_id for r in results] == [task.id for task, _, _ in again]
    finally:
        pool.close()


@pytest.mark.slow
def test_bench_with_ray_writes_the_lanes_records_in_the_drivers_store(cluster, tmp_path):
    import json
    import sqlite3

    from typer.testing import CliRunner

    from regrapht.cli import app

    c, _ = cluster
    out = tmp_path / "bench"
    result = CliRunner().invoke(
        app,
        ["bench", "-m", "offline", "-t", "cpu", "--split", "example", "-s", "walk", "--tasks", "saxpy",
         "-b", "1", "--eval-budget", "0.05", "-o", str(out), "--ray", c.address],
    )
    assert result.exit_code == 0, result.output
    with sqlite3.connect(out / "bench.sqlite") as db:
        records = [json.loads(r) for (r,) in db.execute("SELECT record_json FROM search_evaluations")]
    assert records and all("/cpu" in r["fingerprint"]["lane"] for r in records)
