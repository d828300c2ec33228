from __future__ import annotations

import numpy as np
import pytest

from regrapht.tasks import builtin_tasks_root, derive_seed, expr, generators, load_task, make_inputs


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


@pytest.mark.parametrize(
    ("kind", "params", "dtype"),
    [
        ("uniform", {"low": -2, "high": 3}, np.float32),
        ("normal", {"mean": 1, "std": 0.5}, np.float64),
        ("lognormal", {}, np.float32),
        ("exponential", {"scale": 2}, np.float32),
        ("integers", {"low": -5, "high": "n"}, np.int32),
        ("bernoulli", {"p": 0.3}, np.uint8),
        ("choice", {"values": [1, 5, 9]}, np.int64),
        ("permutation", {}, np.int32),
        ("sorted", {"low": 0, "high": 1000}, np.int32),
        ("bits", {}, np.uint64),
        ("text", {"alphabet": "acgt"}, np.uint8),
        ("points", {"dims": 2, "distribution": "clustered"}, np.float32),
    ],
)
def test_single_generators_fill_the_length_and_dtype(kind, params, dtype):
    n = 200
    out = generators.generate_array(kind, params, n, np.dtype(dtype), rng(), {"n": 100})
    assert out.shape == (n,) and out.dtype == dtype
    again = generators.generate_array(kind, params, n, np.dtype(dtype), rng(), {"n": 100})
    assert (out == again).all()  # seeded: reproducible
    assert len(np.unique(out)) > 1  # never constant


def test_generator_semantics():
    perm = generators.generate_array("permutation", {}, 50, np.dtype(np.int32), rng(), {})
    assert sorted(perm.tolist()) == list(range(50))
    srt = generators.generate_array(
        "sorted", {"low": 0, "high": 100, "unique": True}, 50, np.dtype(np.int32), rng(), {}
    )
    assert (np.diff(srt) > 0).all()
    ints = generators.generate_array("integers", {"low": 3, "high": 7}, 500, np.dtype(np.int32), rng(), {})
    assert ints.min() >= 3 and ints.max() <= 6
    text = generators.generate_array("text", {"alphabet": "ab"}, 100, np.dtype(np.uint8), rng(), {})
    assert set(text.tolist()) == {ord("a"), ord("b")}
    grid = generators.generate_array(
        "grid", {"shape": ["n", "n"], "field": "smooth"}, 64, np.dtype(np.float32), rng(), {"n": 8}
    )
    assert grid.shape == (64,) and grid.std() > 0.1
    with pytest.raises(generators.GeneratorError, match="must multiply"):
        generators.generate_array("grid", {"shape": [3, 3]}, 10, np.dtype(np.float32), rng(), {})
    with pytest.raises(generators.GeneratorError, match="outside the range"):
        generators.generate_array("integers", {"low": 0, "high": 1000}, 10, np.dtype(np.int8), rng(), {})


@pytest.mark.parametrize("skew", ["uniform", "powerlaw"])
def test_csr_matrix_is_valid(skew):
    out = generators.generate_joint(
        "csr_matrix",
        {"rows": "r", "cols": "c", "nnz": "z", "distribution": skew},
        rng(),
        {"r": 300, "c": 40, "z": 5000},
    )
    row_ptr, col_idx = out["row_ptr"], out["col_idx"]
    assert row_ptr[0] == 0 and row_ptr[-1] == 5000 and len(row_ptr) == 301
    assert (np.diff(row_ptr) >= 0).all() and (np.diff(row_ptr) <= 40).all()
    for r in range(300):
        cols = col_idx[row_ptr[r] : row_ptr[r + 1]]
        assert (np.diff(cols) > 0).all() and cols.min(initial=0) >= 0 and cols.max(initial=0) < 40
    assert out["values"].size == 5000


def test_dense_rows_are_filled_exactly():
    out = generators.generate_joint("csr_matrix", {"rows": 7, "cols": 5, "nnz": 35}, rng(), {})
    assert (np.diff(out["row_ptr"]) == 5).all()


@pytest.mark.parametrize("undirected", [False, True])
def test_csr_graph_has_no_self_loops(undirected):
    out = generators.generate_joint(
        "csr_graph", {"vertices": 100, "edges": 800, "undirected": undirected}, rng(3), {}
    )
    row_ptr, col = out["row_ptr"], out["col_idx"]
    assert row_ptr[-1] == 800 == col.size
    edges = {(r, int(c)) for r in range(100) for c in col[row_ptr[r] : row_ptr[r + 1]]}
    assert len(edges) == 800 and all(a != b for a, b in edges)
    if undirected:
        assert all((b, a) in edges for a, b in edges)


def test_expressions():
    assert expr.evaluate("n*m + 1", {"n": 3, "m": 4}) == 13
    assert expr.evaluate("ceil_div(n, 32)", {"n": 33}) == 2
    assert expr.evaluate("max(n, 2) - min(n, 2)", {"n": 5}) == 3
    assert expr.names_in("n * (k + 1)") == {"n", "k"}
    for bad in ("n.__class__", "__import__('os')", "n / 2", "lambda: 1", "n if n else 1"):
        with pytest.raises(expr.ExprError):
            expr.evaluate(bad, {"n": 3})
    with pytest.raises(expr.ExprError, match="unknown size 'q'"):
        expr.evaluate("q + 1", {"n": 3})
    with pytest.raises(expr.ExprError, match="divides by zero"):
        expr.evaluate("n // 0", {"n": 3})


def test_make_inputs_follows_the_task_and_the_seed():
    task = load_task(builtin_tasks_root() / "examples" / "spmv_csr")
    sizes = task.test_sizes[2]
    a = make_inputs(task, sizes, rng(derive_seed(b"s", task.id, 0)))
    b = make_inputs(task, sizes, rng(derive_seed(b"s", task.id, 0)))
    c = make_inputs(task, sizes, rng(derive_seed(b"s", task.id, 1)))
    assert set(a) == {"rows", "cols", "nnz", "row_ptr", "col_idx", "values", "x"}
    assert a["row_ptr"].dtype == np.int32 and a["row_ptr"][-1] == sizes["nnz"]
    assert all((a[k] == b[k]).all() for k in a)
    assert not (a["x"] == c["x"]).all()


@pytest.mark.parametrize("field", ["smooth", "image", "noise"])
@pytest.mark.parametrize("shape", [[1000], [37, 41], [9, 10, 11]])
def test_grids_stay_within_their_range_in_the_target_precision(field, shape):
    n = int(np.prod(shape))
    for dtype, low, high in ((np.float32, 0.0, 0.7), (np.float32, 0.0, 255.0), (np.float64, -1.0, 1.0)):
        params = {"shape": shape, "field": field, "low": low, "high": high}
        out = generators.generate_array("grid", params, n, np.dtype(dtype), rng(3), {})
        assert out.dtype == dtype and out.shape == (n,)
        assert out.min() >= dtype(low) and out.max() <= dtype(high), (out.min(), out.max())
        assert len(np.unique(out)) > n // 10


@pytest.fixture()
def small_chunks(monkeypatch):
    """Long-array drawing on a small scale: arrays of 4096 elements and more go in chunks of 1000."""
    monkeypatch.setattr(generators, "PARALLEL_MIN", 4096)
    monkeypatch.setattr(generators, "CHUNK", 1000)


@pytest.mark.parametrize(
    ("kind", "params", "dtype"),
    [
        ("uniform", {"low": -2, "high": 3}, np.float32),
        ("normal", {"mean": 1, "std": 0.5}, np.float64),
        ("grid", {"shape": [50, 201], "field": "smooth"}, np.float32),
        ("grid", {"shape": [50, 201], "field": "noise", "low": -1.0, "high": 1.0}, np.float64),
    ],
)
def test_long_arrays_drawn_in_chunks_depend_on_the_seed_not_the_threads(small_chunks, monkeypatch, kind, params, dtype):
    n = 10050
    draw = lambda seed: generators.generate_array(kind, params, n, np.dtype(dtype), rng(seed), {})  # noqa: E731
    monkeypatch.setattr(generators, "DRAW_THREADS", 1)
    one = draw(7)
    monkeypatch.setattr(generators, "DRAW_THREADS", 6)
    many = draw(7)
    assert one.dtype == dtype and one.shape == (n,)
    assert np.array_equal(one, many)  # the same array whatever the machine's cores
    assert not np.array_equal(one, draw(8))
    # Each chunk a stream of its own: no chunk repeats another's values.
    assert not np.array_equal(one[:1000], one[1000:2000])


def test_chunked_draws_keep_their_distribution(small_chunks):
    n = 200_000
    u = generators.generate_array("uniform", {"low": -2, "high": 3}, n, np.dtype(np.float32), rng(1), {})
    z = generators.generate_array("normal", {"mean": 1, "std": 0.5}, n, np.dtype(np.float64), rng(1), {})
    assert u.min() >= -2 and u.max() < 3 and abs(u.mean() - 0.5) < 0.02
    assert abs(z.mean() - 1) < 0.01 and abs(z.std() - 0.5) < 0.01
    # Uniform chunks are independent: neighbours do not correlate across a chunk's edge.
    assert abs(np.corrcoef(u[:-1000], u[1000:])[0, 1]) < 0.02


def test_a_smooth_grid_is_the_same_drawn_row_block_by_row_block(monkeypatch):
    """The smooth field's terms are elementwise, so computing them in row blocks on threads changes no
    value: only the long arrays' noise, drawn in chunks, differs from a one-stream draw."""
    params = {"shape": [64, 300], "field": "smooth", "low": 0.0, "high": 1.0}
    whole = generators.generate_array("grid", params, 64 * 300, np.dtype(np.float32), rng(2), {})
    monkeypatch.setattr(generators, "CHUNK", 900)  # row blocks of 3 rows
    monkeypatch.setattr(generators, "PARALLEL_MIN", 64 * 300 + 1)  # the noise still one stream
    calls: list[tuple[int, int]] = []
    real = generators._by_rows

    def spy(rows, n, work_on):
        calls.append((rows, n))
        monkeypatch.setattr(generators, "PARALLEL_MIN", 1)  # blocks for the terms only
        try:
            real(rows, n, work_on)
        finally:
            monkeypatch.setattr(generators, "PARALLEL_MIN", 64 * 300 + 1)

    monkeypatch.setattr(generators, "_by_rows", spy)
    blocks = generators.generate_array("grid", params, 64 * 300, np.dtype(np.float32), rng(2), {})
    assert calls and np.array_equal(whole, blocks)
