"""Input generators named in task files.

Single generators fill one array (or one scalar); joint generators fill several related arrays at
once (a CSR matrix's row pointers, column indices and values). Numeric parameters may be integer
expressions of the sizes ("n", "n*4"), so index ranges follow the problem size.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from regrapht.tasks import expr


class GeneratorError(ValueError):
    pass


# Arrays of at least PARALLEL_MIN elements are drawn in chunks of CHUNK elements, each chunk from a
# generator seeded by the array's own, on up to DRAW_THREADS threads (NumPy's generators release the
# GIL): one core draws a 340M-element float32 array in about 4 s, and a bench build of gigabytes waited
# on that (jacobi_2d's 21-32 s on an H100 host, session 15). The chunk size, never the thread count,
# decides the values, so a seed draws the same array on every machine; shorter arrays (every test
# case) are drawn as one stream, as before. A chunked array takes 4 draws of its set's generator where
# it took n, so the arrays drawn after it in a bench set differ from before session 16 too.
CHUNK = 1 << 22
PARALLEL_MIN = 1 << 24
DRAW_THREADS = 8


def _draw_threads() -> int:
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count() or 1
    return max(1, min(DRAW_THREADS, usable))


def _chunked(n: int, rng: np.random.Generator, dtype, draw: Callable[[np.random.Generator, np.ndarray], None]) -> np.ndarray:
    """An array of n `dtype` values filled by `draw(generator, out)`: in one call below PARALLEL_MIN,
    else chunk by chunk on threads, each chunk from a child generator seeded from `rng`."""
    out = np.empty(n, dtype=dtype)
    if n < PARALLEL_MIN:
        draw(rng, out)
        return out
    starts = range(0, n, CHUNK)
    seeds = np.random.SeedSequence(rng.integers(0, 2**63, 4, dtype=np.int64).tolist()).spawn(len(starts))

    def fill(k: int) -> None:
        draw(np.random.Generator(np.random.PCG64(seeds[k])), out[starts[k] : starts[k] + CHUNK])

    with ThreadPoolExecutor(max_workers=min(len(starts), _draw_threads()), thread_name_prefix="regrapht-draw") as pool:
        list(pool.map(fill, range(len(starts))))
    return out


def _param(params: Mapping[str, Any], key: str, default: Any, sizes: Mapping[str, int]) -> Any:
    value = params.get(key, default)
    if isinstance(value, str) and key not in ("field", "distribution", "layout", "alphabet", "kind"):
        return expr.evaluate(value, sizes)
    return value


def _float_dtype(dtype):
    return np.float32 if dtype is not None and dtype == np.float32 else np.float64


def _random(n: int, rng: np.random.Generator, work) -> np.ndarray:
    """n values uniform in [0, 1), in `work` precision (chunked on threads when long)."""
    return _chunked(n, rng, work, lambda g, out: g.random(out=out, dtype=work))


def _standard_normal(n: int, rng: np.random.Generator, work) -> np.ndarray:
    return _chunked(n, rng, work, lambda g, out: g.standard_normal(out=out, dtype=work))


def _scale_shift(values: np.ndarray, scale: float, shift: float) -> np.ndarray:
    """values * scale + shift in place (in blocks on threads for a long array: memory-bound)."""
    work = values.dtype.type

    def part(k0: int, k1: int) -> None:
        view = values[k0:k1]
        view *= work(scale)
        view += work(shift)

    _by_rows(values.size, values.size, part)  # a flat array: its "rows" are its elements
    return values


def _uniform(n, rng, p, sizes, dtype=None):
    low, high = float(_param(p, "low", 0.0, sizes)), float(_param(p, "high", 1.0, sizes))
    # Drawn in the target precision: a float32 input needs no float64 temporary of twice its size.
    return _scale_shift(_random(n, rng, _float_dtype(dtype)), high - low, low)


def _normal(n, rng, p, sizes, dtype=None):
    values = _standard_normal(n, rng, _float_dtype(dtype))
    return _scale_shift(values, float(_param(p, "std", 1.0, sizes)), float(_param(p, "mean", 0.0, sizes)))


def _lognormal(n, rng, p, sizes, dtype=None):
    return rng.lognormal(_param(p, "mean", 0.0, sizes), _param(p, "sigma", 1.0, sizes), n)


def _exponential(n, rng, p, sizes, dtype=None):
    return rng.exponential(_param(p, "scale", 1.0, sizes), n)


def _int_dtype_for(low: int, high: int, dtype) -> type:
    """The target integer dtype when [low, high) fits in it, else int64 (checked by _cast later)."""
    if dtype is not None and dtype.kind in "iu":
        info = np.iinfo(dtype)
        if info.min <= low and high - 1 <= info.max:
            return dtype
    return np.int64


def _integers(n, rng, p, sizes, dtype=None):
    low, high = _param(p, "low", 0, sizes), _param(p, "high", None, sizes)
    if high is None:
        raise GeneratorError("generator 'integers' needs `high` (exclusive)")
    if high <= low:
        raise GeneratorError(f"generator 'integers': high ({high}) must exceed low ({low})")
    return rng.integers(low, high, n, dtype=_int_dtype_for(low, high, dtype))


def _bernoulli(n, rng, p, sizes, dtype=None):
    return (rng.random(n, dtype=np.float32) < float(_param(p, "p", 0.5, sizes))).astype(np.uint8)


def _small_indices(n: int, count: int, rng: np.random.Generator) -> np.ndarray:
    return rng.integers(0, count, n, dtype=np.uint8 if count <= 256 else np.int32)


def _choice(n, rng, p, sizes, dtype=None):
    values = p.get("values")
    if not isinstance(values, list) or not values:
        raise GeneratorError("generator 'choice' needs a non-empty list `values`")
    table = np.asarray(values)
    if dtype is not None and np.can_cast(table, dtype, casting="same_kind"):
        cast = table.astype(dtype)
        if np.array_equal(cast, table):
            table = cast
    return table[_small_indices(n, len(table), rng)]


def _permutation(n, rng, p, sizes, dtype=None):
    return rng.permutation(n).astype(np.int64)


def _sorted(n, rng, p, sizes, dtype=None):
    low, high = _param(p, "low", 0, sizes), _param(p, "high", None, sizes)
    if p.get("integer", True) and high is not None:
        if p.get("unique", False):
            if high - low < n:
                raise GeneratorError(
                    f"generator 'sorted': cannot draw {n} unique values from [{low}, {high})"
                )
            return np.sort(rng.choice(np.arange(low, high, dtype=np.int64), n, replace=False))
        return np.sort(rng.integers(low, high, n, dtype=np.int64))
    return np.sort(rng.uniform(low, 1.0 if high is None else high, n))


def _bits(n, rng, p, sizes, dtype=None):
    return rng.integers(0, 2**63 - 1, n, dtype=np.int64, endpoint=True).view(np.uint64)


def _text(n, rng, p, sizes, dtype=None):
    alphabet = str(p.get("alphabet", "acgt"))
    codes = np.frombuffer(alphabet.encode(), dtype=np.uint8)
    return codes[_small_indices(n, codes.size, rng)]


def _grid(n, rng, p, sizes, dtype=None):
    shape = [expr.evaluate(s, sizes) for s in p.get("shape", [])]
    if not shape or int(np.prod(shape)) != n:
        raise GeneratorError(f"generator 'grid': shape {shape} must multiply to the array length {n}")
    field = p.get("field", "smooth")
    work = _float_dtype(dtype)
    # Open (broadcastable) axes: each term is formed once at full size, never per axis, and in the
    # target precision, so a 64M-cell grid costs a fraction of a second per term.
    axes = [
        a.astype(work)
        for a in np.meshgrid(*[np.linspace(0.0, 1.0, s) for s in shape], indexing="ij", sparse=True)
    ]
    if field == "smooth":
        terms = [(rng.uniform(1.0, 6.0, len(shape)), rng.uniform(0, 2 * np.pi)) for _ in range(4)]
        noise = _standard_normal(n, rng, work).reshape(shape)
        values = np.zeros(shape, dtype=work)

        def rows(r0: int, r1: int) -> None:  # every term of rows r0:r1, elementwise as one pass would
            block, cut = values[r0:r1], [a[r0:r1] if i == 0 else a for i, a in enumerate(axes)]
            for freq, phase in terms:
                angle = sum(work(2 * np.pi * f) * a for f, a in zip(freq, cut)) + work(phase)
                block += np.sin(angle, out=angle)  # the sum over every axis already has the block's shape
            quiet = noise[r0:r1]
            quiet *= work(0.05)
            block += quiet

        _by_rows(shape[0], n, rows)
    elif field == "image":
        values = np.zeros(shape, dtype=work)
        for _ in range(8):
            center = rng.uniform(0.0, 1.0, len(shape))
            radius = rng.uniform(0.05, 0.3)
            inside = sum((a - work(c)) ** 2 for a, c in zip(axes, center)) < work(radius**2)
            values[np.broadcast_to(inside, shape)] = rng.uniform(0.0, 1.0)
        noise = rng.standard_normal(shape, dtype=work)
        noise *= work(0.02)
        values += noise
        np.clip(values, 0.0, 1.0, out=values)
    elif field == "noise":
        values = _random(n, rng, work).reshape(shape)
    else:
        raise GeneratorError(f"generator 'grid': unknown field {field!r} (smooth, image, noise)")
    low, high = _param(p, "low", None, sizes), _param(p, "high", None, sizes)
    if low is not None and high is not None:
        lo, hi = values.min(), values.max()
        span = (hi - lo) or 1.0

        def rescale(r0: int, r1: int) -> None:
            block = values[r0:r1]
            block -= lo
            block *= work((high - low) / span)
            block += work(low)
            np.clip(block, work(low), work(high), out=block)  # float32 rounding may overshoot by an ulp

        _by_rows(shape[0], n, rescale)
    return values.reshape(-1)


def _by_rows(rows: int, n: int, work_on: Callable[[int, int], None]) -> None:
    """`work_on(r0, r1)` over every row of an array of `rows` rows and n elements: at once when short,
    else in blocks of about CHUNK elements on threads. Elementwise work gives the same values either way."""
    if n < PARALLEL_MIN or rows < 2:
        work_on(0, rows)
        return
    step = max(1, CHUNK // max(1, n // rows))
    with ThreadPoolExecutor(max_workers=_draw_threads(), thread_name_prefix="regrapht-draw") as pool:
        list(pool.map(lambda r0: work_on(r0, min(rows, r0 + step)), range(0, rows, step)))


def _points(n, rng, p, sizes, dtype=None):
    dims = int(_param(p, "dims", 3, sizes))
    if n % dims:
        raise GeneratorError(f"generator 'points': array length {n} is not a multiple of dims={dims}")
    count = n // dims
    low, high = float(_param(p, "low", 0.0, sizes)), float(_param(p, "high", 1.0, sizes))
    if p.get("distribution", "uniform") == "clustered":
        clusters = int(_param(p, "clusters", 8, sizes))
        centers = rng.uniform(low, high, (clusters, dims))
        spread = (high - low) * 0.05
        pts = centers[rng.integers(0, clusters, count)] + rng.normal(0.0, spread, (count, dims))
    else:
        pts = rng.uniform(low, high, (count, dims))
    if p.get("layout", "aos") == "soa":
        return pts.T.reshape(-1)
    return pts.reshape(-1)


def _constant(n, rng, p, sizes, dtype=None):
    """Every element the same `value` (an output's declared initial value: zeros, a sentinel)."""
    value = _param(p, "value", 0, sizes)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise GeneratorError(f"constant: `value` must be a number, got {value!r}")
    return np.full(n, value, dtype=np.float64 if isinstance(value, float) else np.int64)


SINGLE: dict[str, Callable[..., np.ndarray]] = {
    "constant": _constant,
    "uniform": _uniform,
    "normal": _normal,
    "lognormal": _lognormal,
    "exponential": _exponential,
    "integers": _integers,
    "bernoulli": _bernoulli,
    "choice": _choice,
    "permutation": _permutation,
    "sorted": _sorted,
    "bits": _bits,
    "text": _text,
    "grid": _grid,
    "points": _points,
}


def generate_array(
    kind: str,
    params: Mapping[str, Any],
    n: int,
    dtype: np.dtype,
    rng: np.random.Generator,
    sizes: Mapping[str, int],
) -> np.ndarray:
    if kind not in SINGLE:
        raise GeneratorError(f"unknown generator {kind!r} (known: {', '.join(sorted(SINGLE))})")
    values = SINGLE[kind](n, rng, params, sizes, dtype)
    return _cast(values, dtype, kind)


def _cast(values: np.ndarray, dtype: np.dtype, kind: str) -> np.ndarray:
    if dtype.kind in "iu" and values.dtype.kind in "iu" and values.size:
        info = np.iinfo(dtype)
        if values.min() < info.min or values.max() > info.max:
            raise GeneratorError(f"generator {kind!r} produced values outside the range of {dtype}")
    if dtype.kind in "iu" and values.dtype.kind == "f":
        values = np.floor(values)
    return np.ascontiguousarray(values.astype(dtype, copy=False))


# ---- joint generators ---------------------------------------------------------------------------


def _spread(total: int, buckets: int, rng: np.random.Generator, skew: str, cap: int) -> np.ndarray:
    """Counts per bucket adding up to total, each at most cap."""
    if buckets == 0:
        if total:
            raise GeneratorError("cannot place entries in zero rows")
        return np.zeros(0, dtype=np.int64)
    if total > buckets * cap:
        raise GeneratorError(f"cannot place {total} entries in {buckets} rows of at most {cap}")
    weights = rng.pareto(1.5, buckets) + 0.1 if skew == "powerlaw" else np.ones(buckets)
    counts = np.zeros(buckets, dtype=np.int64)
    remaining = total
    while remaining:
        draw = rng.multinomial(remaining, weights / weights.sum())
        counts = np.minimum(counts + draw, cap)
        remaining = total - int(counts.sum())
        weights = np.where(counts >= cap, 0.0, weights)
    return counts


def _sorted_unique(keys: np.ndarray) -> np.ndarray:
    # np.unique's hash path is several times slower than a plain sort for large int64 arrays.
    keys.sort()
    if keys.size < 2:
        return keys
    return keys[np.concatenate([[True], keys[1:] != keys[:-1]])]


def _csr(rows: int, cols: int, nnz: int, rng: np.random.Generator, skew: str, no_diagonal: bool = False):
    """Row pointers and sorted, distinct column indices with exactly nnz entries (vectorized).

    Each round draws, for every row still short, as many columns as it lacks, and drops repeats.
    Rows that are complete leave the working set, so later rounds sort only the few dense rows
    that keep colliding, not all nnz keys again."""
    cap = cols - (1 if no_diagonal else 0)
    counts = _spread(nnz, rows, rng, skew, cap)
    row_ptr = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(counts, out=row_ptr[1:])
    complete: list[np.ndarray] = []  # keys (row * cols + col) of finished rows, one array per round
    keys = np.zeros(0, dtype=np.int64)  # sorted, distinct keys of the rows still short
    short = counts > 0
    need = counts.copy()
    for _ in range(16):
        if not short.any():
            break
        row_of = np.repeat(np.arange(rows, dtype=np.int64), need)
        col = rng.integers(0, cols, row_of.size, dtype=np.int64)
        if no_diagonal:
            col = np.where(col == row_of, (col + 1 + rng.integers(0, max(cols - 1, 1), col.size)) % cols, col)
        keys = _sorted_unique(np.concatenate([keys, row_of * cols + col]))
        # A row draws only what it lacks, so it never holds more than its count.
        key_rows = keys // cols
        have = np.bincount(key_rows, minlength=rows)
        done = short & (have == counts)
        if done.any():
            leaving = done[key_rows]
            complete.append(keys[leaving])
            keys = keys[~leaving]
            short &= ~done
        need = np.where(short, counts - have, 0)
    if short.any():
        # Nearly full rows: random draws rarely hit the last free columns, so pick from those directly.
        for r in np.flatnonzero(short):
            taken = set((keys[(keys // cols) == r] % cols).tolist())
            if no_diagonal:
                taken.add(int(r))
            free = np.array([c for c in range(cols) if c not in taken], dtype=np.int64)
            complete.append(r * cols + rng.choice(free, int(need[r]), replace=False))
    # Rows are disjoint between the pieces, each piece sorted: one merge-friendly sort orders them.
    every = np.sort(np.concatenate([*complete, keys]), kind="stable")
    return row_ptr, (every % cols).astype(np.int64)


def _csr_matrix(rng, p, sizes):
    rows, cols, nnz = (expr.evaluate(p[k], sizes) for k in ("rows", "cols", "nnz"))
    row_ptr, col_idx = _csr(rows, cols, nnz, rng, p.get("distribution", "uniform"))
    value_spec = dict(p.get("values", {"kind": "uniform", "low": -1.0, "high": 1.0}))
    kind = value_spec.pop("kind", "uniform")
    values = SINGLE[kind](nnz, rng, value_spec, sizes)
    return {"row_ptr": row_ptr, "col_idx": col_idx, "values": values}


def _undirected(vertices: int, edges: int, rng: np.random.Generator, skew: str):
    """CSR of a simple undirected graph stored in both directions: exactly `edges` entries."""
    if edges % 2:
        raise GeneratorError("an undirected csr_graph needs an even number of directed edges")
    pairs_needed = edges // 2
    if pairs_needed > vertices * (vertices - 1) // 2:
        raise GeneratorError(f"{vertices} vertices cannot hold {pairs_needed} distinct undirected edges")
    weights = None
    if skew == "powerlaw":
        weights = rng.pareto(1.5, vertices) + 0.1
        weights /= weights.sum()
    keys = np.zeros(0, dtype=np.int64)
    for _ in range(64):
        missing = pairs_needed - keys.size
        if missing <= 0:
            break
        draw = int(missing * 1.2) + 16
        if weights is None:
            a, b = rng.integers(0, vertices, draw), rng.integers(0, vertices, draw)
        else:
            a, b = rng.choice(vertices, draw, p=weights), rng.choice(vertices, draw, p=weights)
        keep = a != b
        lo, hi = np.minimum(a, b)[keep], np.maximum(a, b)[keep]
        keys = _sorted_unique(np.concatenate([keys, lo * vertices + hi]))
    else:
        raise GeneratorError("could not draw enough distinct undirected edges (graph too dense)")
    if keys.size > pairs_needed:
        keys = np.sort(rng.choice(keys, pairs_needed, replace=False))
    lo, hi = keys // vertices, keys % vertices
    src, dst = np.concatenate([lo, hi]), np.concatenate([hi, lo])
    order = np.lexsort((dst, src))
    src, dst = src[order], dst[order]
    row_ptr = np.zeros(vertices + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=vertices), out=row_ptr[1:])
    return row_ptr, dst.astype(np.int64)


def _csr_graph(rng, p, sizes):
    vertices, edges = expr.evaluate(p["vertices"], sizes), expr.evaluate(p["edges"], sizes)
    skew = p.get("distribution", "uniform")
    if p.get("undirected", False):
        row_ptr, col_idx = _undirected(vertices, edges, rng, skew)
    else:
        row_ptr, col_idx = _csr(vertices, vertices, edges, rng, skew, no_diagonal=True)
    weight_spec = dict(p.get("weights", {"kind": "uniform", "low": 1.0, "high": 10.0}))
    kind = weight_spec.pop("kind", "uniform")
    return {"row_ptr": row_ptr, "col_idx": col_idx, "weights": SINGLE[kind](edges, rng, weight_spec, sizes)}


JOINT: dict[str, tuple[Callable[..., dict[str, np.ndarray]], tuple[str, ...]]] = {
    "csr_matrix": (_csr_matrix, ("row_ptr", "col_idx", "values")),
    "csr_graph": (_csr_graph, ("row_ptr", "col_idx", "weights")),
}


def joint_slots(kind: str) -> tuple[str, ...]:
    if kind not in JOINT:
        raise GeneratorError(f"unknown joint generator {kind!r} (known: {', '.join(sorted(JOINT))})")
    return JOINT[kind][1]


def generate_joint(
    kind: str, params: Mapping[str, Any], rng: np.random.Generator, sizes: Mapping[str, int]
) -> dict[str, np.ndarray]:
    joint_slots(kind)
    return JOINT[kind][0](rng, params, sizes)
