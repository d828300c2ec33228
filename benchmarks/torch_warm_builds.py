"""Build, ahead of the torch GPU tests, every extension their candidate files settle, all at once on
the evaluator's own CPU build pool, into the cache the tests use (eval/compile.py's
default_cache_dir, as tests/eval/test_torch_cpu.py's torch_config does).

The tests judge one candidate at a time, so each cold build (about a minute of nvcc against torch's
headers) would otherwise sit inside a test, one after another. Builds are content-addressed: a test
finds its extension built and its verdict is unchanged. Sources a test rewrites before judging are
built by that test, as before. Runs on any machine with nvcc; nothing of a candidate runs here.

  PYTHONPATH=src python3 benchmarks/torch_warm_builds.py [--workers N] [--nice N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from regrapht.eval import torch_forms, torch_prebuild
from regrapht.eval.compile import default_cache_dir

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = (ROOT / "tests" / "eval" / "hostile_torch", ROOT / "src" / "regrapht" / "data" / "tasks_torch" / "examples" / "relu" / "candidates")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=8, help="Builds at once (each runs g++ and nvcc).")
    parser.add_argument("--nice", type=int, default=10, help="Niceness, so work beside it on the host keeps its cores.")
    parser.add_argument("--target", default="cuda")
    args = parser.parse_args()
    if args.nice:
        os.nice(args.nice)
    began = time.monotonic()
    pool = torch_prebuild.BuildPool(default_cache_dir(), args.workers)
    futures = {}
    for folder in FOLDERS:
        for path in sorted(folder.glob("*")):
            if path.suffix not in (".py", ".cu"):
                continue
            try:
                form = torch_forms.detect(path.read_text(), path.name)
            except torch_forms.FormError:
                continue  # a malformed candidate: its test expects it never to build
            specs = torch_prebuild.specs_in(path.read_text(), form.kind, form.entry)
            for i, spec in enumerate(specs):
                if spec["cuda_sources"] and args.target != "cuda":
                    continue
                futures[f"{path.name}#{i}"] = pool.submit(spec, args.target)
    results = {}
    for key, future in futures.items():
        r = future.result()
        results[key] = {"ok": r.ok, "cached": r.cached, "seconds": round(r.seconds, 1)}
    pool.close()
    built = sum(r["ok"] for r in results.values())
    print(json.dumps({"builds": len(results), "ok": built, "wall_s": round(time.monotonic() - began, 1),
                      "cache": str(default_cache_dir()), "results": results}, indent=1))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
