from __future__ import annotations

from collections.abc import Iterator

import pytest

from .llm_chat_server import ChatServer


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    with ChatServer() as server:
        yield server
