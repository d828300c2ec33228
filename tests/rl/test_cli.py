"""`regrapht serve` (and its other name, `regrapht rl serve`) as a user runs it: refused where unsafe or
mismatched; served, called and stopped with Ctrl-C."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
from typer.testing import CliRunner

from regrapht.cli import app
from tests.rl.conftest import EVAL_TASKS, fenced

REPO = Path(__file__).resolve().parents[2]


def test_refuses_to_serve_beyond_loopback_without_a_token() -> None:
    result = CliRunner().invoke(app, ["rl", "serve", "--task", str(EVAL_TASKS / "vec_scale"), "--host", "0.0.0.0"],
                                env={"REGRAPHT_RL_TOKEN": ""})
    assert result.exit_code == 2 and "refusing to serve on '0.0.0.0' without a token" in result.output
    result = CliRunner().invoke(app, ["serve", "--task", "no_such_task"])
    assert result.exit_code == 2 and "no shipped task with that id" in result.output


def test_refuses_a_baseline_the_torch_tasks_do_not_offer() -> None:
    result = CliRunner().invoke(app, ["serve", "--kind", "torch", "--target", "cpu", "--baseline", "serial"])
    assert result.exit_code == 2 and "(torch) has no 'serial' baseline" in result.output
    result = CliRunner().invoke(app, ["serve", "--kind", "torch", "--baseline", "eager", "--torch-language", "triton",
                                      "--target", "cpu"])  # fmt: skip
    assert result.exit_code == 2 and "Triton kernels need the cuda target" in result.output
    result = CliRunner().invoke(app, ["serve", "--kind", "rust"])
    assert result.exit_code == 2 and "unknown kind 'rust'" in result.output


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _default_signals() -> None:
    # As from a terminal or a service manager: a test run started in the background of a
    # non-interactive shell ignores SIGINT, and its children would inherit that; reset SIGTERM too.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def test_sigterm_answers_every_request_and_exits_0(tmp_path: Path) -> None:
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": f"{REPO / 'src'}{os.pathsep}{REPO}"}
    command = [sys.executable, "-m", "regrapht.cli", "serve", "--task", str(EVAL_TASKS / "vec_scale"),
               "--target", "cpu", "--reward", "correctness", "--port", str(port), "--shutdown-grace", "60"]
    server = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True, preexec_fn=_default_signals)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/health").json()["status"] == "ok":
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline and server.poll() is None, "the service did not start"
            time.sleep(0.2)
        problem = httpx.post(f"{url}/v1/reset", json={"episode": 0}).json()["problem"]["id"]
        names = ["correct.cpp", "wrong.cpp"] * 3
        # One keep-alive client for all of them, as a trainer holds one: its idle connections must
        # not keep the service from stopping.
        with httpx.Client(timeout=120) as http, ThreadPoolExecutor(8) as pool:
            sent = [pool.submit(http.post, f"{url}/v1/score", json={"problem": problem, "completions": [fenced(n)]})
                    for n in names]  # fmt: skip
            time.sleep(1.0)  # queued and running
            server.send_signal(signal.SIGTERM)
            time.sleep(0.3)
            late = [pool.submit(http.post, f"{url}/v1/score", json={"problem": problem, "completions": [fenced(n)]})
                    for n in names[:2]]  # fmt: skip
            replies = [f.result() for f in sent]  # a transport error here is a lost request
            late_replies = []
            for f in late:
                try:
                    late_replies.append(f.result())
                except httpx.ConnectError:  # the listener may be closed already: never accepted, not lost
                    late_replies.append(None)
        _, err = server.communicate(timeout=90)
    finally:
        if server.poll() is None:
            server.kill()
            _, err = server.communicate()
            raise AssertionError(f"the service did not stop within 90 s of SIGTERM; its stderr: {err}")
    assert server.returncode == 0, err
    for name, reply in zip(names, replies):  # within the grace: every one evaluated
        assert reply.status_code == 200, reply.text
        assert reply.json()["results"][0]["evidence"]["status"] == ("correct" if name == "correct.cpp" else "wrong_answer")
    accepted = [r for r in late_replies if r is not None]
    for reply in accepted:
        assert reply.status_code == 503 and reply.json() | {"message": ""} == {
            "error": "shutting_down", "evaluated": "no", "message": ""}
    assert "stopped (SIGTERM)" in err and f"'answered': {2 + len(names)}" in err, err  # health, reset, scores
    assert f"'refused_shutdown': {len(accepted)}" in err, err


def test_serves_scores_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": f"{REPO / 'src'}{os.pathsep}{REPO}", "REGRAPHT_RL_TOKEN": "k" * 20}
    command = [sys.executable, "-m", "regrapht.cli", "serve", "--task", str(EVAL_TASKS / "vec_scale"),
               "--target", "cpu", "--reward", "correctness", "--port", str(port), "--replay", str(tmp_path / "r.sqlite")]
    # As from a terminal: a test run started in the background of a non-interactive shell ignores
    # SIGINT, and its children would inherit that.
    server = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True,
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/health").json()["status"] == "ok":
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline and server.poll() is None, "the service did not start"
            time.sleep(0.2)
        headers = {"Authorization": "Bearer " + "k" * 20}
        problem = httpx.post(f"{url}/v1/reset", json={"episode": 0}, headers=headers).json()["problem"]["id"]
        reply = httpx.post(f"{url}/v1/score", json={"problem": problem, "completions": [fenced("correct.cpp")]},
                           headers=headers, timeout=120)
        assert reply.status_code == 200 and reply.json()["results"][0]["reward"] == 1.0
    finally:
        server.send_signal(signal.SIGINT)
        try:
            _, err = server.communicate(timeout=90)
        except subprocess.TimeoutExpired:
            server.kill()
            _, err = server.communicate()
            raise AssertionError(f"the service did not stop within 90 s of Ctrl-C; its stderr: {err}") from None
    assert server.returncode == 0, err
    assert "serving 1 task(s)" in err
    assert "stopped (SIGINT): {'answered': 3, 'busy': 0, 'timeout': 0, 'refused_shutdown': 0, 'errors': 0}" in err  # health, reset, score
    assert (tmp_path / "r.sqlite").is_file()  # the replay buffer persisted the scored completion
