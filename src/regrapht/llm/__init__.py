"""The model layer: chat models behind one small protocol, response parsing, prompt templates,
context budgeting, and the call cache that makes runs resumable and replayable.

    from regrapht.llm import open_model, ChatRequest, SamplingParams
    model = open_model("openai:qwen2.5-coder-7b@http://localhost:8000/v1")
    [result] = model.generate([ChatRequest.from_prompt("Hello", params=SamplingParams(max_tokens=16))])

Backends are imported lazily: importing this package needs neither torch nor vllm.
"""

from regrapht.llm.budget import (
    CHARS_PER_TOKEN_ESTIMATE,
    FittedPrompt,
    count_message_tokens,
    estimate_tokens,
    fit_prompt,
    fit_prompt_for_model,
)
from regrapht.llm.cache import LLM_SCHEMA, CachedChatModel, CallCache, request_key, sample_key
from regrapht.llm.errors import (
    AuthenticationError,
    BackendResponseError,
    BackendUnavailableError,
    BadRequestError,
    ContextLengthExceededError,
    ContextLengthUnknownError,
    MissingDependencyError,
    ModelError,
    ModelNotFoundError,
    ModelSpecError,
    ReplayMissError,
)
from regrapht.llm.factory import open_model
from regrapht.llm.parse import (
    ExtractedCode,
    ParsedRelabel,
    ParsedTrajectory,
    ParseFailure,
    RelabelItem,
    TrajectoryStep,
    extract_code,
    parse_relabel,
    parse_trajectory,
    strip_reasoning,
)
from regrapht.llm.spec import ModelSpec, parse_model_spec, spec_help
from regrapht.llm.templates import PromptTemplate, TemplateError, TemplateLibrary, load_template
from regrapht.llm.types import ChatModel, ChatRequest, ChatResult, Message, SamplingParams, Usage

__all__ = [
    "CHARS_PER_TOKEN_ESTIMATE",
    "LLM_SCHEMA",
    "AuthenticationError",
    "BackendResponseError",
    "BackendUnavailableError",
    "BadRequestError",
    "CachedChatModel",
    "CallCache",
    "ChatModel",
    "ChatRequest",
    "ChatResult",
    "ContextLengthExceededError",
    "ContextLengthUnknownError",
    "ExtractedCode",
    "FittedPrompt",
    "Message",
    "MissingDependencyError",
    "ModelError",
    "ModelNotFoundError",
    "ModelSpec",
    "ModelSpecError",
    "ParseFailure",
    "ParsedRelabel",
    "ParsedTrajectory",
    "PromptTemplate",
    "RelabelItem",
    "ReplayMissError",
    "SamplingParams",
    "TemplateError",
    "TemplateLibrary",
    "TrajectoryStep",
    "Usage",
    "count_message_tokens",
    "estimate_tokens",
    "extract_code",
    "fit_prompt",
    "fit_prompt_for_model",
    "load_template",
    "open_model",
    "parse_model_spec",
    "parse_relabel",
    "parse_trajectory",
    "request_key",
    "sample_key",
    "spec_help",
    "strip_reasoning",
]
