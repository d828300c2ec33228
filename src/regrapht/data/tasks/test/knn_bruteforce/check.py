import numpy as np

K = 8


def check(inputs, expected, actual, sizes):
    nq, nref, dims = sizes["nq"], sizes["nref"], sizes["dims"]
    q = inputs["queries"].astype(np.float64).reshape(nq, dims)
    r = inputs["refs"].astype(np.float64).reshape(nref, dims)
    idx = actual["knn_idx"].reshape(nq, K)
    dist = actual["knn_dist"].astype(np.float64).reshape(nq, K)
    bad = (idx < 0) | (idx >= nref)
    if bad.any():
        row = int(np.flatnonzero(bad.any(axis=1))[0])
        return f"query {row}: neighbour index out of range: {idx[row].tolist()}"
    srt = np.sort(idx, axis=1)
    dup = (srt[:, 1:] == srt[:, :-1]).any(axis=1)
    if dup.any():
        row = int(np.flatnonzero(dup)[0])
        return f"query {row}: a neighbour is listed twice: {idx[row].tolist()}"
    true = ((r[idx] - q[:, None, :]) ** 2).sum(axis=2)
    # The same tolerance as knn_dist's in task.toml: the standard float expansion
    # |q|^2 + |r|^2 - 2 q.r cancels terms up to 2*dims and is off by a few ulp of 16.
    off = np.abs(true - dist) > 1e-5 + 1e-4 * np.abs(true)
    if off.any():
        row, col = (int(v) for v in np.argwhere(off)[0])
        return (
            f"query {row}: neighbour {col} is reference {int(idx[row, col])} at squared distance "
            f"{true[row, col]:.9g}, but {dist[row, col]:.9g} was reported"
        )
    return None
