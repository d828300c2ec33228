"""A minimal ctypes binding to the CUDA runtime the candidates link against.

The harness loads the toolkit's libcudart.so with RTLD_GLOBAL before any candidate, and candidates
are built with `-cudart shared`, so both use one runtime instance: launch errors a candidate leaves
behind are visible to the harness's cudaGetLastError.
"""

from __future__ import annotations

import ctypes
import os

H2D, D2H, D2D = 1, 2, 3
ATTR_CLOCK_RATE_KHZ = 13
ATTR_SM_COUNT = 16
ATTR_L2_BYTES = 38
ATTR_COMPUTE_MODE = 20
COMPUTE_MODE_DEFAULT = 0
IPC_LAZY_ENABLE_PEER_ACCESS = 1
IPC_HANDLE_BYTES = 64


class IpcMemHandle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_char * IPC_HANDLE_BYTES)]


class CudaError(RuntimeError):
    def __init__(self, code: int, name: str, text: str, where: str):
        super().__init__(f"{where}: {text} ({name})")
        self.code, self.name, self.text, self.where = code, name, text, where


class CudaRuntime:
    def __init__(self, path: str, global_symbols: bool = True):
        # Global in a worker, so the candidate's library binds to this instance; local in the
        # parent, which may hold another CUDA runtime already (PyTorch's).
        self.lib = ctypes.CDLL(
            path, mode=os.RTLD_NOW | (ctypes.RTLD_GLOBAL if global_symbols else os.RTLD_LOCAL)
        )
        lib = self.lib
        lib.cudaGetErrorString.restype = ctypes.c_char_p
        lib.cudaGetErrorName.restype = ctypes.c_char_p
        lib.cudaMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        lib.cudaMemset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
        lib.cudaFree.argtypes = [ctypes.c_void_p]
        lib.cudaEventRecord.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.cudaEventElapsedTime.argtypes = [ctypes.POINTER(ctypes.c_float), ctypes.c_void_p, ctypes.c_void_p]
        lib.cudaEventSynchronize.argtypes = [ctypes.c_void_p]
        lib.cudaIpcGetMemHandle.argtypes = [ctypes.POINTER(IpcMemHandle), ctypes.c_void_p]
        lib.cudaIpcOpenMemHandle.argtypes = [ctypes.POINTER(ctypes.c_void_p), IpcMemHandle, ctypes.c_uint]
        lib.cudaIpcCloseMemHandle.argtypes = [ctypes.c_void_p]

    def error_text(self, code: int) -> tuple[str, str]:
        return (self.lib.cudaGetErrorName(code).decode(), self.lib.cudaGetErrorString(code).decode())

    def check(self, code: int, where: str) -> None:
        if code != 0:
            name, text = self.error_text(code)
            raise CudaError(code, name, text, where)

    def init(self, device: int = 0) -> None:
        self.check(self.lib.cudaSetDevice(device), "cudaSetDevice")
        self.check(self.lib.cudaFree(None), "creating the CUDA context")

    def malloc(self, nbytes: int) -> int:
        ptr = ctypes.c_void_p()
        self.check(
            self.lib.cudaMalloc(ctypes.byref(ptr), ctypes.c_size_t(max(nbytes, 1))), f"cudaMalloc({nbytes})"
        )
        return int(ptr.value or 0)

    def free(self, ptr: int) -> None:
        self.lib.cudaFree(ctypes.c_void_p(ptr))

    def host_alloc(self, nbytes: int) -> int:
        """Page-locked host memory: copies to and from it run at the link's full speed."""
        ptr = ctypes.c_void_p()
        self.check(
            self.lib.cudaMallocHost(ctypes.byref(ptr), ctypes.c_size_t(max(nbytes, 1))),
            f"cudaMallocHost({nbytes})",
        )
        return int(ptr.value or 0)

    def memcpy(self, dst: int, src: int, nbytes: int, kind: int) -> None:
        if nbytes:
            self.check(self.lib.cudaMemcpy(dst, src, nbytes, kind), "cudaMemcpy")

    def memset(self, ptr: int, value: int, nbytes: int) -> None:
        if nbytes:
            self.check(self.lib.cudaMemset(ptr, value, nbytes), "cudaMemset")

    def ipc_handle(self, ptr: int) -> str:
        """A handle (hex) another process can open to map the allocation that starts at `ptr`."""
        handle = IpcMemHandle()
        self.check(
            self.lib.cudaIpcGetMemHandle(ctypes.byref(handle), ctypes.c_void_p(ptr)), "cudaIpcGetMemHandle"
        )
        # Read as raw bytes: the field's own accessor would stop at the first zero byte.
        return ctypes.string_at(ctypes.addressof(handle), IPC_HANDLE_BYTES).hex()

    def ipc_handle_bytes(self, ptr: int) -> bytes:
        """The raw handle of the allocation at `ptr` (the parent's, written to a worker's handle file)."""
        return bytes.fromhex(self.ipc_handle(ptr))

    def ipc_open_struct(self, handle: IpcMemHandle) -> int:
        """Map the allocation behind `handle` (a struct the caller owns and scrubs) into this context."""
        ptr = ctypes.c_void_p()
        self.check(
            self.lib.cudaIpcOpenMemHandle(ctypes.byref(ptr), handle, IPC_LAZY_ENABLE_PEER_ACCESS),
            "cudaIpcOpenMemHandle",
        )
        return int(ptr.value or 0)

    def ipc_close(self, ptr: int) -> int:
        return int(self.lib.cudaIpcCloseMemHandle(ctypes.c_void_p(ptr)))

    def ipc_open(self, handle_hex: str) -> int:
        raw = bytes.fromhex(handle_hex)
        if len(raw) != IPC_HANDLE_BYTES:
            raise ValueError(f"an IPC handle has {IPC_HANDLE_BYTES} bytes, not {len(raw)}")
        handle = IpcMemHandle()
        ctypes.memmove(ctypes.addressof(handle), raw, IPC_HANDLE_BYTES)
        ptr = ctypes.c_void_p()
        self.check(
            self.lib.cudaIpcOpenMemHandle(ctypes.byref(ptr), handle, IPC_LAZY_ENABLE_PEER_ACCESS),
            "cudaIpcOpenMemHandle",
        )
        return int(ptr.value or 0)

    def synchronize(self) -> int:
        return int(self.lib.cudaDeviceSynchronize())

    def last_error(self) -> int:
        return int(self.lib.cudaGetLastError())

    def attribute(self, attr: int, device: int = 0) -> int:
        value = ctypes.c_int()
        self.check(
            self.lib.cudaDeviceGetAttribute(ctypes.byref(value), attr, device), "cudaDeviceGetAttribute"
        )
        return value.value

    def mem_info(self) -> tuple[int, int]:
        free, total = ctypes.c_size_t(), ctypes.c_size_t()
        self.check(self.lib.cudaMemGetInfo(ctypes.byref(free), ctypes.byref(total)), "cudaMemGetInfo")
        return free.value, total.value

    def versions(self) -> tuple[int, int]:
        runtime, driver = ctypes.c_int(), ctypes.c_int()
        self.lib.cudaRuntimeGetVersion(ctypes.byref(runtime))
        self.lib.cudaDriverGetVersion(ctypes.byref(driver))
        return runtime.value, driver.value

    def event(self) -> int:
        ev = ctypes.c_void_p()
        self.check(self.lib.cudaEventCreate(ctypes.byref(ev)), "cudaEventCreate")
        return int(ev.value or 0)

    def record(self, event: int) -> None:
        # Stream 0 is the legacy default stream, which waits for all blocking streams.
        self.check(self.lib.cudaEventRecord(event, None), "cudaEventRecord")

    def elapsed_s(self, start: int, end: int) -> float:
        ms = ctypes.c_float()
        self.check(self.lib.cudaEventSynchronize(end), "cudaEventSynchronize")
        self.check(self.lib.cudaEventElapsedTime(ctypes.byref(ms), start, end), "cudaEventElapsedTime")
        return ms.value / 1e3
