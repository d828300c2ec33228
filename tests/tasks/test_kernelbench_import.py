"""`regrapht tasks import kernelbench` on problems written here in KernelBench's layout, good and malformed."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from regrapht.tasks import kb_fit, kb_source, kernelbench, torch_schema

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

pytest.importorskip("torch")

RELU = """
import torch
import torch.nn as nn

class Model(nn.Module):
    \"\"\"Applies ReLU.\"\"\"
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)

batch_size = 64
dim = 4096

def get_inputs():
    return [torch.randn(batch_size, dim)]

def get_init_inputs():
    return []
"""

MATMUL_T = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, a, b):
        return torch.matmul(a.T, b)

M = 256
K = 128 * 2
N = 512

def get_inputs():
    return [torch.rand(K, M), torch.rand(K, N)]

def get_init_inputs():
    return []
"""

CONV_BIAS = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, cin, cout, k, bias_shape):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, stride=2)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        return torch.relu(self.conv(x)) + self.bias

batch_size = 8
in_channels = 16
out_channels = 32
height = width = 64
kernel_size = 3
bias_shape = (out_channels, 1, 1)

def get_inputs():
    return [torch.rand(batch_size, in_channels, height, width)]

def get_init_inputs():
    return [in_channels, out_channels, kernel_size, bias_shape]
"""

HANGS = RELU.replace("return torch.relu(x)", "while True:\n            pass")
RAISES = RELU.replace("return torch.relu(x)", "raise ValueError('broken reference')")
CANCELS = RELU.replace("return torch.relu(x)", "return (x + 1e4) - 1e4")  # fp32 loses x's low bits
RANDOM_FORWARD = RELU.replace("return torch.relu(x)", "return x + torch.randn_like(x)")
MALFORMED = {
    "syntax.py": RELU.replace("def forward(self, x):", "def forward(self, x)"),
    "no_model.py": RELU.replace("class Model(", "class Net("),
    "no_inputs.py": RELU.replace("def get_inputs():", "def make_inputs():"),
    "no_sizes.py": RELU.replace("batch_size = 64\ndim = 4096\n", "").replace("batch_size, dim", "64, 4096"),
}


def _write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text))
    return folder


def _fast_rules() -> dict:
    rules = kernelbench.load_rules()
    rules["sizes"]["trial_timeout_s"] = 3
    rules["sizes"]["trace_timeout_s"] = 10
    return rules


# reading sources without running them ---------------------------------------------------------------


def test_sizes_are_the_integer_constants_nothing_reads_at_import() -> None:
    src = kb_source.read_source(CONV_BIAS + "\nunused = 5\n")
    assert src.ints == {
        "batch_size": 8,
        "in_channels": 16,
        "out_channels": 32,
        "height": 64,
        "width": 64,
        "kernel_size": 3,
        "unused": 5,
    }
    assert src.pinned == {"out_channels": "bias_shape"}  # bias_shape is computed from it at import
    assert src.sizes == ["batch_size", "in_channels", "height", "width", "kernel_size"]
    assert src.unused == ["unused"]
    assert src.others == {"bias_shape": "(out_channels, 1, 1)"}
    assert kb_source.read_source(MATMUL_T).ints["K"] == 256  # a literal product is a size
    tied = kb_source.read_source(RELU + "\nwidth = dim\nlow = -1\n")
    assert tied.ints["width"] == 4096 and tied.pinned["dim"] == "width"  # width = dim reads dim at import
    assert tied.others["low"] == "-1"  # a negative constant is a bound, not an extent


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("syntax.py", "syntax error at line 10"),
        ("no_model.py", "no class Model"),
        ("no_inputs.py", "no function get_inputs()"),
    ],
)
def test_malformed_sources_are_named(name: str, message: str) -> None:
    with pytest.raises(kb_source.SourceProblem, match=message.replace("(", r"\(").replace(")", r"\)")):
        kb_source.read_source(textwrap.dedent(MALFORMED[name]))


def test_names_ids_and_categories() -> None:
    rules = kernelbench.load_rules()
    assert kb_source.task_id("19_ReLU", 1) == "kb_l1_19_relu"
    assert kb_source.title("41_Max_Pooling_1D") == "Max Pooling 1D"
    cases = {
        ("19_ReLU", 1): "activation",
        ("5_Matrix_scalar_multiplication", 1): "elementwise",
        ("2_Standard_matrix_multiplication_", 1): "matmul",
        ("41_Max_Pooling_1D", 1): "pooling",
        ("94_MSELoss", 1): "loss",
        ("89_cumsum", 1): "scan",
        ("47_Sum_reduction_over_a_dimension", 1): "reduction",
        ("12_Gemm_Multiply_LeakyReLU", 2): "fusion",
        ("44_MiniGPTBlock", 3): "model",
        ("31_VisionAttention", 3): "attention",
    }
    for (stem, level), expected in cases.items():
        assert kernelbench._category(stem, level, [], rules)[0] == expected, stem
    assert kernelbench._category("7_custom", 1, ["convolution"], rules) == ("convolution", None)
    assert kernelbench._category("7_custom", 1, ["add"], rules)[1]  # said, not guessed silently


# fitting expressions ---------------------------------------------------------------------------------


def test_fit_dim_finds_constants_convolution_extents_and_flattens() -> None:
    points = [{"h": h, "c": c} for h, c in ((64, 8), (128, 8), (65, 8), (67, 8), (64, 16), (64, 9))]
    assert kb_fit.fit_dim(points, [3] * 6, ["h", "c"]) == "3"
    assert kb_fit.fit_dim(points, [p["h"] - 2 for p in points], ["h", "c"]) == "h - 2"
    strided = [(p["h"] - 3) // 2 + 1 for p in points]  # a stride-2 3x3 convolution without padding
    fitted = kb_fit.fit_dim(points, strided, ["h", "c"])
    assert all(kb_fit.holds(fitted, [p], [v]) for p, v in zip(points, strided))
    assert kb_fit.fit_dim(points, [p["h"] * p["c"] for p in points], ["h", "c"]) == "h*c"
    assert kb_fit.fit_dim(points, [p["h"] ** 2 + p["c"] for p in points], ["h", "c"]) is None


def test_fit_flops_reads_exponents_from_one_size_at_a_time() -> None:
    bench = {"m": 64, "n": 32, "k": 16}
    points = [bench] + [dict(bench, **{name: v}) for name in bench for v in (2 * bench[name], bench[name] + 1)]
    counts = [2 * p["m"] * p["n"] * p["k"] for p in points]
    assert kb_fit.fit_flops(points, counts, bench, list(bench), []) == "2*m*n*k"
    squared = [4 * p["m"] * p["n"] * p["n"] for p in points]
    text = kb_fit.fit_flops(points, squared, bench, list(bench), [])
    assert kb_fit.holds(text, points, squared)


# the schema -----------------------------------------------------------------------------------------


def test_schema_check_and_writer_round_trip() -> None:
    data = {
        "kind": "torch",
        "title": "ReLU",
        "category": "activation",
        "difficulty": "easy",
        "split": "train",
        "level": 1,
        "dtype": "float32",
        "allow_tf32": False,
        "description": 'y = max(x, 0) with "quotes"',
        "tags": [],
        "sizes": {"test": [{"n": 1}, {"n": 17}], "bench": {"n": 1 << 24}},
        "tolerance": {"rtol": 1e-5, "atol": 1e-6, "outputs": [{"index": 0, "rtol": 1e-4, "atol": 1e-4}]},
        "roofline": {"bytes": "8*n", "flops": "n", "compute": "fp32"},
    }
    assert torch_schema.check(data, "n = 16\n") == []
    assert tomllib.loads(torch_schema.dumps(data)) == data
    bad = dict(data, category="magic", level=7, sizes={"test": [{"n": 1}, {"m": 2}], "bench": {"n": -1}})
    bad["roofline"] = {"bytes": "8*q", "compute": "fp7"}
    problems = "\n".join(torch_schema.check(bad, "n = 16\n"))
    for fragment in (
        "category: 'magic'",
        "level: expected",
        "sizes.test[1]: names ['m'] differ",
        "sizes.test[1].m: reference.py has no module-level integer constant 'm'",
        "sizes.bench.n: expected a non-negative integer",
        "roofline.compute: 'fp7'",
        "roofline.bytes: expression '8*q' uses unknown size 'q'",
    ):
        assert fragment in problems
    assert "missing field 'tolerance'" in torch_schema.check({k: v for k, v in data.items() if k != "tolerance"})


# the whole import, with the reference run in child processes (a torch start-up each: slow) ------------


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, kernelbench.Outcome]]:
    root = tmp_path_factory.mktemp("kb")
    _write(root / "KernelBench" / "level1", {"19_ReLU.py": RELU, "18_Matmul_T.py": MATMUL_T, "90_hangs.py": HANGS, "7_add.py": CANCELS})
    _write(root / "KernelBench" / "level2", {"1_Conv_Bias.py": CONV_BIAS, "2_raises.py": RAISES})
    _write(root / "KernelBench" / "level2", {"3_random.py": RANDOM_FORWARD} | MALFORMED)
    out = root / "tasks"
    outcomes = kernelbench.import_kernelbench(root, out, levels=[1, 2], timeout_s=60, jobs=3, rules=_fast_rules())
    return out, {o.source: o for o in outcomes}


@pytest.mark.slow
def test_good_problems_become_tasks_that_keep_to_the_schema(imported) -> None:
    out, outcomes = imported
    for source in ("level1/19_ReLU.py", "level1/18_Matmul_T.py", "level2/1_Conv_Bias.py"):
        outcome = outcomes[source]
        assert outcome.status == "converted", outcome
        folder = out / outcome.task_id
        data = tomllib.loads((folder / "task.toml").read_text())
        reference = (folder / "reference.py").read_text()
        assert torch_schema.check(data, reference) == []
        assert data["source"] == f"kernelbench {source}"
        for size in data["sizes"]["test"]:  # small, and verified to run
            assert all(v <= data["sizes"]["bench"][k] for k, v in size.items())

    relu = tomllib.loads((out / "kb_l1_19_relu" / "task.toml").read_text())
    assert (relu["category"], relu["difficulty"], relu["level"], relu["dtype"]) == ("activation", "easy", 1, "float32")
    assert relu["sizes"]["test"][0] == {"batch_size": 1, "dim": 3}
    assert relu["sizes"]["bench"] == {"batch_size": 64, "dim": 4096}
    assert relu["roofline"] == {"bytes": "8*batch_size*dim", "flops": "batch_size*dim", "compute": "fp32"}
    assert relu["tolerance"] == {"rtol": 1e-5, "atol": 1e-6}

    matmul = tomllib.loads((out / "kb_l1_18_matmul_t" / "task.toml").read_text())
    assert matmul["category"] == "matmul"
    assert matmul["roofline"]["flops"] == "2*M*K*N"
    assert matmul["roofline"]["bytes"] == "4*K*M + 4*K*N + 4*M*N"
    assert any(all(v % 2 for v in size.values()) for size in matmul["sizes"]["test"])  # odd extents

    conv = outcomes["level2/1_Conv_Bias.py"]
    assert conv.category == "fusion"
    assert "sizes.out_channels: fixed at 32, since bias_shape reads it when the module loads" in conv.not_inferred
    conv_toml = tomllib.loads((out / conv.task_id / "task.toml").read_text())
    assert "out_channels" not in conv_toml["sizes"]["bench"]
    # the stride-2 output extent, (h - 3)//2 + 1, is fitted; the expression holds at every test size
    assert "roofline" in conv_toml and "flops" in conv_toml["roofline"]

    # the fp32 rule (rtol 1e-5, atol 1e-6) is far below what this reference itself loses against a
    # float64 run, so an exact candidate would fail it: the tolerance grows, and the report says so
    cancels = outcomes["level1/7_add.py"]
    assert cancels.category == "elementwise"
    (note,) = [n for n in cancels.not_inferred if n.startswith("tolerance:")]
    assert "float32 pointwise rule is" in note
    loose = tomllib.loads((out / cancels.task_id / "task.toml").read_text())["tolerance"]
    assert loose["atol"] > 1e-4


@pytest.mark.slow
def test_problems_that_cannot_be_converted_are_listed_with_the_reason(imported) -> None:
    out, outcomes = imported
    reasons = {source: o.reason for source, o in outcomes.items() if o.status == "failed"}
    assert reasons["level2/syntax.py"].startswith("syntax error at line")
    assert reasons["level2/no_model.py"] == "no class Model at module level"
    assert reasons["level2/no_inputs.py"] == "no function get_inputs() at module level"
    assert reasons["level2/no_sizes.py"].startswith("no module-level integer size constant")
    assert "no result within 3 s" in reasons["level1/90_hangs.py"]
    assert "ValueError: broken reference" in reasons["level2/2_raises.py"]
    assert reasons["level2/3_random.py"].startswith("forward is not deterministic")
    assert len(reasons) == 7
    report = json.loads((out / kernelbench.REPORT).read_text())
    assert {r["source"] for r in report} == set(outcomes)


@pytest.mark.slow
def test_reimport_overwrites_only_what_it_wrote(tmp_path: Path) -> None:
    problems = _write(tmp_path / "mine", {"relu.py": RELU})  # a user's own folder, outside any levelN
    out = tmp_path / "tasks"
    (first,) = kernelbench.import_kernelbench(problems, out, default_level=2, rules=_fast_rules())
    assert (first.status, first.task_id, first.level) == ("converted", "kb_relu", 2)
    assert first.not_inferred == ["level: the file is in no levelN folder; set to 2"]
    folder = out / "kb_relu"
    (folder / "solution.py").write_text("# mine\n")
    (second,) = kernelbench.import_kernelbench(problems, out, default_level=2, rules=_fast_rules())
    assert second.status == "unchanged"
    edited = (folder / "task.toml").read_text().replace('split = "test"', 'split = "train"')
    (folder / "task.toml").write_text(edited)
    (third,) = kernelbench.import_kernelbench(problems, out, default_level=2, rules=_fast_rules())
    assert third.status == "kept" and "task.toml changed since the last import" in third.reason
    assert (folder / "task.toml").read_text() == edited
    assert (folder / "solution.py").read_text() == "# mine\n"


# the command ------------------------------------------------------------------------------------------


def test_command_reports_problems_it_cannot_convert_and_fails(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from regrapht.cli import app

    _write(tmp_path / "level1", {"1_syntax.py": MALFORMED["syntax.py"], "2_no_model.py": MALFORMED["no_model.py"]})
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["tasks", "import", "kernelbench", str(tmp_path), "--out", str(out), "--json"])
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert [(r["source"], r["status"]) for r in report] == [("level1/1_syntax.py", "failed"), ("level1/2_no_model.py", "failed")]
    assert report[1]["reason"] == "no class Model at module level"
    assert json.loads((out / kernelbench.REPORT).read_text()) == report


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--levels", "one"], "expected levels such as 1,2,3"),
        (["--split", "dev"], "--split must be train, test or example"),
    ],
)
def test_command_rejects_bad_options(tmp_path: Path, args: list[str], message: str) -> None:
    from typer.testing import CliRunner

    from regrapht.cli import app

    _write(tmp_path / "level1", {"1_relu.py": RELU})
    result = CliRunner().invoke(app, ["tasks", "import", "kernelbench", str(tmp_path), *args])
    assert result.exit_code == 2
    assert message in " ".join(result.output.split())


def test_command_names_a_missing_folder(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from regrapht.cli import app

    result = CliRunner().invoke(app, ["tasks", "import", "kernelbench", str(tmp_path / "nope")])
    assert result.exit_code == 2 and "not a folder" in " ".join(result.output.split())
    empty = CliRunner().invoke(app, ["tasks", "import", "kernelbench", str(tmp_path)])
    assert empty.exit_code == 2 and "no problem files" in " ".join(empty.output.split())
