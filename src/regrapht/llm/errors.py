"""Errors of the model layer. Each says what went wrong and what to do about it."""

from __future__ import annotations

from regrapht.install_hints import extra_install


class ModelError(Exception):
    """Base of every error raised by regrapht.llm."""


class ModelSpecError(ModelError, ValueError):
    """A model spec string (e.g. `openai:MODEL@URL`) could not be understood."""


class MissingDependencyError(ModelError, ImportError):
    """An optional package a backend needs is not installed."""

    def __init__(self, package: str, extra: str, purpose: str) -> None:
        super().__init__(
            f"{purpose} needs the '{package}' package, which is not installed. "
            f"Install it with: {extra_install(extra)}"
        )
        self.package = package
        self.extra = extra


class BackendUnavailableError(ModelError):
    """The backend could not be reached or did not answer in time, even after retries."""


class AuthenticationError(ModelError):
    """The server refused our credentials (401/403)."""


class ModelNotFoundError(ModelError):
    """The server does not serve the requested model."""

    def __init__(self, message: str, available: list[str] | None = None) -> None:
        super().__init__(message)
        self.available = available or []


class ContextLengthExceededError(ModelError):
    """The prompt plus max_tokens does not fit in the model's context."""

    def __init__(self, message: str, limit: int | None = None, requested: int | None = None) -> None:
        super().__init__(message)
        self.limit = limit
        self.requested = requested


class ContextLengthUnknownError(ModelError):
    """The backend does not say how long its context is and none was configured."""


class BadRequestError(ModelError):
    """The server rejected the request for a reason other than model name or context length."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class BackendResponseError(ModelError):
    """The server answered, but not in the OpenAI chat-completions shape."""


class ReplayMissError(ModelError):
    """A replay model was asked for something the run store has no answer for."""

    def __init__(self, message: str, key: str) -> None:
        super().__init__(message)
        self.key = key
