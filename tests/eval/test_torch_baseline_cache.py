"""The compiled baselines' warm caches (eval/torch_baseline_cache.py): the reference's worker warms
them once per task and machine, each candidate gets a checked copy, and no candidate can write what
a later baseline loads."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from regrapht.eval import torch_baseline_cache as tbc


def _warm(root: Path) -> dict[str, str]:
    (root / "inductor" / "fxgraph" / "ab" / "KEY").mkdir(parents=True)
    (root / "inductor" / "fxgraph" / "ab" / "KEY" / "entry").write_bytes(b"compiled graph")
    (root / "inductor" / "xy").mkdir()
    (root / "inductor" / "xy" / "cxy.py").write_text("def call(args): ...\n")
    (root / "inductor" / "locks").mkdir()
    (root / "inductor" / "locks" / "cxy.lock").write_text("")
    (root / "triton" / "HASH").mkdir(parents=True)
    (root / "triton" / "HASH" / "kernel.cubin").write_bytes(b"\x7fELF")
    return tbc.seal(root)


def _seeded(tmp_path: Path) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    files = _warm(tmp_path / "warm")
    caches = {c: tmp_path / "scratch" / c for c in tbc.CACHE_ENV}
    tbc.seed(tmp_path / "warm", files, caches)
    dirs = {c: str(p) for c, p in caches.items()}
    environ = {var: dirs[c] for c, var in tbc.CACHE_ENV.items()}
    return files, dirs, environ


def test_seal_lists_every_file_but_lock_files_and_is_read_back(tmp_path: Path) -> None:
    files = _warm(tmp_path / "warm")
    assert set(files) == {"inductor/fxgraph/ab/KEY/entry", "inductor/xy/cxy.py", "triton/HASH/kernel.cubin"}
    assert tbc.manifest(tmp_path / "warm") == files
    assert tbc.manifest(tmp_path / "nowhere") is None  # unsealed: not used


def test_a_faithful_copy_passes_and_the_candidates_own_kernels_are_allowed(tmp_path: Path) -> None:
    files, dirs, environ = _seeded(tmp_path)
    assert tbc.tampered(files, dirs, environ) is None
    # its own Triton kernel, and a lock file, in folders no baseline lookup reads
    (Path(dirs["triton"]) / "OWN").mkdir()
    (Path(dirs["triton"]) / "OWN" / "own.cubin").write_bytes(b"x")
    (Path(dirs["inductor"]) / "locks").mkdir()
    (Path(dirs["inductor"]) / "locks" / "other.lock").write_text("")
    assert tbc.tampered(files, dirs, environ) is None


@pytest.mark.parametrize("how", ["modify", "add", "remove", "link", "environment"])
def test_tampering_with_the_copy_is_found(tmp_path: Path, how: str) -> None:
    files, dirs, environ = _seeded(tmp_path)
    entry = Path(dirs["inductor"]) / "fxgraph" / "ab" / "KEY" / "entry"
    if how == "modify":
        entry.write_bytes(b"slow graph")
    elif how == "add":
        (entry.parent / "planted").write_bytes(b"slow graph")
    elif how == "remove":
        (Path(dirs["triton"]) / "HASH" / "kernel.cubin").unlink()
    elif how == "link":
        entry.unlink()
        entry.symlink_to(tmp_path / "elsewhere")
    else:
        environ["TORCHINDUCTOR_CACHE_DIR"] = str(tmp_path / "planted-cache")
    found = tbc.tampered(files, dirs, environ)
    assert found is not None
    assert {"modify": "modified", "add": "added", "remove": "removed", "link": "not a plain file",
            "environment": "TORCHINDUCTOR_CACHE_DIR"}[how] in found  # fmt: skip


def test_the_key_follows_what_decides_the_compiled_code() -> None:
    base = tbc.key("class Model: ...", "float32", "cpu", {"n": 4}, ["compile"], "2.13")
    assert base == tbc.key("class Model: ...", "float32", "cpu", {"n": 4}, ["compile"], "2.13")
    for changed in (tbc.key("class Model: pass", "float32", "cpu", {"n": 4}, ["compile"], "2.13"),
                    tbc.key("class Model: ...", "bfloat16", "cpu", {"n": 4}, ["compile"], "2.13"),
                    tbc.key("class Model: ...", "float32", "cuda", {"n": 4}, ["compile"], "2.13"),
                    tbc.key("class Model: ...", "float32", "cpu", {"n": 8}, ["compile"], "2.13"),
                    tbc.key("class Model: ...", "float32", "cpu", {"n": 4}, ["max-autotune"], "2.13"),
                    tbc.key("class Model: ...", "float32", "cpu", {"n": 4}, ["compile"], "2.11")):  # fmt: skip
        assert changed != base


def _warm_triton_group(root: Path) -> dict[str, str]:
    """A Triton kernel's folder as the warming worker leaves it: the group index names its files by
    their absolute paths in the warm folder (triton/runtime/cache.py, FileCacheManager.put_group)."""
    kernel = root / "triton" / "HASH"
    kernel.mkdir(parents=True)
    children = {}
    for name, data in (("k.json", b'{"name": "k"}'), ("k.cubin", b"\x7fELF"), ("k.ptx", b"// ptx")):
        (kernel / name).write_bytes(data)
        children[name] = str(kernel / name)
    (kernel / "__grp__k.json").write_text(json.dumps({"child_paths": children}))
    (kernel / "__grp__odd.json").write_text("not json")  # an index in some other format: copied as it is
    return tbc.seal(root)


def test_triton_group_indexes_are_repointed_at_the_copy_and_checked(tmp_path: Path) -> None:
    warm = tmp_path / "warm"
    files = _warm_triton_group(warm)
    caches = {c: tmp_path / "scratch" / c for c in tbc.CACHE_ENV}
    seeded = tbc.seed(warm, files, caches)
    copy = caches["triton"] / "HASH"
    children = json.loads((copy / "__grp__k.json").read_text())["child_paths"]
    # every child named where the copy has it, and the copy names nothing in the warm folder
    assert children == {name: str(copy / name) for name in ("k.json", "k.cubin", "k.ptx")}
    assert all(Path(p).read_bytes() == (warm / "triton" / "HASH" / n).read_bytes() for n, p in children.items())
    assert not any(str(warm).encode() in p.read_bytes() for p in caches["triton"].rglob("*") if p.is_file())
    assert (copy / "__grp__odd.json").read_text() == "not json"
    # the check holds the copy to what was written, the re-pointed index included
    assert set(seeded) == set(files) and seeded["triton/HASH/__grp__k.json"] != files["triton/HASH/__grp__k.json"]
    assert {r: d for r, d in seeded.items() if "__grp__k" not in r} == {r: d for r, d in files.items() if "__grp__k" not in r}
    dirs = {c: str(p) for c, p in caches.items()}
    environ = {var: dirs[c] for c, var in tbc.CACHE_ENV.items()}
    assert tbc.tampered(seeded, dirs, environ) is None
    # a candidate that points the index back at files of its choosing is caught
    (copy / "__grp__k.json").write_text(json.dumps({"child_paths": {"k.json": str(tmp_path / "planted.json")}}))
    assert tbc.tampered(seeded, dirs, environ) == "triton/HASH/__grp__k.json was modified"
    assert tbc.manifest(warm) == files == tbc.digests(warm)  # the warm folder itself is untouched


def test_a_real_triton_cache_hit_resolves_inside_the_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Triton's own cache manager, where Triton is installed (the GPU machine): an index written in the
    warm folder and seeded into a scratch cache resolves to the scratch copy's files."""
    cache_mod = pytest.importorskip("triton.runtime.cache")
    warm = tmp_path / "warm"
    monkeypatch.setenv("TRITON_CACHE_DIR", str(warm / "triton"))
    writer = cache_mod.FileCacheManager("KEY")
    group = {name: writer.put(data, name) for name, data in (("k.json", '{"name": "k"}'), ("k.cubin", b"\x7fELF"))}
    writer.put_group("k.json", group)
    files = tbc.seal(warm)
    caches = {c: tmp_path / "scratch" / c for c in tbc.CACHE_ENV}
    tbc.seed(warm, files, caches)
    monkeypatch.setenv("TRITON_CACHE_DIR", str(caches["triton"]))
    found = cache_mod.FileCacheManager("KEY").get_group("k.json")
    assert found == {name: str(caches["triton"] / "KEY" / name) for name in group}


def test_every_compiled_baseline_compiles_with_the_harness_inductor_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """The warming reference worker and each candidate's set their compiled baselines up through
    torch_timing._baseline: the settings hold while its compile runs, and only then."""
    torch = pytest.importorskip("torch")
    import torch._inductor.config as inductor_config

    from regrapht.eval import torch_timing

    seen: list[dict[str, object]] = []

    def fake_compile(model, mode=None):
        def run(*inputs):
            seen.append({k: getattr(inductor_config, k) for k in torch_timing.BASELINE_INDUCTOR})
            return model(*inputs)

        return run

    monkeypatch.setattr(torch, "compile", fake_compile)
    before = {k: getattr(inductor_config, k) for k in torch_timing.BASELINE_INDUCTOR}
    assert before["bundle_triton_into_fx_graph_cache"] is not False  # on by default: the test can fail
    sets = [[torch.ones(3)], [torch.zeros(3)]]
    for name in ("compile", "max-autotune"):
        torch_timing._baseline(name, torch.nn.ReLU(), sets, cuda=False)
    assert seen == [torch_timing.BASELINE_INDUCTOR] * 4
    assert {k: getattr(inductor_config, k) for k in torch_timing.BASELINE_INDUCTOR} == before
    assert tbc.FORMAT >= 3  # warm folders of the bundled layout (FORMAT 2) are never read again


# ---- end to end on the cpu target (inductor's C++ backend): slow, the first compile is cold ----------

torch = pytest.importorskip("torch")

from regrapht.eval import EvalConfig, Evaluator, TimingConfig  # noqa: E402
from regrapht.tasks import find_task  # noqa: E402

HONEST = "import torch\nimport torch.nn as nn\n\nclass ModelNew(nn.Module):\n    def forward(self, x):\n        return torch.clamp_min(x, 0.0)\n"
# Each hostile candidate's import does one thing to the caches its baselines will load, then computes
# honestly: only the cache check can tell it apart.
FIND = "import os\nfrom pathlib import Path\nCACHE = Path(os.environ['TORCHINDUCTOR_CACHE_DIR'])\nENTRY = next(p for p in sorted((CACHE / 'fxgraph').rglob('*')) if p.is_file())\n"
HOSTILE = {
    "edits": FIND + "ENTRY.write_bytes(ENTRY.read_bytes() + b' ')\n",
    "plants": FIND + "(ENTRY.parent / 'planted').write_bytes(ENTRY.read_bytes())\n",
    "repoints": "import os\nos.environ['TORCHINDUCTOR_CACHE_DIR'] = os.getcwd() + '/elsewhere'\n",
}


@pytest.fixture(scope="module")
def warm_judge(tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    config = EvalConfig(seeds=1, timing=True, timing_config=TimingConfig(budget_s=0.1, min_rounds=3, min_s=0.02),
                        static_screen=False, call_timeout_s=120.0, total_timeout_s=300.0, memory_limit_gib=4.0,
                        cache_dir=str(cache), secret=b"regrapht-warm-cache-tests", torch_baselines=("eager", "compile"))  # fmt: skip
    with Evaluator(config) as evaluator:
        yield evaluator, cache


@pytest.mark.slow
def test_the_reference_warms_the_cache_and_candidates_load_it(warm_judge) -> None:
    evaluator, cache = warm_judge
    ev = evaluator.evaluate(find_task("relu"), HONEST, "cpu")
    assert ev.status == "correct", (ev.message, ev.integrity)
    (warm,) = (cache / "torch-baselines").iterdir()
    files = tbc.manifest(warm)
    assert files and any(f.startswith("inductor/fxgraph/") for f in files), files
    again = evaluator.evaluate(find_task("relu"), HONEST + "# again\n", "cpu")
    assert again.status == "correct" and "compile" in again.speedups, again.message
    assert tbc.manifest(warm) == files == tbc.digests(warm)  # no candidate changed the warm folder


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_candidate_that_tampers_with_its_baseline_cache_is_caught(warm_judge, name: str) -> None:
    evaluator, _ = warm_judge
    ev = evaluator.evaluate(find_task("relu"), HOSTILE[name] + HONEST, "cpu")
    assert ev.status == "integrity_violation", (name, ev.status, ev.message)
    assert "tampered with" in ev.message, ev.message


@pytest.mark.slow
def test_a_candidate_cannot_write_or_read_the_shared_warm_cache(warm_judge) -> None:
    evaluator, cache = warm_judge
    evaluator.evaluate(find_task("relu"), HONEST, "cpu")  # warmed (if not already)
    (warm,) = (cache / "torch-baselines").iterdir()
    before = tbc.digests(warm)
    entry = next(f for f in before if f.startswith("inductor/fxgraph/"))
    for attack in (f"open({str(warm / entry)!r}, 'ab').write(b' ')\n",
                   f"open({str(warm / 'inductor' / 'planted.py')!r}, 'w').write('')\n",
                   f"open({str(warm / entry)!r}, 'rb').read()\n"):  # fmt: skip
        ev = evaluator.evaluate(find_task("relu"), attack + HONEST, "cpu")
        assert ev.status == "integrity_violation" and "sandbox refused" in ev.message, (attack, ev.message)
    assert tbc.digests(warm) == before and json.loads((warm / tbc.MANIFEST).read_text()) == before
    assert not (warm / "inductor" / "planted.py").exists()


def test_environment_names_match_the_sandbox_scratch(tmp_path: Path) -> None:
    # the judge seeds the folders the worker's caches point at (eval/torch_sandbox.py's env)
    from regrapht.eval import torch_sandbox

    env = torch_sandbox.env(tmp_path)
    for var in tbc.CACHE_ENV.values():
        assert env[var].startswith(str(tmp_path)) and os.path.isdir(env[var])
