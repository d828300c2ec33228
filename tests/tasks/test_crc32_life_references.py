"""The serial references of two session-13 test tasks compute what their descriptions say:
crc32_messages is zlib's CRC-32 of each message (0xCBF43926 for "123456789"), and life_steps is
Conway's B3/S23 with a dead outside, against an independent NumPy version."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import zlib

import numpy as np
import pytest

from regrapht.tasks import builtin_tasks_root

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ builds the serial references")

U8P = np.ctypeslib.ndpointer(np.uint8, flags="C_CONTIGUOUS")
U32P = np.ctypeslib.ndpointer(np.uint32, flags="C_CONTIGUOUS")


def _build(tmp_path, task: str, wrapper: str):
    source = builtin_tasks_root() / "test" / task / "serial.cpp"
    path = tmp_path / f"{task}_c.cpp"
    path.write_text(f'#include "{source}"\n{wrapper}')
    lib = tmp_path / f"{task}.so"
    subprocess.run(["g++", "-O2", "-shared", "-fPIC", "-o", str(lib), str(path)], check=True)
    return ctypes.CDLL(str(lib))


def test_crc32_messages_is_zlibs_crc32(tmp_path):
    lib = _build(
        tmp_path,
        "crc32_messages",
        'extern "C" void crc_c(int count, int len, const unsigned char* d, unsigned int* c) { crc32_messages(count, len, d, c); }\n',
    )
    fn = lib.crc_c
    fn.restype = None
    fn.argtypes = [ctypes.c_int, ctypes.c_int, U8P, U32P]
    check = np.frombuffer(b"123456789", dtype=np.uint8).copy()
    out = np.zeros(1, np.uint32)
    fn(1, 9, check, out)
    assert out[0] == 0xCBF43926
    rng = np.random.default_rng(13)
    for count, length in [(5, 1), (7, 37), (3, 4096)]:
        data = rng.integers(0, 256, count * length, dtype=np.uint8)
        out = np.zeros(count, np.uint32)
        fn(count, length, data, out)
        expected = [zlib.crc32(data[m * length : (m + 1) * length].tobytes()) for m in range(count)]
        assert out.tolist() == expected


def _life(grid: np.ndarray, steps: int) -> np.ndarray:
    rows, cols = grid.shape
    now = grid.astype(np.int32)
    for _ in range(steps):
        framed = np.pad(now, 1)
        alive = sum(
            framed[1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols]
            for dr in (-1, 0, 1)
            for dc in (-1, 0, 1)
            if (dr, dc) != (0, 0)
        )
        now = ((alive == 3) | ((alive == 2) & (now == 1))).astype(np.int32)
    return now.astype(np.uint8)


def test_life_steps_is_b3s23_with_a_dead_outside(tmp_path):
    lib = _build(
        tmp_path,
        "life_steps",
        'extern "C" void life_c(int r, int c, int s, const unsigned char* a, unsigned char* o) { life_steps(r, c, s, a, o, nullptr); }\n',
    )
    fn = lib.life_c
    fn.restype = None
    fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, U8P, U8P]
    # a blinker along the top edge: the row above it is dead, so only the cell below its middle is born
    edge = np.zeros((4, 4), np.uint8)
    edge[0, 0:3] = 1
    out = np.zeros_like(edge)
    fn(4, 4, 1, edge, out)
    assert out.tolist() == _life(edge, 1).tolist() and out[0].tolist() == [0, 1, 0, 0] and out[1, 1] == 1
    rng = np.random.default_rng(13)
    for rows, cols, steps in [(1, 1, 1), (17, 33, 3), (40, 70, 6), (9, 5, 0)]:
        grid = (rng.random((rows, cols)) < 0.35).astype(np.uint8)
        out = np.zeros_like(grid)
        fn(rows, cols, steps, grid, out)
        assert np.array_equal(out, _life(grid, steps)), (rows, cols, steps)
