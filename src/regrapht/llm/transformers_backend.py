"""`hf:PATH`: a local model folder run in this process with transformers, on a GPU or the CPU.

Prompts go through the tokenizer's own chat template; a tokenizer without one gets a plain
fallback template, and `describe()` says so. Requests with the same sampling params are generated
together in left-padded batches of `batch_size` sequences (each sample is its own row). A seed
makes a batch reproducible: the torch RNG is seeded before each batch, so the same requests with
the same batch size give the same samples. Other sampling settings (top_k, repetition penalty)
come from the folder's generation_config.json, as they do in vLLM.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from regrapht.llm.errors import (
    ContextLengthExceededError,
    ContextLengthUnknownError,
    MissingDependencyError,
    ModelSpecError,
)
from regrapht.llm.types import ChatRequest, ChatResult, ResultCallback, SamplingParams, Usage

log = logging.getLogger(__name__)

# Used only when the tokenizer ships no chat template: a neutral role-tagged layout.
FALLBACK_CHAT_TEMPLATE = (
    "{% for message in messages %}<|{{ message['role'] }}|>\n{{ message['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)


def _import_torch_transformers() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError as e:
        raise MissingDependencyError(e.name or "transformers", "hf", "The hf: backend") from e
    return torch, transformers


class TransformersChatModel:
    def __init__(
        self,
        path: str | Path,
        *,
        device: str = "auto",
        dtype: str = "auto",
        batch_size: int = 8,
        context: int | None = None,
        trust_remote_code: bool = False,
    ) -> None:
        torch, transformers = _import_torch_transformers()
        self._torch = torch
        folder = Path(path).expanduser()
        if not (folder / "config.json").is_file():
            raise ModelSpecError(
                f"hf: {folder} is not a model folder (no config.json). Point hf: at a folder saved "
                "with save_pretrained, e.g. a snapshot downloaded beforehand with `hf download`."
            )
        self.path = folder.resolve()
        self.identity = f"hf:{self.path}"
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = torch.device(device)
        if dtype == "auto":
            if self.device.type == "cuda":
                dtype = "bfloat16" if torch.cuda.is_bf16_supported() else "float16"
            else:
                dtype = "float32"
        self.dtype = dtype
        self.batch_size = batch_size
        started = time.monotonic()
        self.tokenizer = transformers.AutoTokenizer.from_pretrained(
            self.path, trust_remote_code=trust_remote_code
        )
        # Decoder-only models continue the last token, so pad on the left.
        self.tokenizer.padding_side = "left"
        self.pad_token_note = "tokenizer"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
            self.pad_token_note = "eos (tokenizer has no pad token)"
        self.model = transformers.AutoModelForCausalLM.from_pretrained(
            self.path, dtype=getattr(torch, dtype), trust_remote_code=trust_remote_code
        )
        self.model.to(self.device)
        self.model.eval()
        self.load_s = time.monotonic() - started
        if getattr(self.tokenizer, "chat_template", None):
            self.chat_template: str | None = None
            self.chat_template_source = "tokenizer"
        else:
            self.chat_template = FALLBACK_CHAT_TEMPLATE
            self.chat_template_source = "fallback (tokenizer has no chat template)"
            log.warning("%s: the tokenizer has no chat template; using regrapht's plain fallback", self.path)
        self._eos_ids = self._eos_token_ids()
        self._context = context or self._model_context()

    def _eos_token_ids(self) -> set[int]:
        ids: set[int] = set()
        for source in (self.model.generation_config.eos_token_id, self.tokenizer.eos_token_id):
            if isinstance(source, int):
                ids.add(source)
            elif isinstance(source, (list, tuple)):
                ids.update(int(x) for x in source)
        return ids

    def _model_context(self) -> int | None:
        value = getattr(self.model.config, "max_position_embeddings", None)
        if isinstance(value, int) and value > 0:
            return value
        value = getattr(self.tokenizer, "model_max_length", None)
        # Tokenizers without a limit report a huge sentinel (1e30).
        if isinstance(value, int) and 0 < value < 10_000_000:
            return value
        return None

    # -- protocol -----------------------------------------------------------------------------------

    def render(self, request: ChatRequest) -> str:
        """The prompt text the model sees for `request`."""
        return self.tokenizer.apply_chat_template(
            [dict(m) for m in request.messages],
            chat_template=self.chat_template,
            add_generation_prompt=True,
            tokenize=False,
        )

    def generate(
        self, requests: Sequence[ChatRequest], on_result: ResultCallback | None = None
    ) -> list[ChatResult]:
        prompts = [self.render(r) for r in requests]
        prompt_ids = [self.tokenizer(p, add_special_tokens=False)["input_ids"] for p in prompts]
        for request, ids in zip(requests, prompt_ids, strict=True):
            needed = len(ids) + request.params.max_tokens
            if self._context is not None and needed > self._context:
                raise ContextLengthExceededError(
                    f"prompt too long for {self.path.name}: {len(ids)} prompt tokens + max_tokens "
                    f"{request.params.max_tokens} = {needed} > context {self._context}",
                    limit=self._context,
                    requested=needed,
                )

        texts: list[dict[int, tuple[str, str, int]]] = [{} for _ in requests]
        latency = [0.0] * len(requests)
        results: list[ChatResult | None] = [None] * len(requests)

        # Rows (request, sample) grouped by sampling params: one generate() call needs one setting.
        groups: dict[SamplingParams, list[tuple[int, int]]] = {}
        for i, request in enumerate(requests):
            groups.setdefault(request.params, []).extend((i, k) for k in range(request.n))

        for params, rows in groups.items():
            for start in range(0, len(rows), self.batch_size):
                batch = rows[start : start + self.batch_size]
                began = time.monotonic()
                outputs = self._generate_batch([prompts[i] for i, _ in batch], params)
                spent = time.monotonic() - began
                for (i, k), out in zip(batch, outputs, strict=True):
                    texts[i][k] = out
                for i in {i for i, _ in batch}:
                    latency[i] += spent
                for i in sorted({i for i, _ in batch}):
                    if results[i] is None and len(texts[i]) == requests[i].n:
                        samples = [texts[i][k] for k in range(requests[i].n)]
                        results[i] = ChatResult(
                            tuple(s[0] for s in samples),
                            tuple(s[1] for s in samples),
                            Usage(len(prompt_ids[i]), sum(s[2] for s in samples)),
                            latency[i],
                        )
                        if on_result is not None:
                            on_result(i, results[i])  # type: ignore[arg-type]
        return [r for r in results if r is not None]

    def _generate_batch(self, prompts: list[str], params: SamplingParams) -> list[tuple[str, str, int]]:
        """Generate one sample per prompt; returns (text, finish_reason, completion_tokens) each."""
        torch = self._torch
        enc = self.tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False).to(
            self.device
        )
        kwargs: dict[str, Any] = {
            "max_new_tokens": params.max_tokens,
            "pad_token_id": self.tokenizer.pad_token_id,
            "eos_token_id": sorted(self._eos_ids) or None,
        }
        if params.greedy:
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        else:
            kwargs.update(do_sample=True, temperature=params.temperature, top_p=params.top_p)
        if params.stop:
            kwargs.update(stop_strings=list(params.stop), tokenizer=self.tokenizer)
        if params.seed is not None:
            torch.manual_seed(params.seed)
        with torch.inference_mode():
            output = self.model.generate(**enc, **kwargs)
        generated = output[:, enc["input_ids"].shape[1] :].tolist()
        pad_id = self.tokenizer.pad_token_id
        results = []
        for row in generated:
            count = len(row)
            finish = "length"
            for pos, token in enumerate(row):
                if token in self._eos_ids:
                    count, finish = pos + 1, "stop"
                    break
                if token == pad_id:  # a row that stopped early (stop string) is padded after its end
                    count, finish = pos, "stop"
                    break
            text = self.tokenizer.decode(row[:count], skip_special_tokens=True)
            for stop in params.stop:
                cut = text.find(stop)
                if cut >= 0:
                    text, finish = text[:cut], "stop"
            results.append((text, finish, count))
        return results

    def context_length(self) -> int:
        if self._context is None:
            raise ContextLengthUnknownError(
                f"{self.path}: neither config.json (max_position_embeddings) nor the tokenizer says how long "
                "the context is; add ?context=N to the model spec"
            )
        return self._context

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def describe(self) -> dict[str, Any]:
        return {
            "backend": "hf",
            "identity": self.identity,
            "path": str(self.path),
            "device": str(self.device),
            "dtype": self.dtype,
            "batch_size": self.batch_size,
            "load_s": round(self.load_s, 3),
            "chat_template": self.chat_template_source,
            "pad_token": self.pad_token_note,
            "tokenizer": "model tokenizer",
            "parameters": sum(p.numel() for p in self.model.parameters()),
        }

    def close(self) -> None:
        if getattr(self, "model", None) is not None:
            self.model = None
            if self.device.type == "cuda":
                self._torch.cuda.empty_cache()
