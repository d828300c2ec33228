import numpy as np


def _factor(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """LAPACK getrf on a stack of matrices, vectorized over the stack: (row-major LU, 1-based pivots)."""
    count, n, _ = A.shape
    piv = np.empty((count, n), dtype=np.int32)
    rows = np.arange(count)
    for k in range(n):
        p = k + np.argmax(np.abs(A[:, k:, k]), axis=1)
        piv[:, k] = p + 1
        top = A[rows, k].copy()
        A[rows, k] = A[rows, p]
        A[rows, p] = top
        if k + 1 < n:
            lower = A[:, k + 1 :, k] / A[:, k, k][:, None]
            A[:, k + 1 :, k] = lower
            A[:, k + 1 :, k + 1 :] -= lower[:, :, None] * A[:, k, None, k + 1 :]
    return A, piv


def generate(sizes: dict, rng: np.random.Generator) -> dict:
    batch, n = sizes["batch"], sizes["n"]
    LU = np.empty((batch, n, n), dtype=np.float64)
    piv = np.empty((batch, n), dtype=np.int32)
    idx = np.arange(n)
    step = 4096  # in slabs, to keep the peak memory near the output's
    for s in range(0, batch, step):
        e = min(batch, s + step)
        # A diagonally dominant matrix with its rows shuffled: partial pivoting undoes the shuffle
        # (non-trivial interchanges) and the factors stay well conditioned.
        M = rng.uniform(-1.0, 1.0, (e - s, n, n))
        sign = np.where(rng.random((e - s, n)) < 0.5, -1.0, 1.0)
        M[:, idx, idx] = sign * (2.0 * np.sqrt(n) + 1.0 + rng.uniform(0.0, 1.0, (e - s, n)))
        order = np.argsort(rng.random((e - s, n)), axis=1)
        F, P = _factor(np.take_along_axis(M, order[:, :, None], axis=1))
        LU[s:e] = F.transpose(0, 2, 1)  # column-major, as LAPACK stores it
        piv[s:e] = P
    return {"LU": LU.reshape(-1), "piv": piv.reshape(-1)}
