"""The reward service over loopback with a real HTTP client: scoring, auth, limits, busy, timeouts,
shutdown, and a load test. Scoring is real (the evaluator on the cpu target); where a test needs a
request to stay in flight, the scorer waits at a gate before it evaluates."""

from __future__ import annotations

import queue
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from regrapht.eval import Evaluator
from regrapht.rl import EnvConfig, RewardConfig, RewardEnv
from regrapht.rl.client import RewardClient, ServiceError
from regrapht.rl.service import RequestError, RewardService, ServiceConfig, ServiceConfigError
from tests.eval.conftest import quick_config
from tests.rl.conftest import fenced

TOKEN = "t" * 24


class GatedScorer:
    """Evaluates for real, after its gate opens."""

    def __init__(self, inner: Evaluator):
        self.inner = inner
        self.config = inner.config
        self.gate = threading.Event()
        self.entered = threading.Event()

    def evaluate_many(self, items):
        self.entered.set()
        self.gate.wait(30)
        return self.inner.evaluate_many(items)


@pytest.fixture(scope="module")
def untimed(rl_cache: Path):
    with Evaluator(quick_config(rl_cache, timing=False, seeds=1)) as ev:
        yield ev


def make_env(scorer, vec_scale) -> RewardEnv:
    return RewardEnv([vec_scale], scorer, EnvConfig(target="cpu", reward=RewardConfig("correctness"), train_variants=2))


def serve(env: RewardEnv, **kw) -> RewardService:
    return RewardService(env, ServiceConfig(port=0, **kw)).start()


def test_scores_over_http_as_in_process(evaluator, vec_scale) -> None:
    env = RewardEnv([vec_scale], evaluator, EnvConfig(target="cpu", train_variants=2))
    service = serve(env)
    try:
        with RewardClient(service.url) as client:
            health = client.health()
            assert health["status"] == "ok" and health["tasks"] == ["vec_scale"] and health["reward"] == "hierarchical"
            assert "/v1/score" in client.openapi()["paths"]
            episode = client.reset(0)
            assert episode["problem"]["id"] == env.sampler.sample(0).id and episode["template"] == "rl_task@1"
            assert client.prompt(episode["problem"]["id"])["messages"] == episode["messages"]
            assert len(client.heldout()) == 4
            good, bad = client.score(episode["problem"]["id"], [fenced("correct.cpp"), "no code at all"])
            assert good["evidence"]["status"] == "correct" and good["evaluation"]["status"] == "correct"
            speed = good["evidence"]["speedup"]["value"]
            assert good["reward"] == pytest.approx(speed if speed >= 1 else speed - 1)
            assert bad["reward"] == -1.0 and bad["evaluation"] is None
            audit = client.audit()
            assert audit["scored"] == 2 and "sources" not in audit  # nobody reads others' code
    finally:
        counts = service.shutdown()
    assert counts["answered"] == 7 and counts["errors"] == 0


def test_auth_and_limits(untimed, vec_scale) -> None:
    with pytest.raises(ServiceConfigError, match="without a token"):
        ServiceConfig(host="0.0.0.0")
    with pytest.raises(ServiceConfigError, match="at least 16 characters"):
        ServiceConfig(token="short")
    service = serve(make_env(untimed, vec_scale), token=TOKEN, max_body_bytes=4096, max_completions=3)
    problem = service.env.sampler.sample(0).id
    try:
        with RewardClient(service.url) as anonymous:
            assert anonymous.health()["status"] == "ok"  # health and the schema are open
            with pytest.raises(ServiceError) as info:
                anonymous.score(problem, ["x"])
            assert info.value.status == 401 and info.value.code == "unauthorized"
        with RewardClient(service.url, token="w" * 24) as wrong, pytest.raises(ServiceError, match="401 unauthorized"):
            wrong.reset(0)
        with RewardClient(service.url, token=TOKEN) as client:
            assert client.score(problem, ["no code"])[0]["evidence"]["status"] == "parse_error"
            for call, match in [
                (lambda: client.score(problem, ["x" * 5000]), "413 too_large: the body has"),
                (lambda: client.score(problem, ["a"] * 4), "413 too_many: at most 3 completions"),
                (lambda: client.score("vec_scale@nope", ["a"]), "404 unknown_problem"),
                (lambda: client.score(problem, []), "400 bad_request: `completions` must be a non-empty list"),
                (lambda: client.reset(-1), "400 bad_request"),
                (lambda: client._call("GET", "/v1/results"), "404 not_found"),
            ]:
                with pytest.raises(ServiceError, match=match):
                    call()
        raw = httpx.post(f"{service.url}/v1/score", content=b"{nope", headers={"Authorization": f"Bearer {TOKEN}"})
        assert raw.status_code == 400 and raw.json()["error"] == "bad_json"
    finally:
        service.shutdown()


def _post(url: str, problem: str, code: str, http: httpx.Client | None = None) -> httpx.Response:
    body = {"problem": problem, "completions": [code]}
    if http is not None:
        return http.post(f"{url}/v1/score", json=body)
    return httpx.post(f"{url}/v1/score", json=body, timeout=60)


def test_busy_timeout_and_graceful_shutdown(untimed, vec_scale) -> None:
    scorer = GatedScorer(untimed)
    service = serve(make_env(scorer, vec_scale), queue_size=1, request_timeout_s=20, shutdown_grace_s=1.0)
    problem = service.env.sampler.sample(0).id
    code = fenced("correct.cpp")
    idle = httpx.Client(timeout=30)  # a trainer's keep-alive connection, idle at shutdown
    assert idle.get(f"{service.url}/health").status_code == 200
    with ThreadPoolExecutor(4) as pool:
        running = pool.submit(_post, service.url, problem, code)
        assert scorer.entered.wait(10)  # the first job is in the scorer, at the gate
        queued = pool.submit(_post, service.url, problem, code)
        deadline = time.monotonic() + 10
        while service.queue_depth() < 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        busy = _post(service.url, problem, code)
        assert busy.status_code == 503 and busy.json()["error"] == "busy" and busy.headers["Retry-After"] == "1"
        began = time.monotonic()
        stopping = pool.submit(service.shutdown)
        while not service._closing.is_set():
            time.sleep(0.01)
        late = _post(service.url, problem, code)
        assert late.status_code == 503 and late.json()["error"] == "shutting_down" and late.json()["evaluated"] == "no"
        refused = queued.result(timeout=10)  # the grace period ran out with it still queued
        assert refused.status_code == 503 and refused.json()["error"] == "shutting_down"
        assert refused.json()["evaluated"] == "no"
        # Still at the gate when the grace ran out: answered, not waited for.
        cancelled = running.result(timeout=10)
        assert cancelled.status_code == 503 and cancelled.json()["evaluated"] == "unfinished"
        counts = stopping.result(timeout=20)
        assert time.monotonic() - began < 1.0 + service.config.close_s  # the idle connection did not hold it
        scorer.gate.set()  # the scorer's late result is dropped
    for worker in service._workers:  # the evaluator is the module's: no other test shares it mid-call
        worker.join(timeout=120)
    idle.close()
    assert service.cancelled == 1
    assert counts == {"answered": 1, "busy": 1, "timeout": 0, "refused_shutdown": 3, "errors": 0}  # health answered


def test_a_service_that_never_had_a_request_shuts_down(untimed, vec_scale) -> None:
    # socketserver's handler-thread list exists only once a request came
    counts = serve(make_env(untimed, vec_scale)).shutdown()
    assert counts == {"answered": 0, "busy": 0, "timeout": 0, "refused_shutdown": 0, "errors": 0}


class _LateQueue(queue.Queue):
    """Queues a job only once shutdown has stopped the dispatchers (or after 1 s): the moment of a
    request that found the service open and has not yet queued its job."""

    def __init__(self, maxsize: int, stopped: threading.Event) -> None:
        super().__init__(maxsize)
        self.stopped = stopped

    def put_nowait(self, item) -> None:
        if self.stopped.wait(1.0):
            time.sleep(0.2)  # shutdown drains the queue meanwhile
        super().put_nowait(item)


def test_a_request_queued_as_shutdown_begins_is_answered_not_left_waiting(untimed, vec_scale) -> None:
    scorer = GatedScorer(untimed)
    service = RewardService(make_env(scorer, vec_scale), ServiceConfig(port=0, request_timeout_s=3.0, shutdown_grace_s=0.0))
    service._queue = _LateQueue(service.config.queue_size, service._stopped)
    service.start()
    problem = service.env.sampler.sample(0)
    try:
        with ThreadPoolExecutor(2) as pool:
            asked = pool.submit(service.submit, [(problem, [fenced("correct.cpp")])])
            time.sleep(0.1)  # the request is in the queue's put
            stopping = pool.submit(service.shutdown)
            with pytest.raises(RequestError) as info:
                asked.result(timeout=20)
            stopping.result(timeout=20)
    finally:
        scorer.gate.set()
    # Refused (never ran) or cancelled (ran as the grace ended), not a 504 after request_timeout_s.
    assert info.value.code == "shutting_down", info.value.message


def test_shutdown_lets_queued_and_running_jobs_finish_within_the_grace(untimed, vec_scale) -> None:
    scorer = GatedScorer(untimed)
    service = serve(make_env(scorer, vec_scale), shutdown_grace_s=60)
    problem = service.env.sampler.sample(0).id
    with ThreadPoolExecutor(4) as pool:
        running = pool.submit(_post, service.url, problem, fenced("correct.cpp"))
        assert scorer.entered.wait(10)
        queued = [pool.submit(_post, service.url, problem, fenced(n)) for n in ("correct.cpp", "wrong.cpp")]
        while service.queue_depth() < 2:
            time.sleep(0.02)
        stopping = pool.submit(service.shutdown)
        while not service._closing.is_set():
            time.sleep(0.01)
        scorer.gate.set()
        replies = [running.result(timeout=60)] + [q.result(timeout=60) for q in queued]
        counts = stopping.result(timeout=60)
    statuses = [r.json()["results"][0]["evidence"]["status"] for r in replies]
    assert [r.status_code for r in replies] == [200] * 3 and statuses == ["correct", "correct", "wrong_answer"]
    assert service.cancelled == 0 and counts["answered"] == 3 and counts["refused_shutdown"] == 0


def test_a_request_past_its_timeout_is_answered_504(untimed, vec_scale) -> None:
    scorer = GatedScorer(untimed)
    service = serve(make_env(scorer, vec_scale), request_timeout_s=0.5)
    try:
        response = _post(service.url, service.env.sampler.sample(0).id, fenced("correct.cpp"))
        assert response.status_code == 504 and response.json()["error"] == "timeout"
    finally:
        scorer.gate.set()
        service.shutdown()


def test_load_200_concurrent_requests_each_answered_or_refused(untimed, vec_scale) -> None:
    service = serve(make_env(untimed, vec_scale), queue_size=16, workers=2, shutdown_grace_s=60)
    problems = [service.env.sampler.sample(i).id for i in range(4)]
    bodies = [fenced("correct.cpp") if i % 50 == 0 else fenced("wrong.cpp") if i % 50 == 1 else f"no code {i}"
              for i in range(200)]
    try:
        limits = httpx.Limits(max_connections=200, max_keepalive_connections=0)
        with ThreadPoolExecutor(200) as pool, httpx.Client(timeout=120, limits=limits) as http:
            replies = list(pool.map(lambda i: _post(service.url, problems[i % 4], bodies[i], http), range(200)))
    finally:
        counts = service.shutdown()
    codes = [r.status_code for r in replies]
    assert set(codes) <= {200, 503} and codes.count(200) >= 16
    assert all(r.json()["error"] == "busy" for r in replies if r.status_code == 503)
    for i, r in enumerate(replies):
        if r.status_code == 200:
            status = r.json()["results"][0]["evidence"]["status"]
            assert status == ("correct" if i % 50 == 0 else "wrong_answer" if i % 50 == 1 else "parse_error")
    assert counts["answered"] == codes.count(200) and counts["busy"] == codes.count(503)


def test_the_trl_reward_function_scores_through_the_service(untimed, vec_scale) -> None:
    from regrapht.rl.trl_reward import GRPOReward

    service = serve(make_env(untimed, vec_scale), token=TOKEN)
    problem = service.env.sampler.sample(0).id
    try:
        with RewardClient(service.url, token=TOKEN) as client:
            reward = GRPOReward(client)
            values = reward(prompts=["p"] * 3, completions=[fenced("correct.cpp"), "no code", fenced("wrong.cpp")],
                            problem=[problem] * 3)
    finally:
        service.shutdown()
    assert values == [1.0, 0.0, 0.0]
    assert [r["status"] for r in reward.history[0]] == ["correct", "parse_error", "wrong_answer"]
