"""A Python client of the reward service (httpx)."""

from __future__ import annotations

from typing import Any

import httpx


class ServiceError(RuntimeError):
    """The service answered with an error: `status` (HTTP), `code` (e.g. "busy") and its message."""

    def __init__(self, status: int, code: str, message: str, retry_after: float | None = None):
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message, self.retry_after = status, code, message, retry_after


class RewardClient:
    """Calls a `regrapht rl serve` service. Scores come back as the service's JSON: per completion,
    {problem, reward, reward_name, evidence, evaluation}."""

    def __init__(self, url: str, token: str | None = None, timeout_s: float = 900.0):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._http = httpx.Client(base_url=url.rstrip("/"), headers=headers, timeout=timeout_s)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> RewardClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        response = self._http.request(method, path, json=body)
        if response.status_code != 200:
            try:
                data = response.json()
            except ValueError:
                data = {"error": "http", "message": response.text[:500]}
            retry = response.headers.get("Retry-After")
            raise ServiceError(response.status_code, str(data.get("error")), str(data.get("message")),
                               float(retry) if retry else None)
        return response.json()

    def health(self) -> dict[str, Any]:
        return self._call("GET", "/health")

    def openapi(self) -> dict[str, Any]:
        return self._call("GET", "/openapi.json")

    def reset(self, episode: int) -> dict[str, Any]:
        return self._call("POST", "/v1/reset", {"episode": episode})

    def prompt(self, problem: str) -> dict[str, Any]:
        return self._call("POST", "/v1/prompt", {"problem": problem})

    def heldout(self) -> list[dict[str, Any]]:
        return self._call("GET", "/v1/heldout")["problems"]

    def score(self, problem: str, completions: list[str]) -> list[dict[str, Any]]:
        return self._call("POST", "/v1/score", {"problem": problem, "completions": completions})["results"]

    def score_groups(self, groups: list[tuple[str, list[str]]]) -> list[list[dict[str, Any]]]:
        body = {"groups": [{"problem": p, "completions": c} for p, c in groups]}
        return self._call("POST", "/v1/score_groups", body)["groups"]

    def audit(self) -> dict[str, Any]:
        return self._call("GET", "/v1/audit")
