"""A real HTTP server on 127.0.0.1 (ephemeral port) that speaks the OpenAI chat-completions wire
format the way vLLM does, for testing the HTTP backend across a real socket.

By default it answers every chat request deterministically: sample k of a request reads
"answer {k} seed={seed} to: {last user message}". Errors are real server behaviour, not scripted:
an unknown model gets vLLM's 404, a prompt that does not fit gets vLLM's 400. Tests script
anything else (429, 500, slow or malformed replies) by queueing `Reply`s, which are used in order by
the next chat requests (or by the next request whose prompt contains `Reply.match`: concurrent
requests arrive in no fixed order). Every request is recorded with its arrival time.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict -> JSON; str -> sent raw; None -> the normal answer
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0  # sleep before answering (kept short: tests bound every wait)
    match: str | None = None  # only for a request whose last user message contains this


@dataclass
class Recorded:
    method: str
    path: str
    body: Any
    headers: dict[str, str]
    at: float


def count_words(text: str) -> int:
    return len(text.split())


class ChatServer:
    def __init__(
        self,
        models: tuple[str, ...] = ("tiny-coder",),
        max_model_len: int | None = 4096,
        honour_n: bool = True,
        tokenize: bool = False,
        props_n_ctx: int | None = None,
        report_usage: bool = True,
    ) -> None:
        self.models = models
        self.max_model_len = max_model_len
        self.honour_n = honour_n
        self.tokenize = tokenize
        self.props_n_ctx = props_n_ctx
        self.report_usage = report_usage
        self.script: deque[Reply] = deque()
        self.requests: list[Recorded] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05})

    # -- lifetime ---------------------------------------------------------------------------------

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    @property
    def root(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def url(self) -> str:
        return f"{self.root}/v1"

    def chat_calls(self) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.path == "/v1/chat/completions"]

    # -- behaviour --------------------------------------------------------------------------------

    def _next_reply(self, body: Any) -> Reply:
        """The first scripted reply that applies to this request (removed from the script)."""
        last_user = ""
        if isinstance(body, dict) and isinstance(body.get("messages"), list):
            users = [m.get("content", "") for m in body["messages"] if m.get("role") == "user"]
            last_user = users[-1] if users else ""
        for reply in self.script:
            if reply.match is None or reply.match in last_user:
                self.script.remove(reply)
                return reply
        return Reply()

    def _chat(self, body: dict[str, Any]) -> tuple[int, Any]:
        model = body.get("model")
        if model not in self.models:
            return 404, {
                "error": {
                    "message": f"The model `{model}` does not exist.",
                    "type": "NotFoundError",
                    "param": None,
                    "code": 404,
                }
            }
        messages = body["messages"]
        prompt_tokens = sum(count_words(m["content"]) for m in messages)
        max_tokens = int(body.get("max_tokens", 16))
        if self.max_model_len is not None and prompt_tokens + max_tokens > self.max_model_len:
            return 400, {
                "error": {
                    "message": (
                        f"This model's maximum context length is {self.max_model_len} tokens. However, you "
                        f"requested {prompt_tokens + max_tokens} tokens ({prompt_tokens} in the messages, "
                        f"{max_tokens} in the completion). Please reduce the length of the messages or "
                        "completion."
                    ),
                    "type": "BadRequestError",
                    "param": None,
                    "code": 400,
                }
            }
        n = int(body.get("n", 1)) if self.honour_n else 1
        seed = body.get("seed")
        last_user = [m["content"] for m in messages if m["role"] == "user"][-1]
        choices = []
        completion_tokens = 0
        for k in range(n):
            text = f"answer {k} seed={seed} to: {last_user}"
            completion_tokens += count_words(text)
            choices.append(
                {
                    "index": k,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            )
        answer: dict[str, Any] = {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": choices,
        }
        if self.report_usage:
            answer["usage"] = {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            }
        return 200, answer

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                pass

            def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
                data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                # The client may have given up already (a timeout test).
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.end_headers()
                    self.wfile.write(data)

            def _record(self, body: Any) -> None:
                with server._lock:
                    server.requests.append(
                        Recorded(self.command, self.path, body, dict(self.headers), time.monotonic())
                    )

            def do_GET(self) -> None:
                self._record(None)
                if self.path == "/v1/models":
                    entry: dict[str, Any]
                    data = []
                    for m in server.models:
                        entry = {"id": m, "object": "model", "owned_by": "test"}
                        if server.max_model_len is not None:
                            entry["max_model_len"] = server.max_model_len
                        data.append(entry)
                    self._send(200, {"object": "list", "data": data})
                elif self.path == "/props" and server.props_n_ctx is not None:
                    self._send(200, {"default_generation_settings": {"n_ctx": server.props_n_ctx}})
                else:
                    self._send(404, {"error": {"message": "Not Found", "code": 404}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
                self._record(body)
                if (
                    self.path == "/tokenize"
                    and server.tokenize
                    and isinstance(body, dict)
                    and "prompt" in body
                ):
                    tokens = list(range(count_words(body["prompt"])))
                    self._send(
                        200, {"count": len(tokens), "tokens": tokens, "max_model_len": server.max_model_len}
                    )
                    return
                if self.path != "/v1/chat/completions":
                    self._send(404, {"error": {"message": "Not Found", "code": 404}})
                    return
                with server._lock:
                    reply = server._next_reply(body)
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    if reply.delay_s:
                        time.sleep(reply.delay_s)
                    if reply.body is None and reply.status == 200:
                        status, answer = server._chat(body)
                        self._send(status, answer, reply.headers)
                    else:
                        self._send(reply.status, reply.body if reply.body is not None else {}, reply.headers)
                finally:
                    with server._lock:
                        server.in_flight -= 1

        return Handler
