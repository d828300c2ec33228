"""Confining a candidate's worker with what the kernel enforces: Landlock for the filesystem (and TCP,
signals and abstract sockets where its ABI has them), seccomp-bpf for process creation and the network.

The worker applies it to itself once its own setup is done (CUDA context creation opens /dev/nvidia*,
the driver and OpenMP start threads) and before it loads the candidate's library (the loader must still
read the library and its dependencies). Both need no privilege, only `no_new_privs`, and no library:
the system calls are made through ctypes, the BPF program is built here.

- Landlock: reads beneath the system's library folders, the Python installation, /proc, /sys, the
  CUDA device files, the candidate's libraries and the task's input folder; reads and writes beneath
  the job's own scratch folder; nothing else (home, the run store, other scratch folders, /tmp, other
  evaluators' folders in /dev/shm). A Landlock domain covers the thread that creates it and the threads
  and processes it starts later; threads started before it (the CUDA driver's) are not confined by
  it (what reaches them, host callbacks, is refused by the symbol screen), seccomp covers them.
- seccomp, on every thread of the process (TSYNC): no fork, vfork, exec or non-thread clone (the process
  is killed: SIGSYS), no sockets but AF_UNIX, no signals to other processes, no ptrace, no namespaces,
  mounts, io_uring or perf counters. Rules and numbers: data/sandbox_syscalls.toml.

Namespaces are not used: an unprivileged network namespace needs a user namespace, which a process can
only enter while it has one thread, and a CUDA worker has many before its candidate is known.
"""

from __future__ import annotations

import ctypes
import functools
import os
import stat
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# Landlock (include/uapi/linux/landlock.h); its system calls have the same numbers on every architecture.
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_REMOVE_DIR, _REMOVE_FILE, _MAKE_CHAR, _MAKE_DIR, _MAKE_REG = 1 << 4, 1 << 5, 1 << 6, 1 << 7, 1 << 8
_REFER, _TRUNCATE, _IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1
_FILE_RIGHTS = _EXECUTE | _WRITE_FILE | _READ_FILE | _TRUNCATE | _IOCTL_DEV  # the rest are for folders

# seccomp (include/uapi/linux/seccomp.h, filter.h)
_PR_SET_NO_NEW_PRIVS, _PR_GET_SECCOMP = 38, 21
_SECCOMP_SET_MODE_FILTER, _SECCOMP_FILTER_FLAG_TSYNC = 1, 1
_RET_KILL_PROCESS, _RET_ERRNO, _RET_ALLOW = 0x80000000, 0x00050000, 0x7FFF0000
_LD_ABS_W, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_OFF_NR, _OFF_ARCH, _OFF_ARG0 = 0, 4, 16  # struct seccomp_data; the low half of args[0] (little endian)
_CLONE_THREAD, _AF_UNIX, _EPERM, _EACCES = 0x10000, 1, 1, 13

# Folders whose files any process may read: libraries and the loader's configuration.
_SYSTEM_READ = ("/usr", "/lib", "/lib64", "/lib32", "/libx32", "/opt", "/etc/ld.so.cache",
                "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/ld.so.preload", "/etc/nvidia")
# Device files the worker may open read-write: the GPU's and the harmless ones.
_DEVICES = ("null", "zero", "full", "random", "urandom")


class SandboxError(RuntimeError):
    """A protection the kernel does not offer here, or one that failed to apply."""


@functools.cache
def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    libc.prctl.restype = ctypes.c_int
    return libc


def _fail(what: str) -> SandboxError:
    errno = ctypes.get_errno()
    return SandboxError(f"{what}: {os.strerror(errno)} (errno {errno})")


def landlock_abi() -> int | None:
    """The Landlock ABI version this kernel offers; None when it has none (or it is disabled)."""
    if sys.platform != "linux":
        return None
    version = _libc().syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION)
    return int(version) if version > 0 else None


@functools.cache
def _syscall_table() -> dict[str, Any]:
    # A path, not importlib.resources: this runs in every worker, and that import alone took 4 ms.
    return tomllib.loads((Path(__file__).resolve().parent.parent / "data" / "sandbox_syscalls.toml").read_text())


def seccomp_problem() -> str | None:
    """Why seccomp filters cannot be installed here, or None when they can."""
    if sys.platform != "linux":
        return f"seccomp is Linux only (this is {sys.platform})"
    machine = os.uname().machine
    if machine not in _syscall_table()["arch"]:
        return f"no system call table for {machine}"
    if _libc().prctl(_PR_GET_SECCOMP, 0, 0, 0, 0) < 0:
        return f"the kernel offers no seccomp ({os.strerror(ctypes.get_errno())})"
    return None


def probe() -> dict[str, Any]:
    """What this kernel offers, without applying anything (for the evaluator, before any worker)."""
    abi = landlock_abi()
    seccomp_off = seccomp_problem()
    reasons = ([] if abi else ["the kernel offers no Landlock"]) + ([seccomp_off] if seccomp_off else [])
    return {"landlock": abi, "seccomp": seccomp_off is None, "reason": "; ".join(reasons) or None}


# ---- Landlock ---------------------------------------------------------------------------------------
class _RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _handled_fs(abi: int) -> int:
    rights = (1 << 13) - 1  # ABI 1: execute ... make_sym
    if abi >= 2:
        rights |= _REFER
    if abi >= 3:
        rights |= _TRUNCATE
    if abi >= 5:
        rights |= _IOCTL_DEV
    return rights


def python_paths() -> list[str]:
    """The folders this interpreter imports from, where a loaded module lives: the standard library,
    site-packages, regrapht's own folder. Not the working folder nor a bare home folder."""
    roots = sorted({os.path.abspath(p) for p in sys.path if p and os.path.isdir(p)}, key=len, reverse=True)
    used = set()
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if not path:
            continue
        path = os.path.abspath(path)
        for root in roots:
            if path.startswith(root + os.sep):
                used.add(root)
                break
    used.update({sys.base_prefix, sys.prefix, sys.exec_prefix, os.path.dirname(os.__file__)})
    excluded = {"/", os.path.expanduser("~"), os.getcwd()}
    return sorted(p for p in used if p not in excluded)


def mapped_library_folders() -> list[str]:
    """Folders of the shared objects already mapped into this process (NumPy's, the CUDA driver's):
    libraries loaded later often come from beside them."""
    folders = set()
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                parts = line.split(None, 5)
                if len(parts) == 6 and parts[5].startswith("/") and ".so" in parts[5]:
                    folders.add(os.path.dirname(parts[5].strip()))
    except OSError:
        pass
    return sorted(folders)


def system_read_paths() -> list[str]:
    """Everything a worker reads whatever its job: libraries, the interpreter, /proc and /sys."""
    paths = [*_SYSTEM_READ, "/proc", "/sys", *python_paths(), *mapped_library_folders()]
    paths += [p for p in os.environ.get("LD_LIBRARY_PATH", "").split(":") if p]
    # A library folder is never the root or a whole home folder, whatever was mapped from there.
    too_wide = {"/", os.path.expanduser("~")}
    return [p for p in paths if os.path.abspath(p) not in too_wide]


def _device_rules(abi: int) -> list[tuple[str, int]]:
    """The GPU's device files and the harmless ones, read-write (ioctl too); the GPU's folders of
    device files (/dev/nvidia-caps), read. Not /dev itself: /dev/shm holds other evaluators' scratch."""
    rights_rw = _READ_FILE | _WRITE_FILE | (_IOCTL_DEV if abi >= 5 else 0)
    rules = []
    try:
        entries = list(os.scandir("/dev"))
    except OSError:
        return rules
    for entry in entries:
        try:
            mode = entry.stat(follow_symlinks=False).st_mode
        except OSError:
            continue
        nvidia = entry.name.startswith("nvidia")
        if stat.S_ISCHR(mode) and (nvidia or entry.name in _DEVICES):
            rules.append((entry.path, rights_rw))
        elif stat.S_ISDIR(mode) and nvidia:
            rules.append((entry.path, rights_rw | _READ_DIR))
    return rules


def _apply_landlock(read: Iterable[str], write: Iterable[str]) -> int:
    abi = landlock_abi()
    if abi is None:
        raise SandboxError("the kernel offers no Landlock")
    libc = _libc()
    handled = _handled_fs(abi)
    attr = _RulesetAttr(handled, 0, 0)
    size = 8
    if abi >= 4:
        attr.net, size = _NET_BIND_TCP | _NET_CONNECT_TCP, 16  # every TCP bind and connect refused
    if abi >= 6:
        attr.scoped, size = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL, 24
    ruleset = libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
    if ruleset < 0:
        raise _fail("creating the Landlock ruleset")
    reading = _EXECUTE | _READ_FILE | _READ_DIR
    # REFER lets a file move between folders of the writable trees (a cache that writes a temporary
    # folder, then renames its file into place: Triton's and Inductor's do); without it Landlock
    # answers such a rename EXDEV. Both ends must grant it, so nothing moves into or out of the rest.
    writing = reading | _WRITE_FILE | _REMOVE_DIR | _REMOVE_FILE | _MAKE_DIR | _MAKE_REG | ((_TRUNCATE | _REFER) & handled)
    rules = [(p, reading) for p in read] + [(p, writing) for p in write] + _device_rules(abi)
    try:
        seen: set[tuple[str, int]] = set()
        for path, rights in rules:
            if (path, rights) in seen:
                continue
            seen.add((path, rights))
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # absent here (no /lib32, no GPU): nothing to allow
            try:
                if not stat.S_ISDIR(os.fstat(fd).st_mode):
                    rights &= _FILE_RIGHTS
                rule = _PathBeneath(rights & handled, fd)
                if libc.syscall(_SYS_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0) < 0:
                    raise _fail(f"allowing {path} in the Landlock ruleset")
            finally:
                os.close(fd)
        if libc.syscall(_SYS_RESTRICT_SELF, ruleset, 0) < 0:
            raise _fail("entering the Landlock domain")
    finally:
        os.close(ruleset)
    return abi


# ---- seccomp ------------------------------------------------------------------------------------------
class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def _action_body(rule: dict[str, Any], pid: int) -> list[tuple[int, int, int, int]]:
    action = rule["action"]
    if action == "kill":
        return [(_RET, 0, 0, _RET_KILL_PROCESS)]
    if action == "errno":
        return [(_RET, 0, 0, _RET_ERRNO | int(rule.get("errno", _EPERM)))]
    if action == "only_own_pid":
        return [(_LD_ABS_W, 0, 0, _OFF_ARG0), (_JEQ, 0, 1, pid), (_RET, 0, 0, _RET_ALLOW),
                (_RET, 0, 0, _RET_ERRNO | _EPERM)]
    if action == "threads_only":
        return [(_LD_ABS_W, 0, 0, _OFF_ARG0), (_JSET, 0, 1, _CLONE_THREAD), (_RET, 0, 0, _RET_ALLOW),
                (_RET, 0, 0, _RET_KILL_PROCESS)]
    if action == "unix_only":
        return [(_LD_ABS_W, 0, 0, _OFF_ARG0), (_JEQ, 0, 1, _AF_UNIX), (_RET, 0, 0, _RET_ALLOW),
                (_RET, 0, 0, _RET_ERRNO | _EACCES)]
    raise ValueError(f"unknown seccomp action {action!r}")


def seccomp_program(machine: str, pid: int, processes: bool = False) -> list[tuple[int, int, int, int]]:
    """The filter as (code, jt, jf, k) instructions: a foreign architecture (i386 through int 0x80)
    or an x32 call kills the process; each listed call gets its rule's action; the rest are allowed.
    `processes`: fork, exec and non-thread clone allowed (rules marked `processes = true` left out)."""
    table = _syscall_table()
    arch, numbers = table["arch"][machine], table["numbers"][machine]
    program = [(_LD_ABS_W, 0, 0, _OFF_ARCH), (_JEQ, 1, 0, int(arch["audit"])), (_RET, 0, 0, _RET_KILL_PROCESS),
               (_LD_ABS_W, 0, 0, _OFF_NR)]
    if "x32_bit" in arch:
        program += [(_JGE, 0, 1, int(arch["x32_bit"])), (_RET, 0, 0, _RET_KILL_PROCESS)]
    for rule in table["rule"]:
        if processes and rule.get("processes"):
            continue
        for name in rule["names"]:
            if name not in numbers:
                continue  # not a call on this architecture (aarch64 has no fork)
            body = _action_body(rule, pid)
            program.append((_JEQ, 0, len(body), int(numbers[name])))
            program += body
    program.append((_RET, 0, 0, _RET_ALLOW))
    return program


def _apply_seccomp(processes: bool = False) -> None:
    problem = seccomp_problem()
    if problem:
        raise SandboxError(problem)
    machine = os.uname().machine
    program = seccomp_program(machine, os.getpid(), processes)
    filters = (_SockFilter * len(program))(*[_SockFilter(c, jt, jf, k) for c, jt, jf, k in program])
    fprog = _SockFprog(len(program), filters)
    nr = int(_syscall_table()["numbers"][machine]["seccomp"])
    result = _libc().syscall(nr, _SECCOMP_SET_MODE_FILTER, _SECCOMP_FILTER_FLAG_TSYNC, ctypes.byref(fprog))
    if result < 0:
        raise _fail("installing the seccomp filter")
    if result > 0:
        raise SandboxError(f"thread {result} could not take the seccomp filter")


def confine(read: Iterable[str], write: Iterable[str], processes: bool = False) -> dict[str, Any]:
    """Confine this process: reads beneath `read` (and the system's libraries), reads and writes beneath
    `write`, no new processes (unless `processes`: its children inherit both), no network. Applies what the kernel offers; the report says what that
    was ({"landlock": ABI or None, "seccomp": bool, "reason": why something is missing, "seconds"})."""
    began = time.perf_counter()
    report: dict[str, Any] = {"landlock": None, "seccomp": False, "reason": None}
    reasons = []
    if _libc().prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        reasons.append(str(_fail("setting no_new_privs")))
    else:
        try:
            report["landlock"] = _apply_landlock([*system_read_paths(), *read], list(write))
        except SandboxError as exc:
            reasons.append(f"Landlock: {exc}")
        try:
            _apply_seccomp(processes)
            report["seccomp"] = True
        except SandboxError as exc:
            reasons.append(f"seccomp: {exc}")
    report["reason"] = "; ".join(reasons) or None
    report["seconds"] = round(time.perf_counter() - began, 6)
    return report
