"""A real OpenAI-compatible chat server on 127.0.0.1 whose answers a test function chooses from the
prompt, so strategies talk to a model across a real socket through regrapht.llm's HTTP backend and
call cache. Tests that use it are protocol tests: the answers are canned, not a model's."""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[list[dict[str, Any]], int], str]


class CannedChatServer:
    def __init__(self, respond: Responder, model: str = "canned-coder") -> None:
        self.model = model
        self.respond = respond
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.endswith("/models"):
                    self._send(
                        200, {"object": "list", "data": [{"id": server.model, "max_model_len": 32768}]}
                    )
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if not self.path.endswith("/chat/completions"):
                    self._send(404, {"error": {"message": "not found"}})
                    return
                with server.lock:
                    server.requests.append(body)
                n = int(body.get("n", 1))
                texts = [server.respond(body["messages"], i) for i in range(n)]
                self._send(
                    200,
                    {
                        "id": "canned",
                        "object": "chat.completion",
                        "model": server.model,
                        "choices": [
                            {
                                "index": i,
                                "message": {"role": "assistant", "content": t},
                                "finish_reason": "stop",
                            }
                            for i, t in enumerate(texts)
                        ],
                        "usage": {
                            "prompt_tokens": 100,
                            "completion_tokens": 50 * n,
                            "total_tokens": 100 + 50 * n,
                        },
                    },
                )

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05})

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    @property
    def spec(self) -> str:
        return f"openai:{self.model}@{self.url}"

    def __enter__(self) -> CannedChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


class ScriptedChatServer(CannedChatServer):
    """Answers with queued texts, one per sample in order, and records each request's messages."""

    def __init__(self, model: str = "teacher") -> None:
        self.answers: deque[str] = deque()
        self.prompts: list[list[dict[str, Any]]] = []
        super().__init__(self._next_answer, model)

    def _next_answer(self, messages: list[dict[str, Any]], index: int) -> str:
        if index == 0:
            self.prompts.append(messages)
        return self.answers.popleft()
