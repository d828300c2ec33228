"""`regrapht bench --kind torch` (a candidate set over torch tasks) and the refusal of a search on a
torch task, on the cpu target: eager reference, plain-torch candidates."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from regrapht.bench.candidates import CandidateSetError, find_candidates
from regrapht.cli import app
from regrapht.tasks import load_torch_suite

pytest.importorskip("torch")

runner = CliRunner()
HOSTILE = Path(__file__).resolve().parents[1] / "eval" / "hostile_torch"


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def benched(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("torch-bench")
    cands = root / "cands"
    (cands / "relu").mkdir(parents=True)
    shutil.copy(HOSTILE / "plain_torch_relu.py", cands / "relu.py")
    shutil.copy(HOSTILE / "wrong_values.py", cands / "relu" / "leaky.py")
    shutil.copy(HOSTILE / "returns_input_alias.py", cands / "relu" / "alias.py")
    out = root / "out"
    result = runner.invoke(app, ["bench", "--kind", "torch", "--split", "example", "--target", "cpu", "--candidates",
                                 str(cands), "--out", str(out), "--eval-budget", "0.2", "--eval-seeds", "1"])  # fmt: skip
    assert result.exit_code == 0, result.output
    return out, json.loads((out / "results.json").read_text())


def test_every_candidate_is_judged_with_its_verdict_and_speedup(benched: tuple[Path, dict]) -> None:
    _, results = benched
    assert results["schema"] == "regrapht.bench" and results["config"]["strategy"] == "candidates"
    [relu] = results["tasks"]
    by_file = {Path(s["candidate"]).name: s for s in relu["samples"]}
    assert by_file["relu.py"]["status"] == "correct"
    assert by_file["relu.py"]["speedups"]["eager"] > 0
    assert by_file["leaky.py"]["status"] == "wrong_answer" and by_file["leaky.py"]["speedups"] == {}
    assert by_file["alias.py"]["status"] == "integrity_violation"
    # The example tasks without a candidate are named, not counted as failures.
    assert results["missing"] == ["matmul", "softmax"]
    overall = results["metrics"]["overall"]
    assert overall["tasks"] == 1 and overall["samples"] == 3
    assert overall["correct_rate"] == pytest.approx(1 / 3)
    assert results["metrics"]["baselines"] == ["eager"]
    assert overall["speedup"]["eager"]["n_correct"] == 1


def test_report_renders_a_torch_bench_again(benched: tuple[Path, dict]) -> None:
    out, _ = benched
    (out / "report.html").unlink()
    result = runner.invoke(app, ["report", str(out)])
    assert result.exit_code == 0, result.output
    assert "candidates:" in (out / "report.html").read_text()


def test_a_candidate_named_for_no_task_is_refused(tmp_path: Path) -> None:
    (tmp_path / "rleu.py").write_text("x = 1\n")
    result = runner.invoke(app, ["bench", "--kind", "torch", "--split", "example", "--target", "cpu",
                                 "--candidates", str(tmp_path), "--out", str(tmp_path / "out")])  # fmt: skip
    assert result.exit_code == 2
    assert "rleu.py name(s) no selected task" in _flat(result.output)


def test_default_candidates_are_the_task_folders_own() -> None:
    suite = load_torch_suite(split="example")
    found = find_candidates(suite, None)
    assert set(found) == {"relu"}
    assert {p.name for p in found["relu"]} == {"cpp_relu.py", "triton_relu.py"}
    with pytest.raises(CandidateSetError, match="no such folder"):
        find_candidates(suite, Path("/nonexistent/candidates"))


def test_a_task_folder_without_candidates_is_a_task_without_candidates(tmp_path: Path) -> None:
    # an empty <task id>/ beside another task's candidate: that task is missing, not judged with no samples
    suite = load_torch_suite(split="example")
    shutil.copy(HOSTILE / "plain_torch_relu.py", tmp_path / "relu.py")
    (tmp_path / "softmax").mkdir()
    (tmp_path / "softmax" / "notes.txt").write_text("to do\n")
    assert find_candidates(suite, tmp_path) == {"relu": [tmp_path / "relu.py"]}


@pytest.mark.parametrize(
    "argv",
    [
        ["optimize", "relu", "--model", "offline", "--target", "cpu", "--budget", "2"],
        ["bench", "--kind", "torch", "--model", "offline", "--target", "cpu", "--split", "example", "--out", "unused"],
    ],
)
def test_a_search_on_torch_tasks_is_refused_with_the_reason(argv: list[str], tmp_path: Path) -> None:
    result = runner.invoke(app, argv[:-1] + [str(tmp_path / argv[-1])] if argv[0] == "bench" else argv)
    assert result.exit_code == 2, result.output
    text = _flat(result.output)
    assert "no search strategy can work on torch task" in text
    assert "regrapht bench --kind torch --candidates DIR" in text
    assert not (tmp_path / "unused").exists()


def test_bench_without_a_model_says_what_it_needs(tmp_path: Path) -> None:
    result = runner.invoke(app, ["bench", "--target", "cpu", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "--model is required" in _flat(result.output)


def test_the_search_api_refuses_a_torch_task_with_the_same_reason() -> None:
    from regrapht.search.budget import Budget
    from regrapht.search.session import SearchJob, run_searches
    from regrapht.search.strategy import make_strategy
    from regrapht.tasks import find_task

    with pytest.raises(ValueError, match="no search strategy can work on torch task relu"):
        run_searches([SearchJob(find_task("relu"), 0)], strategy=make_strategy("standard"), target="cpu", budget=Budget(1),
                     model=None, model_meta={}, evals=None)  # fmt: skip


def _bench_argv(cands: Path, out: Path, *extra: str) -> list[str]:
    return ["bench", "--kind", "torch", "--split", "example", "--target", "cpu", "--candidates", str(cands), "--out",
            str(out), "--eval-budget", "0.2", "--eval-seeds", "1", *extra]  # fmt: skip


def test_a_rerun_keeps_judged_samples_and_judges_only_what_changed(benched: tuple[Path, dict], tmp_path: Path) -> None:
    out, first = benched
    journal = out / "samples.jsonl"
    assert len(journal.read_text().splitlines()) == 3  # one line per candidate, written as judged
    cands = Path(first["config"]["model"]["identity"].removeprefix("candidates:"))
    again = runner.invoke(app, _bench_argv(cands, out))
    assert again.exit_code == 0, again.output
    assert "3 of 3 candidate(s) kept" in _flat(again.output)
    rerun = json.loads((out / "results.json").read_text())
    assert rerun["resumed"] == 3
    statuses = {Path(s["candidate"]).name: s["status"] for s in rerun["tasks"][0]["samples"]}
    assert statuses == {"relu.py": "correct", "leaky.py": "wrong_answer", "alias.py": "integrity_violation"}

    # A copy of the run folder: one candidate edited, the journal's last line cut mid-write.
    moved_cands, moved_out = tmp_path / "cands", tmp_path / "out"
    shutil.copytree(cands, moved_cands)
    moved_out.mkdir()
    lines = journal.read_text().splitlines()
    (moved_out / "samples.jsonl").write_text("\n".join(lines[:2]) + "\n" + lines[2][: len(lines[2]) // 2])
    leaky = moved_cands / "relu" / "leaky.py"
    leaky.write_text(leaky.read_text() + "\n# edited\n")
    changed = runner.invoke(app, _bench_argv(moved_cands, moved_out, "--json"))
    assert changed.exit_code == 0, changed.output
    results = json.loads((moved_out / "results.json").read_text())
    appended = [json.loads(x) for x in (moved_out / "samples.jsonl").read_text().splitlines()[3:]]
    # The journal's order is the judging order (relu/alias.py, relu/leaky.py, relu.py): alias.py is kept;
    # leaky.py changed and relu.py's line was cut, so both are judged again and appended.
    assert results["resumed"] == 1
    assert sorted(Path(x["sample"]["candidate"]).name for x in appended) == ["leaky.py", "relu.py"]
    statuses = {Path(s["candidate"]).name: s["status"] for s in results["tasks"][0]["samples"]}
    assert statuses == {"relu.py": "correct", "leaky.py": "wrong_answer", "alias.py": "integrity_violation"}


@pytest.mark.slow
def test_two_cpu_lanes_give_the_same_verdicts(benched: tuple[Path, dict], tmp_path: Path) -> None:
    _, first = benched
    cands = Path(first["config"]["model"]["identity"].removeprefix("candidates:"))
    result = runner.invoke(app, _bench_argv(cands, tmp_path / "out", "--lanes", "2"))
    assert result.exit_code == 0, result.output
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    statuses = {Path(s["candidate"]).name: s["status"] for s in results["tasks"][0]["samples"]}
    assert statuses == {"relu.py": "correct", "leaky.py": "wrong_answer", "alias.py": "integrity_violation"}


def test_lanes_on_a_gpu_and_ray_are_refused_for_torch(tmp_path: Path) -> None:
    base = ["bench", "--kind", "torch", "--split", "example", "--out", str(tmp_path / "o")]
    lanes = runner.invoke(app, [*base, "--target", "cuda", "--lanes", "2"])
    assert lanes.exit_code == 2 and "one candidate per GPU at a time" in _flat(lanes.output)
    ray = runner.invoke(app, [*base, "--target", "cpu", "--ray", "auto"])
    assert ray.exit_code == 2 and "drop --ray" in _flat(ray.output)


def test_a_gpu_named_twice_is_refused_for_torch(tmp_path: Path) -> None:
    result = runner.invoke(app, ["bench", "--kind", "torch", "--split", "example", "--target", "cuda", "--gpus", "0,0",
                                 "--out", str(tmp_path / "o")])  # fmt: skip
    assert result.exit_code == 2 and "names a GPU twice" in _flat(result.output)


def test_identical_candidates_are_samples_of_their_own(tmp_path: Path) -> None:
    from regrapht.bench.candidates import run_candidate_bench

    suite = load_torch_suite(split="example")
    (tmp_path / "relu").mkdir()
    for name in ("a.py", "b.py"):
        shutil.copy(HOSTILE / "plain_torch_relu.py", tmp_path / "relu" / name)
    found = find_candidates(suite, tmp_path)
    calls: list[int] = []

    def judged(items: list) -> list:
        calls.append(len(items))
        return [SimpleNamespace(status="wrong_answer", speedups={}, fingerprint={}, seconds={}, message="", reward=0.0,
                                integrity=[], compile={}) for _ in items]  # fmt: skip

    journal = tmp_path / "out" / "samples.jsonl"
    run_candidate_bench(suite, found, judged, target="cpu", source="t", split="example", baselines=["eager"], journal=journal)
    keys = [json.loads(line)["key"] for line in journal.read_text().splitlines()]
    assert len(keys) == 2 and len(set(keys)) == 2 and calls == [2]
    again = run_candidate_bench(suite, found, judged, target="cpu", source="t", split="example", baselines=["eager"],
                                journal=journal)  # fmt: skip
    assert again["resumed"] == 2 and calls == [2]
