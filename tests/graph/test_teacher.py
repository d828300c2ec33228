from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from regrapht.cli import app
from regrapht.graph.model import INITIAL
from regrapht.graph.store import load_graph
from regrapht.graph.trajectory import read_trajectories
from tests.chat_server import ScriptedChatServer

FIXTURE = Path(__file__).parent / "fixtures" / "saxpy_openmp.jsonl"


def teacher_answer() -> str:
    (_, authored), _ = read_trajectories(FIXTURE)
    steps = [s.to_dict() for s in authored.steps]
    return "Here is my plan.\n```json\n" + json.dumps(steps, indent=2) + "\n```\n"


def test_teacher_trajectories_enter_the_graph(tmp_path: Path) -> None:
    out, saved = tmp_path / "g.json", tmp_path / "teacher.jsonl"
    with ScriptedChatServer() as server:
        server.answers.extend([teacher_answer(), "I cannot do this."])
        r = CliRunner().invoke(
            app,
            [
                "graph",
                "build",
                "--teacher",
                f"openai:teacher@{server.url}",
                "--task",
                "saxpy",
                "--samples",
                "2",
                "--target",
                "cpu",
                "--out",
                str(out),
                "--no-verify",
                "--no-embed",
                "--save-trajectories",
                str(saved),
            ],
        )
        assert r.exit_code == 0, r.output
        prompt = server.prompts[0]
        assert "saxpy" in prompt[-1]["content"] and "simd_vectorization:" in prompt[-1]["content"]
        assert "OpenMP" in prompt[0]["content"]
    text = " ".join(r.output.split())
    assert "1 usable trajectories of 2" in text and "no usable trajectory" in text
    g = load_graph(out)
    assert set(g.edges) == {(INITIAL, "parallelize"), ("parallelize", "simd_vectorization")}
    (x,) = g.edge(INITIAL, "parallelize").examples
    assert (
        x.author == "openai:teacher" and "for (int i = 0; i < n; ++i)" in x.before
    )  # the task's serial code
    (t,) = [t for _, t in read_trajectories(saved)]
    assert t.task == "saxpy" and t.start == "serial" and len(t.steps) == 2
