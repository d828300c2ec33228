"""Prompt templates: every shipped template renders, versions are read, missing variables fail."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from regrapht.llm import SamplingParams, TemplateError, TemplateLibrary, load_template

TORCH_TASK = {
    "name": "relu",
    "title": "ReLU",
    "description": "y = max(x, 0) elementwise.",
    "reference": "import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return torch.relu(x)\n",
    "dtype": "float32",
    "test_sizes": [{"n": 7}, {"n": 1000}],
}
TASK = {
    "name": "saxpy",
    "description": "Compute y = a * x + y for n floats.",
    "function_name": "saxpy",
    "source": "void saxpy(int n, float a, const float* x, float* y) {\n  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];\n}\n",
}
METHOD = {"name": "shared-memory tiling", "definition": "Stage reused data in shared memory."}

VARIABLES: dict[str, dict[str, Any]] = {
    "standard": {"task": TASK, "target": "cuda"},
    "cot": {"task": TASK, "target": "cuda"},
    "rag": {
        "task": TASK,
        "target": "cuda",
        "examples": [{"description": "vector add", "before": "B0", "after": "A0"}],
    },
    "refine": {
        "task": TASK,
        "target": "cuda",
        "code": "PREV",
        "feedback": {"status": "compile_error", "details": "error: 'idx' undeclared"},
    },
    "contrastive": {
        "task": TASK,
        "target": "cuda",
        "variants": [
            {"code": "V1", "status": "correct", "speedup": 1.5},
            {"code": "V2", "status": "wrong_answer", "speedup": None},
        ],
    },
    "optimize_step": {
        "task": TASK,
        "target": "cuda",
        "current_code": "CURRENT",
        "method": METHOD,
        "examples": [{"before": "EB", "after": "EA", "think": "ET", "detail": "ED"}],
        "failures": [],
    },
    "trajectory_generate": {"task": TASK, "target": "cuda", "methods": [METHOD], "max_steps": 4},
    "relabel": {"methods": [METHOD], "steps": [{"method": "Tiling", "detail": "tiles in smem"}]},
    "rl_task": {"task": TASK, "target": "cuda", "sizes": {"n": 1000}},
    "rl_torch_task": {"task": TORCH_TASK, "target": "cuda", "language": "triton", "sizes": {"n": 4096}},
    "rl_torch_contrastive": {
        "task": TORCH_TASK,
        "target": "cuda",
        "language": "any",
        "sizes": {"n": 4096},
        "baseline": "PyTorch eager",
        "exemplars": [
            {"code": "W1", "status": "compile_error", "speedup": None, "reward": -1.0, "sizes": {"n": 900}},
            {"code": "W2", "status": "correct", "speedup": 1.2, "reward": 1.2, "sizes": {"n": 800}},
        ],
    },
    "rl_contrastive": {
        "task": TASK,
        "target": "cuda",
        "sizes": {"n": 1000},
        "baseline": "the serial reference",
        "exemplars": [
            {"code": "V1", "status": "wrong_answer", "speedup": None, "reward": -1.0, "sizes": {"n": 900}},
            {"code": "V2", "status": "correct", "speedup": 1.5, "reward": 1.5, "sizes": {"n": 800}},
        ],
    },
}


def test_every_shipped_template_is_covered() -> None:
    assert set(TemplateLibrary().names()) == set(VARIABLES)


@pytest.mark.parametrize("name", sorted(VARIABLES))
def test_renders_system_and_user_messages(name: str) -> None:
    template = load_template(name)
    assert template.version == 1 and template.id == f"{name}@1"
    messages = template.render(**VARIABLES[name])
    assert [m["role"] for m in messages] == ["system", "user"]
    user = messages[1]["content"]
    assert "\n\n\n" not in user and user == user.strip()
    assert template.variables() == set(VARIABLES[name])
    # Every variable the template reads is required: dropping any one is an error naming it.
    for missing in VARIABLES[name]:
        partial = {k: v for k, v in VARIABLES[name].items() if k != missing}
        with pytest.raises(TemplateError, match=rf"{name}@1.*'{missing}' is undefined"):
            template.render(**partial)


def test_content_reaches_the_prompt() -> None:
    user = load_template("optimize_step").render(**VARIABLES["optimize_step"])[1]["content"]
    for piece in (
        "CURRENT",
        "shared-memory tiling",
        "Stage reused data",
        "EB",
        "EA",
        "ET",
        "ED",
        "```cuda",
        "`saxpy`",
    ):
        assert piece in user
    refine = load_template("refine").render(**VARIABLES["refine"])[1]["content"]
    assert "It does not compile" in refine and "'idx' undeclared" in refine
    contrastive = load_template("contrastive").render(**VARIABLES["contrastive"])[1]["content"]
    assert "1.50x speedup" in contrastive and "Variant 2: wrong_answer\n" in contrastive


def test_cpu_target_changes_language_and_fences() -> None:
    user = load_template("standard").render(task=TASK, target="cpu")[1]["content"]
    assert "OpenMP" in user and "```cpp block" in user and "device memory" not in user


def test_unknown_target_is_an_error() -> None:
    with pytest.raises(TemplateError, match="unknown target gpu"):
        load_template("standard").render(task=TASK, target="gpu")


def test_missing_nested_field_is_named() -> None:
    task = {k: v for k, v in TASK.items() if k != "function_name"}
    with pytest.raises(TemplateError, match="function_name"):
        load_template("standard").render(task=task, target="cuda")


def test_request_carries_the_template_id() -> None:
    request = load_template("cot").request(VARIABLES["cot"], SamplingParams(max_tokens=99), n=3)
    assert request.template == "cot@1" and request.n == 3 and request.params.max_tokens == 99


def test_user_directory_overrides_and_front_matter_is_checked(tmp_path: Path) -> None:
    (tmp_path / "standard.j2").write_text(
        "{# template: standard v7 #}\n{% block user %}Port {{ task.name }} to {{ target }}.{% endblock %}\n"
    )
    (tmp_path / "nameless.j2").write_text("{% block user %}hi{% endblock %}\n")
    (tmp_path / "mislabeled.j2").write_text("{# template: other v1 #}\n{% block user %}hi{% endblock %}\n")
    library = TemplateLibrary([tmp_path])
    custom = library.get("standard")
    assert custom.id == "standard@7"
    assert custom.render(task=TASK, target="cuda") == [{"role": "user", "content": "Port saxpy to cuda."}]
    with pytest.raises(TemplateError, match="first line must be the front matter"):
        library.get("nameless")
    with pytest.raises(TemplateError, match="names 'other' but the file is mislabeled.j2"):
        library.get("mislabeled")
    with pytest.raises(TemplateError, match="no template 'nope'; available: .*standard"):
        library.get("nope")
