"""The compiled baselines' warm caches: torch.compile of a task's reference is paid once per task and
machine, not in every candidate's worker.

The reference's worker (trusted: no candidate code runs there) compiles the compiled baselines
(`compile`, `max-autotune`) at the bench shape with inductor's and Triton's caches pointed at a
folder of the machine's cache, one per (reference source, dtype, target, bench sizes, baselines,
torch): `CACHE/torch-baselines/KEY/{inductor,triton}`. The parent then lists every file there with
its SHA-256 (`manifest.json`, written last: a folder without one is not used).

A candidate's worker never reaches that folder (its sandbox grants neither read nor write beneath
it). The parent copies the warm files into the candidate's own scratch caches before the worker
starts (copies, not links: a hard link would let the candidate write the shared file; Triton's
group indexes, which name their files by absolute path, are re-pointed at the copy), and the job
carries the digests of what was copied. Before the worker sets up its compiled baselines it checks
that its caches hold exactly those files with those digests, and that the cache variables still
name them: a candidate that planted or edited a compiled `Model` there (a slower baseline inflates
its speedup) is an integrity violation. Without the check, a candidate's import could do exactly
that to a cold cache, which is what every candidate had before.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

COMPILED = ("compile", "max-autotune")
# cache -> the environment variable that points inductor or Triton at it
CACHE_ENV = {"inductor": "TORCHINDUCTOR_CACHE_DIR", "triton": "TRITON_CACHE_DIR"}
MANIFEST = "manifest.json"
# Triton's index of one compiled kernel's files (triton/runtime/cache.py, FileCacheManager.put_group)
TRITON_GROUP_PREFIX = "__grp__"
# Raised whenever how the harness compiles a baseline changes (eval/torch_timing.py's
# BASELINE_INDUCTOR): older warm folders then hold code no baseline would load. 3: Triton's kernels
# no longer bundled into inductor's graph entries.
FORMAT = 3


def compiled(baselines: tuple[str, ...]) -> list[str]:
    return [b for b in baselines if b in COMPILED]


def key(reference_source: str, dtype: str, target: str, sizes: dict[str, int], baselines: list[str], torch_version: str) -> str:
    """The warm folder's name: what decides the compiled code (not the seeds: values never do)."""
    blob = json.dumps({"reference": reference_source, "dtype": dtype, "target": target, "sizes": sizes,
                       "baselines": sorted(baselines), "torch": torch_version, "format": FORMAT}, sort_keys=True)  # fmt: skip
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def folder(cache_dir: Path, name: str) -> Path:
    return cache_dir / "torch-baselines" / name


def digests(root: Path) -> dict[str, str]:
    """`{cache/relative/path: sha256}` of every file beneath root's caches (links are refused)."""
    out: dict[str, str] = {}
    for cache in CACHE_ENV:
        base = root / cache
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if path.is_symlink():
                raise ValueError(f"{path} is a symbolic link")
            if path.is_file() and path.parent != root / "inductor" / "locks":  # empty lock files, rewritten by any compile
                out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def seal(root: Path) -> dict[str, str]:
    """Write root's manifest (atomically, last) once its caches are warm; returns it."""
    files = digests(root)
    tmp = root / f".{MANIFEST}.{os.getpid()}"
    tmp.write_text(json.dumps(files, sort_keys=True))
    os.replace(tmp, root / MANIFEST)
    return files


def manifest(root: Path) -> dict[str, str] | None:
    """root's manifest, or None where it is not (yet) sealed or does not match its files."""
    try:
        files = json.loads((root / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    return files if isinstance(files, dict) else None


def seed(root: Path, files: dict[str, str], scratch_caches: dict[str, Path]) -> dict[str, str]:
    """Copy the manifest's files from root into the candidate's scratch caches (`{cache: folder}`);
    returns the digests of what was written, which the worker's check must then find: the
    manifest's, but for Triton's group files, re-pointed at the copy (see _repoint_group)."""
    seeded: dict[str, str] = {}
    for rel, digest in files.items():
        cache, _, inner = rel.partition("/")
        target = scratch_caches[cache] / inner
        target.parent.mkdir(parents=True, exist_ok=True)
        if cache == "triton" and target.name.startswith(TRITON_GROUP_PREFIX):
            data = _repoint_group((root / rel).read_bytes(), target.parent)
            target.write_bytes(data)
            seeded[rel] = hashlib.sha256(data).hexdigest()
        else:
            shutil.copyfile(root / rel, target)
            seeded[rel] = digest
    return seeded


def _repoint_group(data: bytes, folder: Path) -> bytes:
    """Triton's cache indexes a compiled kernel's files in `__grp__NAME.json` as
    `{"child_paths": {file name: absolute path}}`, the paths where the warming worker wrote them
    (the sealed warm folder). A cache hit opens those paths as they stand (triton/runtime/cache.py,
    FileCacheManager.get_group, only checks that they exist; compiler.py's CompiledKernel then reads
    the `.json` named there), so a candidate's copy would read the warm folder, which its sandbox
    refuses: the PermissionError of issue 17. Triton writes a group's files beside its index, so
    each child is re-pointed at the same name in the copy's folder. Anything not in that layout is
    left as it is: Triton drops a child path that does not exist and compiles afresh."""
    try:
        group = json.loads(data)
    except ValueError:
        return data
    children = group.get("child_paths") if isinstance(group, dict) else None
    if not isinstance(children, dict) or not all(isinstance(p, str) and p for p in children.values()):
        return data
    group["child_paths"] = {name: str(folder / os.path.basename(path)) for name, path in children.items()}
    return json.dumps(group).encode()


def tampered(files: dict[str, str], scratch_caches: dict[str, str], environ: Any = os.environ) -> str | None:
    """What differs between the candidate's caches and the manifest they were seeded with, or None:
    a cache variable pointed elsewhere, or, in any folder that holds a manifest file (where the
    baselines' lookups land: an FX graph's entries, a kernel's code, a Triton kernel's folder), a file
    added, removed or changed. Files in other folders are the candidate's own compilations (its Triton
    kernels): a warm baseline never reads them. Run in the worker just before its compiled baselines
    are set up."""
    for cache, var in CACHE_ENV.items():
        now = environ.get(var)
        if cache in scratch_caches and (now is None or os.path.abspath(now) != os.path.abspath(scratch_caches[cache])):
            return f"{var} was changed to {now!r}"
    watched = {str(Path(rel).parent) for rel in files}
    found: dict[str, str] = {}
    for cache, where in scratch_caches.items():
        base = Path(where)
        for path in sorted(base.rglob("*")) if base.is_dir() else []:
            rel = f"{cache}/{path.relative_to(base)}"
            if str(Path(rel).parent) not in watched:
                continue
            if path.is_symlink() or not path.is_file():
                return f"{rel} is not a plain file (a link or folder put among the baselines' files)"
            found[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    for rel, digest in files.items():
        if rel not in found:
            return f"{rel} was removed or replaced"
        if found[rel] != digest:
            return f"{rel} was modified"
    extra = sorted(set(found) - set(files))
    return f"{extra[0]} was added" if extra else None
