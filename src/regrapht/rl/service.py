"""The reward service: the environment over HTTP (JSON), for trainers on other machines.

It runs code sent over the network, so: it binds to loopback unless told otherwise, and then only
with a bearer token; request bodies are bounded; every request waits a bounded time; jobs wait in a
bounded queue, and a full queue answers 503 "busy" at once instead of piling up; no endpoint returns
a record to anyone but the request that sent its code (the audit endpoint gives counts, no sources).
Shutdown (SIGTERM or SIGINT under `serve_forever`, or `shutdown()`) stops taking jobs, answers
queued and running ones within a grace period, and answers the rest 503 "shutting_down", saying
whether each was evaluated: none is dropped unanswered, and the service stops within a bound.

The standard library's threading server is enough: a request is a JSON body in, a JSON body out, and
the work is the evaluator's, not the server's. Queued score jobs are merged into one evaluator batch
(`RewardEnv.score_groups`), so a device pool behind the environment sees whole batches.
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import json
import queue
import signal
import socket
import threading
import time
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any

from regrapht.rl.env import RewardEnv
from regrapht.rl.problems import Problem


class ServiceConfigError(ValueError):
    """A service that would be unsafe or cannot start as configured."""


@dataclass(frozen=True)
class ServiceConfig:
    host: str = "127.0.0.1"
    port: int = 8765
    token: str | None = None  # required when host is not loopback
    max_body_bytes: int = 8 << 20
    max_completions: int = 256  # per request
    queue_size: int = 64  # jobs waiting; more answer 503 busy
    workers: int = 1  # dispatcher threads (each calls the environment with a merged batch)
    max_batch: int = 64  # completions merged into one evaluator batch
    request_timeout_s: float = 600.0
    shutdown_grace_s: float = 30.0  # queued and running jobs may finish within it; the rest are refused
    close_s: float = 10.0  # after the grace: handlers still writing their answers get this long

    def __post_init__(self) -> None:
        if not _is_loopback(self.host) and not self.token:
            raise ServiceConfigError(
                f"refusing to serve on {self.host!r} without a token: the service runs code sent to it "
                "(give --token, or bind to 127.0.0.1)"
            )
        if self.token is not None and len(self.token) < 16:
            raise ServiceConfigError("the token must be at least 16 characters")
        if min(self.queue_size, self.workers, self.max_batch, self.max_completions) < 1:
            raise ServiceConfigError("queue_size, workers, max_batch and max_completions must be positive")
        if self.shutdown_grace_s < 0 or self.close_s < 0:
            raise ServiceConfigError("shutdown_grace_s and close_s cannot be negative")


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class RequestError(Exception):
    """An answer other than 200. `evaluated` (refusals at shutdown): "no" (never started, safe to send
    again), or "unfinished" (its evaluation had started and its result is dropped)."""

    def __init__(self, status: HTTPStatus, code: str, message: str, retry_after: float | None = None,
                 evaluated: str | None = None):  # fmt: skip
        super().__init__(message)
        self.status, self.code, self.message, self.retry_after = status, code, message, retry_after
        self.evaluated = evaluated

    def payload(self) -> dict[str, Any]:
        body: dict[str, Any] = {"error": self.code, "message": self.message}
        if self.evaluated is not None:
            body["evaluated"] = self.evaluated
        return body


_NOT_RUN = "the service shut down before this request ran; send it again"


def _refused(evaluated: str, why: str) -> RequestError:
    return RequestError(HTTPStatus.SERVICE_UNAVAILABLE, "shutting_down", why, retry_after=1.0, evaluated=evaluated)


@dataclass
class _Job:
    groups: list[tuple[Problem, list[str]]]
    done: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    error: RequestError | None = None
    started: bool = False
    abandoned: bool = False

    @property
    def size(self) -> int:
        return sum(len(c) for _, c in self.groups)

    def finish(self, result: Any = None, error: RequestError | None = None) -> bool:
        """The first answer stands (a running job cancelled at shutdown may still end later)."""
        with _FINISH:
            if self.done.is_set():
                return False
            self.result, self.error = result, error
            self.done.set()
            return True


_FINISH = threading.Lock()


class RewardService:
    """The HTTP front of one `RewardEnv`. `start()` serves in background threads; `shutdown()`."""

    def __init__(self, env: RewardEnv, config: ServiceConfig | None = None):
        self.env = env
        self.config = config or ServiceConfig()
        self._queue: queue.Queue[_Job] = queue.Queue(maxsize=self.config.queue_size)
        self._closing = threading.Event()
        self._stopped = threading.Event()
        self._running = 0
        self._inflight: list[_Job] = []  # jobs handed to the environment and not yet finished
        self._lock = threading.Lock()
        self._counts = {"answered": 0, "busy": 0, "timeout": 0, "refused_shutdown": 0, "errors": 0}
        self.cancelled = 0  # running jobs answered "unfinished" at shutdown (their work may go on)
        self._stop_requested = threading.Event()
        self.stop_signal: str | None = None
        self._workers: list[threading.Thread] = []
        self._server = _Server((self.config.host, self.config.port), _Handler, self)
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://{self.config.host}:{self.port}"

    def start(self) -> RewardService:
        for i in range(self.config.workers):
            t = threading.Thread(target=self._work, name=f"regrapht-rl-worker-{i}", daemon=True)
            t.start()
            self._workers.append(t)
        self._thread = threading.Thread(target=self._server.serve_forever, name="regrapht-rl-http", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve in this thread (the CLI's main thread) until SIGTERM or SIGINT, then shut down
        gracefully. A service manager stops services with SIGTERM; Ctrl-C sends SIGINT. A SIGINT
        this process inherited as ignored (started in a shell's background) stays ignored."""
        previous: dict[int, Any] = {}

        def stop(signum: int, frame: Any) -> None:
            self.stop_signal = self.stop_signal or signal.Signals(signum).name
            self._stop_requested.set()

        for sig in (signal.SIGTERM, signal.SIGINT):
            if signal.getsignal(sig) is not signal.SIG_IGN:
                previous[sig] = signal.signal(sig, stop)
        try:
            self.start()
            while not self._stop_requested.wait(0.2) and not self._stopped.is_set():
                pass
        finally:
            try:
                self.shutdown()
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)

    def shutdown(self) -> dict[str, int]:
        """Stop taking jobs (503 "shutting_down", evaluated "no"); let queued and running jobs finish
        within the grace period; then refuse what is still queued (evaluated "no") and answer what is
        still running (evaluated "unfinished": its result will be dropped); wait at most `close_s`
        for every answer to be written; stop. Returns the request counts."""
        with self._lock:  # no job enters the queue after this (submit checks under the lock)
            self._closing.set()
        deadline = time.monotonic() + self.config.shutdown_grace_s
        while time.monotonic() < deadline and (self._queue.qsize() or self._running):
            time.sleep(0.05)
        with self._lock:  # a dispatcher that takes a job from now on refuses it (_work)
            self._stopped.set()
        while True:
            try:
                job = self._queue.get_nowait()
            except queue.Empty:
                break
            job.finish(error=_refused("no", _NOT_RUN))
        with self._lock:
            running = list(self._inflight)
        for job in running:
            if job.finish(error=_refused("unfinished", f"the service shut down while this request was being "
                                         f"evaluated (grace {self.config.shutdown_grace_s:g} s); its result is "
                                         "dropped: send it again")):  # fmt: skip
                self.cancelled += 1
        close_by = time.monotonic() + self.config.close_s
        for t in self._workers:
            t.join(timeout=0 if running else max(0.0, close_by - time.monotonic()))
        self._server.shutdown()
        self._server.close_within(max(0.0, close_by - time.monotonic()))
        return self.counts()

    def counts(self) -> dict[str, int]:
        with self._lock:
            return dict(self._counts)

    def _count(self, key: str) -> None:
        with self._lock:
            self._counts[key] += 1

    # ---- the work ------------------------------------------------------------------------------
    def submit(self, groups: list[tuple[Problem, list[str]]]) -> Any:
        """Queue a score job and wait for it (called by request handlers)."""
        job = _Job(groups)
        # Checked and queued under the lock shutdown takes to close: a job queued after shutdown
        # drained the queue would wait, unanswered, for a dispatcher that has stopped.
        with self._lock:
            if self._closing.is_set():
                raise _refused("no", "the service is shutting down; send it again elsewhere")
            try:
                self._queue.put_nowait(job)
            except queue.Full:
                raise RequestError(HTTPStatus.SERVICE_UNAVAILABLE, "busy",
                                   f"the queue is full ({self.config.queue_size} jobs); retry later", retry_after=1.0) from None
        if not job.done.wait(self.config.request_timeout_s):
            job.abandoned = True  # a queued job is skipped; a running one finishes, its result dropped
            raise RequestError(HTTPStatus.GATEWAY_TIMEOUT, "timeout",
                               f"no result within {self.config.request_timeout_s:g} s")
        if job.error is not None:
            raise job.error
        return job.result

    def _work(self) -> None:
        while not self._stopped.is_set():
            try:
                first = self._queue.get(timeout=0.1)
            except queue.Empty:
                continue
            jobs = [first]
            size = first.size
            while size < self.config.max_batch:  # merge what waits into one evaluator batch
                try:
                    job = self._queue.get_nowait()
                except queue.Empty:
                    break
                jobs.append(job)
                size += job.size
            jobs = [j for j in jobs if not j.abandoned]
            if not jobs:
                continue
            with self._lock:
                stopped = self._stopped.is_set()
                if not stopped:
                    self._running += 1
                    self._inflight += jobs
            if stopped:  # taken as shutdown drained the queue: neither drained nor cancelled there
                for j in jobs:
                    j.finish(error=_refused("no", _NOT_RUN))
                continue
            try:
                groups = [g for j in jobs for g in j.groups]
                scored = self.env.score_groups(groups)
                at = 0
                for j in jobs:
                    j.finish(result=scored[at : at + len(j.groups)])
                    at += len(j.groups)
            except Exception as exc:  # the environment's failure is each waiting request's answer
                for j in jobs:
                    if not j.done.is_set():
                        j.finish(error=RequestError(HTTPStatus.INTERNAL_SERVER_ERROR, "scoring_failed",
                                                    f"{type(exc).__name__}: {exc}"))
            finally:
                with self._lock:
                    self._running -= 1
                    self._inflight = [j for j in self._inflight if j not in jobs]

    def queue_depth(self) -> int:
        return self._queue.qsize()


class _Server(ThreadingHTTPServer):
    daemon_threads = False
    block_on_close = True
    # The listen backlog: the default (5) resets connections a burst of trainers opens at once,
    # before the queue can answer "busy".
    request_queue_size = 1024

    def __init__(self, address: tuple[str, int], handler: type, service: RewardService):
        self.service = service
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(address, handler)

    def close_within(self, seconds: float) -> None:
        """Close the listener, end the reads of open connections (a trainer's idle keep-alive
        connection would otherwise hold its handler thread, and this close, forever), and wait at
        most `seconds` for the handler threads: by now every job has its answer to write."""
        self.socket.close()
        with self.connections_lock:
            open_now = list(self.connections)
        for conn in open_now:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RD)  # a handler writing its answer still writes it
        deadline = time.monotonic() + seconds
        # socketserver keeps its handler threads in a list once the first request came; before that
        # the attribute is a placeholder that is no list
        threads = getattr(self, "_threads", None)
        for thread in list(threads) if isinstance(threads, list) else []:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))


def openapi() -> dict[str, Any]:
    return json.loads((resources.files("regrapht") / "data" / "rl" / "openapi.json").read_text())


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass  # requests carry code; the counts say what happened

    def setup(self) -> None:
        super().setup()
        with self.server.connections_lock:
            self.server.connections.add(self.connection)

    def finish(self) -> None:
        with self.server.connections_lock:
            self.server.connections.discard(self.connection)
        super().finish()

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def _serve(self, method: str) -> None:
        service = self.server.service
        try:
            if self.path.split("?", 1)[0] not in ("/health", "/openapi.json"):
                self._authorize()
            body = self._body() if method == "POST" else {}
            payload = self._route(method, self.path.split("?", 1)[0], body)
            self._reply(HTTPStatus.OK, payload)
            service._count("answered")
        except RequestError as e:
            key = {"busy": "busy", "timeout": "timeout", "shutting_down": "refused_shutdown"}.get(e.code, "errors")
            service._count(key)
            self._reply(e.status, e.payload(), e.retry_after)
        except Exception as exc:  # a bug must still answer its request
            service._count("errors")
            self._reply(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": "internal", "message": f"{type(exc).__name__}: {exc}"})

    def _authorize(self) -> None:
        token = self.server.service.config.token
        if token is None:
            return
        given = self.headers.get("Authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
            raise RequestError(HTTPStatus.UNAUTHORIZED, "unauthorized", "a valid bearer token is required")

    def _body(self) -> dict[str, Any]:
        limit = self.server.service.config.max_body_bytes
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            raise RequestError(HTTPStatus.LENGTH_REQUIRED, "length_required", "send a Content-Length")
        if int(length) > limit:
            self.close_connection = True  # the body is not read
            raise RequestError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "too_large",
                               f"the body has {length} bytes; the limit is {limit}")
        raw = self.rfile.read(int(length))
        if len(raw) < int(length):  # the connection's reads were ended by a shutdown, or the client left
            self.close_connection = True
            if self.server.service._closing.is_set():
                raise _refused("no", "the service is shutting down; the body was not read in full")
            raise RequestError(HTTPStatus.BAD_REQUEST, "incomplete_body", f"got {len(raw)} of {length} bytes")
        try:
            data = json.loads(raw or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_json", f"the body is not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_request", "the body must be a JSON object")
        return data

    def _route(self, method: str, path: str, body: dict[str, Any]) -> Any:
        service = self.server.service
        env = service.env
        if method == "GET" and path == "/health":
            return {"status": "shutting_down" if service._closing.is_set() else "ok",
                    "queue": service.queue_depth(), "queue_size": service.config.queue_size,
                    "target": env.config.target, "reward": env.config.reward.name,
                    "baseline": env.config.reward.baseline, "tasks": [t.id for t in env.sampler.tasks]}
        if method == "GET" and path == "/openapi.json":
            return openapi()
        if method == "GET" and path == "/v1/audit":
            report = env.audit.report()
            report.pop("sources")  # other requests' code stays on the server
            return {**report, "requests": service.counts()}
        if method == "GET" and path == "/v1/heldout":
            return {"problems": [env.episode(p).to_dict() for p in env.sampler.heldout()]}
        if method == "POST" and path == "/v1/reset":
            episode = body.get("episode")
            if not isinstance(episode, int) or isinstance(episode, bool) or episode < 0:
                raise RequestError(HTTPStatus.BAD_REQUEST, "bad_request", "`episode` must be a non-negative integer")
            return env.episode(env.sampler.sample(episode)).to_dict()
        if method == "POST" and path == "/v1/prompt":
            return env.episode(self._problem(body.get("problem"))).to_dict()
        if method == "POST" and path == "/v1/score":
            groups = [self._group(body)]
            return {"results": [r.to_dict() for r in service.submit(groups)[0]]}
        if method == "POST" and path == "/v1/score_groups":
            raw = body.get("groups")
            if not isinstance(raw, list) or not raw:
                raise RequestError(HTTPStatus.BAD_REQUEST, "bad_request", "`groups` must be a non-empty list")
            groups = [self._group(g) for g in raw]
            if sum(len(c) for _, c in groups) > service.config.max_completions:
                raise RequestError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "too_many",
                                   f"at most {service.config.max_completions} completions per request")
            return {"groups": [[r.to_dict() for r in group] for group in service.submit(groups)]}
        raise RequestError(HTTPStatus.NOT_FOUND, "not_found", f"no endpoint {method} {path} (see /openapi.json)")

    def _problem(self, problem_id: Any) -> Problem:
        if not isinstance(problem_id, str):
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_request", "`problem` must be a problem id string")
        try:
            return self.server.service.env.sampler.find(problem_id)
        except KeyError as exc:
            raise RequestError(HTTPStatus.NOT_FOUND, "unknown_problem", str(exc.args[0])) from None

    def _group(self, body: Any) -> tuple[Problem, list[str]]:
        if not isinstance(body, dict):
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_request", "a group is an object {problem, completions}")
        completions = body.get("completions")
        if not isinstance(completions, list) or not completions or not all(isinstance(c, str) for c in completions):
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad_request", "`completions` must be a non-empty list of strings")
        if len(completions) > self.server.service.config.max_completions:
            raise RequestError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "too_many",
                               f"at most {self.server.service.config.max_completions} completions per request")
        return self._problem(body.get("problem")), completions

    def _reply(self, status: HTTPStatus, payload: Any, retry_after: float | None = None) -> None:
        data = json.dumps(payload, default=float).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if retry_after is not None:
            self.send_header("Retry-After", str(max(1, round(retry_after))))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
