"""The compiled baselines' warm caches: torch.compile of a task's reference is paid once per task and
machine, not in every candidate's worker.

The reference's worker (trusted: no candidate code runs there) compiles the compiled baselines
(`compile`, `max-autotune`) at the bench shape with inductor's and Triton's caches pointed at a
folder of the machine's cache, one per (reference source, dtype, target, bench sizes, baselines,
torch): `CACHE/torch-baselines/KEY/{inductor,triton}`. The parent then lists every file there with
its SHA-256 (`manifest.json`, written last: a folder without one is not used).

A candidate's worker never reaches that folder (its sandbox grants neither read nor write beneath
it). The parent copies the warm files into the candidate's own scratch caches before the worker
starts (copies, not links: a hard link would let the candidate write the shared file), and the job
carries the manifest. Before the worker sets up its compiled baselines it checks that its caches
hold exactly those files with those digests, and that the cache variables still name them: a
candidate that planted or edited a compiled `Model` there (a slower baseline inflates its speedup)
is an integrity violation. Without the check, a candidate's import could do exactly that to a cold
cache, which is what every candidate had before.
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
# Raised whenever how the harness compiles a baseline changes (the inductor settings of
# eval/torch_timing.py's _baseline): older warm folders then hold code no baseline would load.
FORMAT = 2


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


def seed(root: Path, files: dict[str, str], scratch_caches: dict[str, Path]) -> None:
    """Copy the manifest's files from root into the candidate's scratch caches (`{cache: folder}`)."""
    for rel in files:
        cache, _, inner = rel.partition("/")
        target = scratch_caches[cache] / inner
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / rel, target)


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
