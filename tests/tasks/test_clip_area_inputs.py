"""clip_area_box promises convex polygons: its float32 inputs must stay convex by a margin far above
float32 rounding, or a convexity-based solution fails on inputs rather than on its own arithmetic
(an H100 check once found 3 such polygons in the 8.4M of the bench set)."""

from __future__ import annotations

import numpy as np

from regrapht.tasks import builtin_tasks_root, load_task, make_inputs


def test_clip_area_polygons_are_convex_by_a_margin_in_float32():
    task = load_task(builtin_tasks_root() / "test" / "clip_area_box")
    n = 200_000
    values = make_inputs(task, {"n": n}, np.random.default_rng(7))
    counts = np.asarray(values["nverts"])
    xs = np.asarray(values["xs"], dtype=np.float64).reshape(n, 8)
    ys = np.asarray(values["ys"], dtype=np.float64).reshape(n, 8)
    assert counts.min() >= 3 and counts.max() <= 8
    slot = np.arange(8)[None, :]
    nxt = np.where(slot + 1 < counts[:, None], slot + 1, 0)  # the closing edge wraps to vertex 0
    nxt2 = np.take_along_axis(nxt, nxt, axis=1)
    live = slot < counts[:, None]
    ex = np.take_along_axis(xs, nxt, axis=1) - xs
    ey = np.take_along_axis(ys, nxt, axis=1) - ys
    fx = np.take_along_axis(xs, nxt2, axis=1) - np.take_along_axis(xs, nxt, axis=1)
    fy = np.take_along_axis(ys, nxt2, axis=1) - np.take_along_axis(ys, nxt, axis=1)
    edge = np.hypot(ex, ey)[live]
    turn = (ex * fy - ey * fx)[live]
    # float32 coordinates near 1 round by ~6e-8: edges of 1e-3 and left turns of 1e-8 are far above it
    assert edge.min() > 1e-3
    assert turn.min() > 1e-8
