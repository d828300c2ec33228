"""knn_bruteforce accepts the standard float formulation |q|^2 + |r|^2 - 2 q.r (issue 23) and still
rejects a wrong neighbour."""

from __future__ import annotations

import importlib.util

import numpy as np

from regrapht.tasks import find_task


def _checker():
    task = find_task("knn_bruteforce")
    spec = importlib.util.spec_from_file_location("knn_check", task.checker_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return task, module.check


def _expanded_knn(q: np.ndarray, r: np.ndarray, k: int = 8) -> tuple[np.ndarray, np.ndarray]:
    d = (q * q).sum(1, dtype=np.float32)[:, None] + (r * r).sum(1, dtype=np.float32)[None, :] - 2 * (q @ r.T)
    idx = np.argsort(d, axis=1, kind="stable")[:, :k].astype(np.int32)
    return idx, np.take_along_axis(d, idx, axis=1).astype(np.float32)


def test_the_float_expansion_passes_and_a_wrong_neighbour_does_not():
    task, check = _checker()
    rng = np.random.default_rng(7)
    # the bench's shape: many references in 3 dimensions, so the nearest distances are ~1e-5 and the
    # expansion's cancellation error (~4e-7) is far above 1e-4 of them (the old tolerance failed 84 of 512)
    sizes = {"nq": 64, "nref": 65536, "dims": 3}
    q = rng.uniform(0, 1, (64, 3)).astype(np.float32)
    r = rng.uniform(0, 1, (65536, 3)).astype(np.float32)
    idx, dist = _expanded_knn(q, r)
    inputs = {"queries": q.ravel(), "refs": r.ravel()}
    assert check(inputs, {}, {"knn_idx": idx.ravel(), "knn_dist": dist.ravel()}, sizes) is None
    exact = ((r.astype(np.float64)[idx] - q.astype(np.float64)[:, None, :]) ** 2).sum(axis=2)
    tol = task.arg("knn_dist").tolerance
    assert np.all(np.abs(dist - exact) <= tol.atol + tol.rtol * np.abs(exact))
    wrong = idx.copy()
    far = np.argmax(((r - q[0]) ** 2).sum(1))
    wrong[0, 0] = far
    assert "was reported" in check(inputs, {}, {"knn_idx": wrong.ravel(), "knn_dist": dist.ravel()}, sizes)
