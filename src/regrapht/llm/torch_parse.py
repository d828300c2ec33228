"""The candidate in a response to a torch task (KernelBench layout): a Python module defining
`class ModelNew` (kernels through `load_inline` or Triton), a Python module declaring its entry, or a
bare CUDA source declaring its entry (the forms of eval/torch_forms.py).

As strict as `extract_code`: when no block has a form the judge accepts, the result is a
`ParseFailure` that says why, never a guess.
"""

from __future__ import annotations

import ast
import re

from regrapht.llm.parse import (
    C_FAMILY,
    CodeBlock,
    ExtractedCode,
    ParseFailure,
    find_code_blocks,
    response_body,
)

PYTHON = frozenset({"python", "py", "python3"})
_MODEL_NEW = re.compile(r"^class\s+ModelNew\b", re.MULTILINE)
_ENTRY = re.compile(r"^\s*(?://|#)\s*regrapht:\s*entry\s*=\s*[A-Za-z_]\w*\s*$", re.MULTILINE)


def _python_like(block: CodeBlock) -> bool:
    if block.language is not None:
        return block.language in PYTHON
    return bool(re.search(r"^\s*(import|from)\s+\w", block.code, re.MULTILINE))


def _form(block: CodeBlock) -> str | None:
    """The form a block has ("ModelNew", "python entry", "cuda entry"), None for none."""
    if _python_like(block):
        if _MODEL_NEW.search(block.code):
            return "ModelNew"
        if _ENTRY.search(block.code):
            return "python entry"
    elif (block.language in C_FAMILY or block.language is None) and _ENTRY.search(block.code):
        return "cuda entry"
    return None


def extract_torch_code(text: str) -> ExtractedCode | ParseFailure:
    """The candidate in a response: the longest block defining `ModelNew`, else the longest block
    declaring `regrapht: entry = NAME` (Python, then CUDA). A whole response without fences counts
    when it is a Python module defining `ModelNew`."""
    found = response_body(text)
    if isinstance(found, ParseFailure):
        return found
    body, notes = found
    blocks = [b for b in find_code_blocks(body) if b.code.strip()]
    if not blocks:
        if _MODEL_NEW.search(body) and _parses(body):
            return ExtractedCode(body.strip("\n"), "python", "unfenced: the whole response is a module defining ModelNew", tuple(notes))
        return ParseFailure("no_code", "the response has no code block; answer with a ```python block defining class ModelNew",
                            tuple(notes))
    if not blocks[-1].closed:
        notes.append("the closing fence is missing; took the code to the end of the response")
    formed = [(b, _form(b)) for b in blocks]
    for wanted in ("ModelNew", "python entry", "cuda entry"):
        matches = [b for b, form in formed if form == wanted]
        if matches:
            chosen = max(matches, key=lambda b: (len(b.code), b.index))
            if len(blocks) > 1:
                notes.append(f"{len(blocks)} code blocks; {len(matches)} with the form {wanted}")
            which = "only" if len(matches) == 1 else "longest"
            language = "cuda" if wanted == "cuda entry" else "python"
            return ExtractedCode(chosen.code, language, f"the {which} block with the form {wanted}", tuple(notes))
    langs = ", ".join(sorted({b.language or "untagged" for b in blocks}))
    return ParseFailure(
        "function_missing",
        f"found {len(blocks)} code block(s) ({langs}) but none defines class ModelNew or declares "
        "`regrapht: entry = NAME`",
        tuple(notes),
    )


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True
