"""Context budgeting: count a prompt's tokens and make it fit by dropping the least useful examples.

When no tokenizer is available (an HTTP server without a /tokenize endpoint) we estimate one token
per 3.2 characters. Code-heavy English prompts with BPE tokenizers of current code models run at
roughly 3.5 to 4.5 characters per token, so 3.2 overestimates the count: a prompt that fits by the
estimate fits in reality, at the cost of sometimes dropping an example that would have fit.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from regrapht.llm.errors import ContextLengthExceededError
from regrapht.llm.types import ChatModel, Message

CHARS_PER_TOKEN_ESTIMATE = 3.2

# Chat templates wrap each message in role markers and separators (ChatML: "<|im_start|>user\n" ...
# "<|im_end|>\n", about 5 tokens); 8 leaves room for more verbose templates. The reply is primed
# with an assistant header, counted once.
MESSAGE_OVERHEAD_TOKENS = 8
REPLY_PRIMING_TOKENS = 4
# Some templates add more than markers (Qwen2.5 inserts a default system prompt of about 20 tokens
# when none is given), so fitting keeps this much room free by default.
DEFAULT_MARGIN_TOKENS = 32

T = TypeVar("T")


def estimate_tokens(text: str) -> int:
    """A conservative (high) token count for `text` when no tokenizer is at hand."""
    return math.ceil(len(text) / CHARS_PER_TOKEN_ESTIMATE)


def count_message_tokens(messages: Sequence[Message], count_tokens: Callable[[str], int]) -> int:
    """Tokens a chat prompt takes: its contents by `count_tokens` plus per-message template overhead."""
    return sum(count_tokens(m["content"]) + MESSAGE_OVERHEAD_TOKENS for m in messages) + REPLY_PRIMING_TOKENS


@dataclass(frozen=True)
class FittedPrompt(Generic[T]):
    """A prompt that fits: the messages, which items made it in (in their original order) and which
    were dropped (lowest priority first)."""

    messages: list[Message]
    kept: list[T]
    dropped: list[T]
    prompt_tokens: int
    budget_tokens: int


def fit_prompt(
    build: Callable[[Sequence[T]], Sequence[Message]],
    items: Sequence[T],
    *,
    count_tokens: Callable[[str], int],
    context_length: int,
    reserve_tokens: int,
    priority: Callable[[T], float] | None = None,
    margin_tokens: int = DEFAULT_MARGIN_TOKENS,
) -> FittedPrompt[T]:
    """Render `build(items)`; while it does not fit in `context_length - reserve_tokens -
    margin_tokens` (reserve: the answer's max_tokens; margin: what the chat template may add), drop the
    item with the lowest `priority` (ties: the later one; default priority: earlier items matter
    more) and render again. Raises ContextLengthExceededError only when the prompt does not fit even
    with every item dropped."""
    budget = context_length - reserve_tokens - margin_tokens
    if budget <= 0:
        raise ContextLengthExceededError(
            f"no room for a prompt: {reserve_tokens} tokens are reserved for the answer and {margin_tokens} "
            f"for the chat template, but the context holds only {context_length}; lower max_tokens",
            limit=context_length,
            requested=reserve_tokens,
        )
    order = list(range(len(items)))
    if priority is None:
        drop_order = sorted(order, key=lambda i: -i)
    else:
        drop_order = sorted(order, key=lambda i: (priority(items[i]), -i))
    kept_idx = set(order)
    dropped: list[T] = []
    while True:
        kept = [items[i] for i in order if i in kept_idx]
        messages = list(build(kept))
        tokens = count_message_tokens(messages, count_tokens)
        if tokens <= budget:
            return FittedPrompt(messages, kept, dropped, tokens, budget)
        if not drop_order:
            raise ContextLengthExceededError(
                f"the prompt needs {tokens} tokens even with all {len(items)} examples dropped, but only "
                f"{budget} fit (context {context_length} minus {reserve_tokens} reserved for the answer "
                f"and {margin_tokens} for the chat template)",
                limit=context_length,
                requested=tokens + reserve_tokens,
            )
        victim = drop_order.pop(0)
        kept_idx.discard(victim)
        dropped.append(items[victim])


def fit_prompt_for_model(
    model: ChatModel,
    build: Callable[[Sequence[T]], Sequence[Message]],
    items: Sequence[T],
    *,
    max_tokens: int,
    priority: Callable[[T], float] | None = None,
    margin_tokens: int = DEFAULT_MARGIN_TOKENS,
) -> FittedPrompt[T]:
    """`fit_prompt` with the model's own tokenizer and context length."""
    return fit_prompt(
        build,
        items,
        count_tokens=model.count_tokens,
        context_length=model.context_length(),
        reserve_tokens=max_tokens,
        priority=priority,
        margin_tokens=margin_tokens,
    )
