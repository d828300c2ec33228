"""The spare torch worker (eval/torch_judge.py): the next candidate's process imports torch ahead of
its turn, in a scratch folder of its own, and is confined only when its job arrives."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

from regrapht.eval import EvalConfig, Evaluator, TimingConfig, torch_judge  # noqa: E402
from regrapht.eval.compile import default_cache_dir  # noqa: E402
from regrapht.tasks import find_task  # noqa: E402

HOSTILE = Path(__file__).parent / "hostile_torch"


def _config(**overrides) -> EvalConfig:
    config = EvalConfig(seeds=1, timing=True, timing_config=TimingConfig(budget_s=0.05, min_rounds=3, min_s=0.01),
                        static_screen=False, call_timeout_s=30.0, total_timeout_s=120.0, memory_limit_gib=4.0,
                        cache_dir=str(default_cache_dir()), secret=b"regrapht-torch-spare-tests")  # fmt: skip
    for key, value in overrides.items():
        setattr(config, key, value)
    return config


class _Watch:
    """The spares the judge starts and the pid each candidate's worker says hello from."""

    def __init__(self, judge: torch_judge.TorchJudge, monkeypatch: pytest.MonkeyPatch):
        self.spares: list[int] = []
        self.hellos: list[int] = []
        self.ref_hellos: list[int] = []
        self.ref_spares: list[int] = []
        real_spare, real_run = torch_judge.SpareWorker, judge._run

        def spare(*args, **kwargs):
            made = real_spare(*args, **kwargs)
            env = kwargs.get("env") or args[1]
            # a candidate's spare has its caches in its scratch folder; the reference's spare does not
            ours = str(judge.workdir) in env.get("TRITON_CACHE_DIR", "")
            (self.spares if ours else self.ref_spares).append(made.proc.pid)
            return made

        def run(job, folder, on_message, *rest):
            outcome = real_run(job, folder, on_message, *rest)
            if job["mode"] == "candidate" and outcome.last("hello"):
                self.hellos.append(outcome.last("hello")["pid"])
            if job["mode"] == "reference" and outcome.last("hello"):
                self.ref_hellos.append(outcome.last("hello")["pid"])
            return outcome

        monkeypatch.setattr(torch_judge, "SpareWorker", spare)
        monkeypatch.setattr(judge, "_run", run)


def test_the_next_candidate_runs_in_the_spare_started_ahead(monkeypatch) -> None:
    relu = find_task("relu")
    plain = (HOSTILE / "plain_torch_relu.py").read_text()
    with Evaluator(_config(torch_spares=1)) as evaluator:
        judge = evaluator.torch_judge()
        watch = _Watch(judge, monkeypatch)
        judge.spare_targets.add("cpu")  # as on cuda: a spare starts with the task's reference worker
        first = evaluator.evaluate(relu, plain, "cpu")
        assert first.status == "correct", first.message
        # the first candidate ran in the spare started beside the reference; its own start made the next
        assert len(watch.spares) == 2 and watch.hellos[0] == watch.spares[0]
        second = evaluator.evaluate(relu, plain + "# again\n", "cpu")
        assert second.status == "correct", second.message
        assert watch.hellos[1] == watch.spares[1] != watch.hellos[0]
        assert second.sandbox == first.sandbox | {"seconds": second.sandbox["seconds"]}  # confined alike


def test_spares_are_kept_topped_up_and_taken_oldest_first(monkeypatch) -> None:
    relu = find_task("relu")
    plain = (HOSTILE / "plain_torch_relu.py").read_text()
    with Evaluator(_config(torch_spares=2)) as evaluator:
        judge = evaluator.torch_judge()
        watch = _Watch(judge, monkeypatch)
        judge.spare_targets.add("cpu")
        assert evaluator.evaluate(relu, plain, "cpu").status == "correct"
        # two started beside the reference; the first candidate took the older, one more replaced it
        assert len(watch.spares) == 3 and watch.hellos[0] == watch.spares[0]
        assert evaluator.evaluate(relu, plain + "# again\n", "cpu").status == "correct"
        # the second candidate ran in the oldest spare left, and one more was started in its place
        assert watch.hellos[1] == watch.spares[1] and len(watch.spares) == 4
        assert [s[0].proc.pid for s in judge._spares] == watch.spares[2:]
        left = list(judge._spares)
    assert all(not s[0].alive() and not s[1].exists() for s in left)  # closing ended every untaken spare


def test_a_reference_runs_in_the_reference_spare_started_ahead(monkeypatch) -> None:
    plain = (HOSTILE / "plain_torch_relu.py").read_text()
    with Evaluator(_config(torch_spares=1)) as evaluator:
        judge = evaluator.torch_judge()
        watch = _Watch(judge, monkeypatch)
        judge.spare_targets.add("cpu")
        assert evaluator.evaluate(find_task("relu"), plain, "cpu").status == "correct"
        # the first reference took the reference spare started with it; the candidate's start made another
        assert watch.ref_hellos == watch.ref_spares[:1] and len(watch.ref_spares) == 2
        ref_spare = judge._ref_spare
        assert ref_spare is not None and ref_spare.alive()
        judge.reference(find_task("softmax"), "cpu")
        assert watch.ref_hellos[1] == ref_spare.proc.pid  # the second task's reference ran in it
        assert judge._ref_spare is None or judge._ref_spare.proc.pid != ref_spare.proc.pid
        last = judge._ref_spare
    assert last is None or not last.alive()  # closing ended it


def test_a_spare_is_confined_when_its_job_arrives(monkeypatch) -> None:
    relu = find_task("relu")
    with Evaluator(_config()) as evaluator:
        judge = evaluator.torch_judge()
        watch = _Watch(judge, monkeypatch)
        judge.spare_targets.add("cpu")
        evaluator.evaluate(relu, (HOSTILE / "plain_torch_relu.py").read_text(), "cpu")
        ev = evaluator.evaluate(relu, (HOSTILE / "writes_outside_scratch.py").read_text(), "cpu")
        assert watch.hellos[1] == watch.spares[1]
    if ev.sandbox.get("landlock") is None:
        pytest.skip(f"Landlock is unavailable here: {ev.sandbox.get('reason')}")
    assert ev.status == "integrity_violation" and "sandbox refused" in ev.message, ev.message


@pytest.mark.parametrize("why", ["turned off", "cpu target"])
def test_no_spare_when_turned_off_or_on_cpu(monkeypatch, why: str) -> None:
    relu = find_task("relu")
    with Evaluator(_config(spare_worker=why != "turned off")) as evaluator:
        judge = evaluator.torch_judge()
        watch = _Watch(judge, monkeypatch)
        if why == "turned off":
            judge.spare_targets.add("cpu")
        for tag in ("", "# 2\n"):
            assert evaluator.evaluate(relu, (HOSTILE / "plain_torch_relu.py").read_text() + tag, "cpu").status == "correct"
        assert watch.spares == [] and judge.spare_targets >= {"cuda"}


def test_closing_ends_an_untaken_spare(monkeypatch) -> None:
    relu = find_task("relu")
    with Evaluator(_config()) as evaluator:
        judge = evaluator.torch_judge()
        _Watch(judge, monkeypatch)
        judge.spare_targets.add("cpu")
        evaluator.evaluate(relu, (HOSTILE / "plain_torch_relu.py").read_text(), "cpu")
        spares = list(judge._spares)
        assert spares and all(s[0].alive() for s in spares)
    # closing the evaluator ended the spares that no candidate took, and removed their folders
    assert all(not s[0].alive() and not s[1].exists() for s in spares)


def _eager_only(**overrides) -> EvalConfig:
    return _config(torch_baselines=("eager",), **overrides)


def test_a_cuda_tasks_reference_runs_on_the_host_with_no_cuda_context(monkeypatch) -> None:
    """Its inputs are drawn and saved on the host either way and its float64 truth needs no GPU: the
    worker's job says cpu, so it opens no CUDA context (this machine has none to open: a job for the
    device would fail here)."""
    with Evaluator(_eager_only()) as evaluator:
        judge = evaluator.torch_judge()
        targets = []
        real = judge._run

        def run(job, *rest):
            targets.append((job["mode"], job["target"]))
            return real(job, *rest)

        monkeypatch.setattr(judge, "_run", run)
        ref = judge.reference(find_task("relu"), "cuda")
        assert targets == [("reference", "cpu")]
        assert set(ref.outputs) == {c["label"] for c in ref.cases} and not ref.notes
        assert sorted(p.name for p in ref.case_dir.iterdir()) == sorted(f"{c['label']}.pt" for c in ref.cases)


def test_a_reference_the_host_cannot_stand_in_for_runs_on_the_device(monkeypatch) -> None:
    """An op without float64 on the host (its truth would be the host's low-precision kernels, not
    the device's): nothing of the host's run is kept and the reference runs on the device."""
    with Evaluator(_eager_only()) as evaluator:
        judge = evaluator.torch_judge()
        targets, seen = [], []
        real = judge._run

        def run(job, folder, *rest):
            targets.append(job["target"])
            if job["target"] == "cpu":
                outcome = real(job, folder, *rest)
                for message in outcome.all("reference_case"):
                    message["note"] = "float64 reference unavailable (NotImplementedError: no float64 kernel)"
                return outcome
            seen.append(sorted(p.name for p in Path(job["case_dir"]).iterdir()))
            return real({**job, "target": "cpu"}, folder, *rest)  # the device, played by the host here

        monkeypatch.setattr(judge, "_run", run)
        ref = judge.reference(find_task("relu"), "cuda")
        assert targets == ["cpu", "cuda"] and seen == [[]]  # the device's run started from empty folders
        assert set(ref.outputs) == {c["label"] for c in ref.cases} and not ref.notes  # the device's run's, not the host's


def test_compiled_baselines_to_warm_keep_the_reference_on_the_device(monkeypatch) -> None:
    with Evaluator(_config(torch_baselines=("eager", "compile"))) as evaluator:
        judge = evaluator.torch_judge()
        targets = []
        monkeypatch.setattr(judge, "_warm_folder", lambda task, target: judge.workdir / "warm-never-sealed")

        def run(job, *rest):
            targets.append((job["target"], "warm" in job))
            raise RuntimeError("stop here")

        monkeypatch.setattr(judge, "_run", run)
        with pytest.raises(RuntimeError, match="stop here"):
            judge.reference(find_task("relu"), "cuda")
        assert targets == [("cuda", True)]
