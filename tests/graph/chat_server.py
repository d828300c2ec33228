"""A real OpenAI-compatible chat server on 127.0.0.1 that answers with queued texts, so the model
relabeler is tested across a real socket through regrapht.llm's HTTP backend."""

from __future__ import annotations

import json
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ScriptedChatServer:
    def __init__(self, model: str = "teacher") -> None:
        self.model = model
        self.answers: deque[str] = deque()
        self.prompts: list[list[dict]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, status: int, body: dict) -> None:
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
                server.prompts.append(body["messages"])
                n = body.get("n", 1)
                texts = [server.answers.popleft() for _ in range(n)]  # one queued answer per sample
                self._send(
                    200,
                    {
                        "id": "x",
                        "object": "chat.completion",
                        "model": server.model,
                        "choices": [
                            {
                                "index": i,
                                "message": {"role": "assistant", "content": texts[i]},
                                "finish_reason": "stop",
                            }
                            for i in range(n)
                        ],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
                    },
                )

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05})

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ScriptedChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
