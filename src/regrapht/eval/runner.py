"""Starting a worker process and watching it: inactivity and total timeouts, a memory ceiling,
process-group kill, capped capture of whatever the candidate prints, and a result channel
(a pipe this process owns) checked for completeness."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from regrapht.eval.protocol import OPEN_CONTEXT, Event, ProtocolError, check_message

# What the parent answers a worker message with: "stop", a dict for the worker's stdin, or nothing.
Reply = Literal["stop"] | dict[str, Any] | None

OUTPUT_CAP = 8192
STARTUP_ALLOWANCE_S = 60.0
# How long a killed worker may take to be reaped. A SIGKILLed process normally goes within a second
# (a GPU one once the driver has torn down its context); one still there after this is stuck in the
# kernel (uninterruptible, as in a hung driver call). It runs no code any more, so the evaluator goes
# on without it, and says so in the next record, rather than wait for it for ever.
EXIT_WAIT_S = 30.0


@dataclass
class WorkerOutcome:
    messages: list[dict[str, Any]] = field(default_factory=list)
    complete: bool = False  # a `done` message arrived and its count matched
    returncode: int | None = None
    signal_name: str | None = None
    timed_out: bool = False
    timeout_reason: str = ""
    memory_exceeded: bool = False
    # Killed by the kernel's out-of-memory killer: the machine ran out before the RSS ceiling was
    # seen crossed (the poll samples every few milliseconds; a fast hog can outrun it).
    oom_killed: bool = False
    peak_rss: int = 0
    channel_error: str | None = None
    stopped_early: bool = False  # the parent had its verdict and ended the worker on purpose
    output_head: str = ""
    output_bytes: int = 0
    seconds: float = 0.0
    started_at: float = 0.0  # CLOCK_MONOTONIC as the job was handed over (`seconds` counts from here)
    reply_s: float = 0.0  # the parent's time answering its messages (the worker waits on it)
    # Ended by the parent as its `done` arrived (run_worker's end_at_done): its exit is reaped later.
    ended_at_done: bool = False
    # Earlier workers, or this one, that had not exited EXIT_WAIT_S after their kill (see Exits).
    notes: list[str] = field(default_factory=list)

    def last(self, event: str) -> dict[str, Any] | None:
        for message in reversed(self.messages):
            if message.get("event") == event:
                return message
        return None

    def all(self, event: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("event") == event]


def _rss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def _worker_env(env: dict[str, str] | None) -> dict[str, str]:
    """The environment with this regrapht's folder first on PYTHONPATH: the worker must run the same
    code as the evaluator that judges its messages, even where PYTHONPATH is relative and the working
    folder has moved, or another regrapht is installed."""
    env = dict(os.environ if env is None else env)
    env.pop("REGRAPHT_TRACE", None)  # the harness's trace folder (eval/trace.py) is no candidate's to write
    package_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join([package_root, *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]])
    return env


def oom_kills() -> int | None:
    """Processes the kernel's out-of-memory killer has ended since boot (Linux 4.13+), or None."""
    try:
        for line in Path("/proc/vmstat").read_text().splitlines():
            if line.startswith("oom_kill "):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def _spawn(
    first: str, after_fd: list[str], env: dict[str, str] | None, module: str = "regrapht.eval.worker"
) -> tuple[subprocess.Popen, int]:
    """The worker's command line is `FIRST CHANNEL_FD [...]`: a job file, or `--spare` and a library.
    `module` is the worker's script (torch tasks run regrapht.eval.torch_worker)."""
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        [sys.executable, "-m", module, first, str(write_fd), *after_fd],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        pass_fds=(write_fd,),
        start_new_session=True,
        env=_worker_env(env),
    )
    os.close(write_fd)
    return proc, read_fd


class Exits:
    """Workers the parent ended at their `done` message, still exiting. A worker's exit, once its
    last message is in, is mostly its CUDA context being torn down (about 0.1 s on an H100); it
    runs here, on a thread, beside the parent's judging of that worker, instead of holding up the
    parent. No worker starts until every earlier one is gone (`settle`, at each start): the device
    memory an exiting candidate held is free before the next one runs, and no two candidates' processes overlap."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._pending = 0
        self._then: list[Callable[[], None]] = []
        self._stuck: list[str] = []  # workers not reaped within EXIT_WAIT_S, until the next start reports them

    def reap(self, proc: subprocess.Popen) -> None:
        """End `proc` now (SIGKILL to its group: nothing of it runs any more) and reap it in the background."""
        _sigkill_group(proc)
        with self._cond:
            self._pending += 1
        threading.Thread(target=self._wait, args=(proc,), name="regrapht-reap", daemon=True).start()

    def _wait(self, proc: subprocess.Popen) -> None:
        gone = True
        try:
            gone = _kill_group(proc)
        finally:
            with self._cond:
                if not gone:
                    self._stuck.append(_stuck_note(proc.pid))
                self._pending -= 1
                then = self._then if self._pending == 0 else []
                if self._pending == 0:
                    self._then = []
                self._cond.notify_all()
            for fn in then:
                with contextlib.suppress(Exception):
                    fn()

    def settle(self, timeout_s: float | None = None) -> list[str]:
        """Wait until every worker ended at its `done` is gone: the next candidate's code must not
        run beside a previous one's process on the GPU, however long its teardown takes (as when
        workers were killed and reaped in line). Bounded: each reap gives up after EXIT_WAIT_S
        (`timeout_s`, default a little more, guards against a reap thread that never ends). Returns
        a note per worker that was given up on since the last call, for the next record."""
        bound = EXIT_WAIT_S + 5.0 if timeout_s is None else timeout_s
        with self._cond:
            if not self._cond.wait_for(lambda: self._pending == 0, timeout=bound):
                self._stuck.append(f"{self._pending} earlier worker(s) were still being reaped {bound:g} s on; "
                                   "this worker started beside them")
            stuck, self._stuck = self._stuck, []
        return stuck

    def then(self, fn: Callable[[], None]) -> None:
        """Call `fn` once no worker is exiting (now, where none is)."""
        with self._cond:
            if self._pending:
                self._then.append(fn)
                return
        fn()


EXITS = Exits()

# Workers running now, so that a process that must stop before its evaluations end (a reward
# service past its shutdown grace) can end them: each runs in a session of its own, and nothing
# else would stop a candidate that never returns once this process, its watchdog, is gone.
_LIVE: set[subprocess.Popen] = set()
_LIVE_LOCK = threading.Lock()
# Set by end_workers: this process is stopping. An evaluation still running goes on to its next
# candidate and starts another worker, which nothing would stop once the process is gone.
_ENDING = threading.Event()


def end_workers() -> int:
    """End every worker this process is running now (SIGKILL to its group), and every one it starts
    from now on, at its start; returns how many were running. Their evaluations end as killed
    (runtime_error); a stopping service calls this, once, as it stops."""
    with _LIVE_LOCK:
        _ENDING.set()
        running = list(_LIVE)
    for proc in running:
        _sigkill_group(proc)
    return len(running)


class SpareWorker:
    """A worker process started ahead of its job: Python and NumPy come up while the previous
    candidate runs, the CUDA context once its measurement is over (`open_context`). It loads no
    candidate code until `run_worker` hands it a job, and a spare that died in the meantime is
    replaced by a fresh process there."""

    def __init__(self, libcudart: str, env: dict[str, str] | None = None, module: str = "regrapht.eval.worker"):
        self.libcudart = libcudart
        self.proc, self.read_fd = _spawn("--spare", [libcudart], env, module)
        self.started = time.monotonic()
        self.context_opened = False

    def open_context(self) -> None:
        """Let the spare create its CUDA context. Creating one touches the device, so the parent says
        when: once no candidate is being measured. A spare never told takes its job without one."""
        if not self.context_opened:
            self.context_opened = True
            _send_line(self.proc, OPEN_CONTEXT)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def discard(self) -> None:
        _kill_group(self.proc)
        with contextlib.suppress(OSError):
            os.close(self.read_fd)
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                stream.close()  # type: ignore[union-attr]


def run_worker(
    job: dict[str, Any],
    job_path: Path,
    idle_timeout_s: float,
    total_timeout_s: float,
    memory_limit_bytes: int,
    env: dict[str, str] | None = None,
    on_message: Callable[[dict[str, Any]], Reply] | None = None,
    spare: SpareWorker | None = None,
    module: str = "regrapht.eval.worker",
    check: Callable[[Any], dict[str, Any]] = check_message,
    end_at_done: bool = False,
) -> WorkerOutcome:
    """Run one worker (`module`, whose messages `check` accepts or refuses: the protocol of the
    serial worker by default, eval/torch_protocol.py's for torch tasks). `on_message` sees each message as it arrives and may answer "stop" (the parent
    has its verdict: end the worker) or a dict, which is sent to the worker's stdin as a JSON line.
    A live `spare` whose CUDA library matches the job's takes the job instead of a new process.

    A spare waits for its job beside a running candidate, and another process of the same user can
    write to its stdin. So the job carries a fresh nonce that its `hello` must echo: a spare that
    ran anything else (or died before saying hello, which no candidate code precedes) has its
    messages withheld from `on_message`, and the job runs again in a fresh process.

    With `end_at_done`, the worker is ended (SIGKILL) as soon as its complete `done` message is in,
    and reaped in the background (`EXITS`): its verdict needs nothing more from it. Only for workers
    that end at once after `done` (eval/worker.py calls os._exit there)."""
    stuck = EXITS.settle()  # no worker starts beside an earlier one that is still exiting (bounded)
    nonce = secrets.token_hex(16)
    job_path.write_text(json.dumps({**job, "nonce": nonce}))
    outcome = WorkerOutcome(notes=stuck)
    start = outcome.started_at = time.monotonic()
    oom_before = oom_kills()
    from_spare = spare is not None and spare.alive() and spare.libcudart == (job.get("libcudart") or "")
    if from_spare:
        assert spare is not None
        proc, read_fd = spare.proc, spare.read_fd
        _send_line(proc, str(job_path))
    else:
        if spare is not None:
            spare.discard()
        proc, read_fd = _spawn(str(job_path), [], env, module)
    with _LIVE_LOCK:
        _LIVE.add(proc)
        ending = _ENDING.is_set()
    if ending:  # end_workers ran: this worker would outlive the process that watches it
        _sigkill_group(proc)
    foreign = [False]
    last_activity = [time.monotonic()]
    # While the parent works on a message (say, preparing bench data), the worker waits on it:
    # that time counts toward neither timeout.
    parent_busy = [False]
    paused_s = [0.0]
    done_seen = threading.Event()

    def read_channel() -> None:
        buffer = b""
        with os.fdopen(read_fd, "rb", buffering=0) as pipe:
            while True:
                chunk = pipe.read(1 << 16)
                if not chunk:
                    break
                last_activity[0] = time.monotonic()
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    try:
                        message = json.loads(line)
                        if not isinstance(message, dict):
                            raise ValueError("not an object")
                    except ValueError:
                        outcome.channel_error = f"unreadable message on the result channel: {line[:120]!r}"
                        continue
                    if from_spare and not outcome.messages and message.get("nonce") != nonce:
                        foreign[0] = outcome.stopped_early = True
                    elif not foreign[0]:
                        try:
                            check(message)
                        except ProtocolError as exc:
                            # Never handed on: the parent reads only messages the protocol defines.
                            outcome.channel_error = outcome.channel_error or (
                                f"malformed message on the result channel ({exc}): {line[:120]!r}"
                            )
                            continue
                    outcome.messages.append(message)
                    last = message.get("event") == Event.DONE and message.get("messages") == len(outcome.messages)
                    if on_message is not None and not outcome.stopped_early:
                        parent_busy[0] = True
                        began = time.monotonic()
                        try:
                            reply = on_message(message)
                        finally:
                            paused_s[0] += time.monotonic() - began
                            last_activity[0] = time.monotonic()
                            parent_busy[0] = False
                        if reply == "stop":
                            outcome.stopped_early = True
                        elif isinstance(reply, dict):
                            _send(proc, reply)
                    if last and end_at_done and not foreign[0]:
                        # Its last message: whatever the process writes after it (its own threads,
                        # in the instant before it exits) is not read, so the verdict never depends
                        # on how soon it is killed.
                        done_seen.set()
                        return
        if buffer.strip():
            outcome.channel_error = outcome.channel_error or "the result channel ended mid-message"

    def drain_output() -> None:
        assert proc.stdout is not None
        head = bytearray()
        while True:
            chunk = proc.stdout.read1(1 << 16) if hasattr(proc.stdout, "read1") else proc.stdout.read(1 << 16)
            if not chunk:
                break
            outcome.output_bytes += len(chunk)
            if len(head) < OUTPUT_CAP:
                head += chunk[: OUTPUT_CAP - len(head)]
                outcome.output_head = head.decode(errors="replace")  # as it comes: a worker ended at `done` is not waited for

    readers = [
        threading.Thread(target=read_channel, daemon=True),
        threading.Thread(target=drain_output, daemon=True),
    ]
    for thread in readers:
        thread.start()

    try:
        while proc.poll() is None and not outcome.stopped_early:
            if end_at_done and done_seen.is_set():
                outcome.ended_at_done = True
                break
            now = time.monotonic()
            rss = _rss_bytes(proc.pid)
            outcome.peak_rss = max(outcome.peak_rss, rss)
            if rss > memory_limit_bytes:
                outcome.memory_exceeded = True
                break
            if parent_busy[0]:
                time.sleep(0.02)
                continue
            if now - start - paused_s[0] > total_timeout_s:
                outcome.timed_out, outcome.timeout_reason = (
                    True,
                    f"ran longer than {total_timeout_s:.0f} s in all",
                )
                break
            # Before its first message the worker is only starting Python (slow on a loaded machine):
            # no candidate code has run yet, so the idle limit does not apply.
            idle_limit = idle_timeout_s if outcome.messages else max(idle_timeout_s, STARTUP_ALLOWANCE_S)
            if now - last_activity[0] > idle_limit:
                outcome.timed_out, outcome.timeout_reason = (
                    True,
                    f"made no progress for {idle_timeout_s:.0f} s",
                )
                break
            done_seen.wait(0.005 if now - start < 0.5 else 0.02)
    finally:
        with _LIVE_LOCK:
            _LIVE.discard(proc)
        if outcome.ended_at_done:
            EXITS.reap(proc)
        elif not _kill_group(proc):
            outcome.notes.append(_stuck_note(proc.pid))
    for thread in readers:
        # Ended at `done`, the channel holds everything the parent reads; the pipes close only as
        # the process is torn down, which is what is not waited for: the output reader (a daemon)
        # keeps `output_head` current until then. Any wait here is the device's: a 0.02 s join
        # always ran to its end, as the pipe cannot close before the teardown (about 0.1 s).
        thread.join(timeout=0.0 if outcome.ended_at_done else 5)
    outcome.returncode = None if outcome.ended_at_done else proc.returncode
    # Ended at `done`, the kill is this process's own and the background reap may or may not have
    # filled in its signal yet: the verdict must not depend on that race.
    if not outcome.ended_at_done and proc.returncode is not None and proc.returncode < 0:
        try:
            outcome.signal_name = signal.Signals(-proc.returncode).name
        except ValueError:
            outcome.signal_name = f"signal {-proc.returncode}"
    killed_here = outcome.memory_exceeded or outcome.timed_out or outcome.stopped_early or outcome.ended_at_done
    if proc.returncode == -signal.SIGKILL and not killed_here:
        # A SIGKILL this process did not send, while the kernel's OOM-kill count rose: the killer,
        # which takes the process with the most memory, took the worker. (Workers keep the default
        # score: raised, every small honest worker went first whenever anything else filled the
        # machine, measured on the 2-core development VM.)
        oom_after = oom_kills()
        outcome.oom_killed = oom_before is not None and oom_after is not None and oom_after > oom_before
    done = outcome.last(Event.DONE)
    outcome.complete = (
        bool(done) and done.get("messages") == len(outcome.messages) and not outcome.channel_error
    )
    outcome.seconds = time.monotonic() - start
    outcome.reply_s = paused_s[0]
    if foreign[0] or (from_spare and not outcome.messages):
        return run_worker(
            job,
            job_path,
            idle_timeout_s,
            total_timeout_s,
            memory_limit_bytes,
            env,
            on_message,
            module=module,
            check=check,
            end_at_done=end_at_done,
        )
    return outcome


def _send(proc: subprocess.Popen, reply: dict[str, Any]) -> None:
    _send_line(proc, json.dumps(reply))


def _send_line(proc: subprocess.Popen, line: str) -> None:
    assert proc.stdin is not None
    try:
        proc.stdin.write((line + "\n").encode())
        proc.stdin.flush()
    except (BrokenPipeError, OSError):
        pass  # the worker is gone; its exit is reported by the main loop


def _sigkill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the worker's process group (it runs in a session of its own); gone already is fine."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _kill_group(proc: subprocess.Popen) -> bool:
    """SIGKILL the worker's group and reap it, waiting at most EXIT_WAIT_S; False if it is still there."""
    _sigkill_group(proc)
    try:
        proc.wait(timeout=EXIT_WAIT_S)
        return True
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            proc.kill()
        try:
            proc.wait(timeout=1.0)
            return True
        except subprocess.TimeoutExpired:
            return False  # stuck in the kernel: it runs no code; reaped by Popen's cleanup whenever it goes


def _stuck_note(pid: int) -> str:
    return (f"worker pid {pid} had not exited {EXIT_WAIT_S:g} s after SIGKILL (stuck in the kernel, as in a hung "
            "driver call); the evaluator went on without waiting further, so later timings may run beside its remains")
