"""lj_neighbor_energy's reference uses the shifted potential, so a pair at the cutoff adds ~0 whichever
side of rc2 rounding puts it (an H100 check once failed naive.cu and solution.cu on 4 of 4.7M atoms
when a contracted multiply-add moved such a pair across the cutoff of the unshifted potential)."""

from __future__ import annotations

import ctypes
import shutil
import subprocess

import numpy as np
import pytest

from regrapht.tasks import builtin_tasks_root

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ builds the serial reference")

F32P = np.ctypeslib.ndpointer(np.float32, flags="C_CONTIGUOUS")
I32P = np.ctypeslib.ndpointer(np.int32, flags="C_CONTIGUOUS")


def _reference(tmp_path):
    source = builtin_tasks_root() / "train" / "lj_neighbor_energy" / "serial.cpp"
    wrapper = tmp_path / "lj_c.cpp"
    wrapper.write_text(
        f'#include "{source}"\n'
        'extern "C" void lj_c(int n, int m, const float* x, const float* y, const float* z, const int* count,\n'
        "                     const int* neigh, float eps, float sigma2, float rc2, float* energy) {\n"
        "    lj_neighbor_energy(n, m, x, y, z, count, neigh, eps, sigma2, rc2, energy);\n"
        "}\n"
    )
    lib = tmp_path / "lj.so"
    subprocess.run(["g++", "-O2", "-ffp-contract=off", "-shared", "-fPIC", "-o", str(lib), str(wrapper)], check=True)
    fn = ctypes.CDLL(str(lib)).lj_c
    fn.restype = None
    fn.argtypes = [ctypes.c_int, ctypes.c_int, F32P, F32P, F32P, I32P, I32P, ctypes.c_float, ctypes.c_float,
                   ctypes.c_float, F32P]
    return fn


def _pair_energy(fn, r: np.float32, eps: float, sigma2: float, rc2: float) -> float:
    x = np.array([0.0, r], np.float32)
    zeros = np.zeros(2, np.float32)
    energy = np.zeros(2, np.float32)
    fn(2, 1, x, zeros, zeros, np.ones(2, np.int32), np.array([1, 0], np.int32), eps, sigma2, rc2, energy)
    return float(energy[0])


def test_a_pair_at_the_cutoff_adds_almost_nothing_on_either_side(tmp_path):
    fn = _reference(tmp_path)
    eps, sigma2, rc2 = 1.2, 0.7, 2.2
    rc = np.float32(np.sqrt(np.float32(rc2)))
    below = np.nextafter(rc, np.float32(0), dtype=np.float32)
    while below * below >= np.float32(rc2):  # the largest float distance whose r2 is inside the cutoff
        below = np.nextafter(below, np.float32(0), dtype=np.float32)
    assert abs(_pair_energy(fn, below, eps, sigma2, rc2)) < 1e-5  # unshifted: 4 eps (s^12 - s^6) ~ -0.19
    assert _pair_energy(fn, np.nextafter(rc, np.float32(2), dtype=np.float32), eps, sigma2, rc2) == 0.0
    # well inside, the shift is what the description says: V(r2) - V(rc2)
    r = np.float32(1.0)
    s6, s6c = (sigma2 / 1.0) ** 3, (np.float32(sigma2) / np.float32(rc2)) ** 3
    expected = 4 * eps * ((s6 * s6 - s6) - (s6c * s6c - s6c))
    assert _pair_energy(fn, r, eps, sigma2, rc2) == pytest.approx(expected, rel=1e-5)
