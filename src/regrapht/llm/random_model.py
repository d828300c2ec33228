"""Build a small, randomly initialised causal LM folder (weights, config, tokenizer with a chat
template) without downloading anything.

For tests and smoke benchmarks of the in-process backends: it exercises loading, chat templating,
batching, seeding and token accounting exactly as a real model folder would. Its output is junk by
construction; never use it to judge quality.
"""

from __future__ import annotations

from pathlib import Path

from regrapht.llm.errors import MissingDependencyError

CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)

_TRAINING_TEXT = [
    "__global__ void saxpy(int n, float a, const float* x, float* y) {",
    "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }",
    "Use shared memory tiling to reduce global memory traffic. Coalesce loads across a warp.",
    "```cuda\n#include <cuda_runtime.h>\n```",
    "The kernel launches one thread per element; the reduction uses warp shuffles.",
    "system user assistant: optimize the following serial C++ code into CUDA.",
]


def build_random_chat_model(
    folder: str | Path,
    *,
    layers: int = 2,
    hidden: int = 32,
    heads: int = 4,
    vocab_size: int = 320,
    max_positions: int = 512,
    seed: int = 0,
    chat_template: str | None = CHATML_TEMPLATE,
) -> Path:
    """Write a Llama-architecture model with random weights and a byte-level BPE tokenizer trained on
    a few lines of CUDA-flavoured text to `folder`; return the folder. `chat_template=None` writes a
    tokenizer without a chat template (to exercise the backend's fallback)."""
    try:
        import torch
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
        from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
    except ImportError as e:
        raise MissingDependencyError(e.name or "transformers", "hf", "building a random test model") from e

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(_TRAINING_TEXT, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        bos_token=None,
    )
    if chat_template is not None:
        fast.chat_template = chat_template
    fast.save_pretrained(folder)

    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(fast),
        hidden_size=hidden,
        intermediate_size=hidden * 2,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=max(1, heads // 2),
        max_position_embeddings=max_positions,
        eos_token_id=fast.eos_token_id,
        pad_token_id=fast.pad_token_id,
        bos_token_id=None,
        tie_word_embeddings=False,
    )
    model = LlamaForCausalLM(config)
    model.save_pretrained(folder)
    return folder
